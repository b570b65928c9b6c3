package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real quorum elections, each member with its own TCP transport on loopback. */
class ElectionOverTcpTest {
    private static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final Cluster cluster = new Cluster("n1", "n2", "n3");
    private final Map<NodeId, Election> elections = new LinkedHashMap<>();
    private final Map<NodeId, TcpTransport> transports = new LinkedHashMap<>();
    private final Object changed = new Object();

    @AfterEach
    void closeAll() {
        elections.values().forEach(Election::close);
        cluster.close();
    }

    @Test
    void threeMembersElectOneLeaderAndReplaceItWhenItGoes() throws InterruptedException {
        for (NodeId id : cluster.members.keySet()) {
            transports.put(id, cluster.start(cluster.builder(id.value())));
        }
        electAndReplaceTheLeader();
    }

    @Test
    void threeMembersThatDiscoverEachOtherElectOneLeaderAndReplaceItWhenItGoes() throws InterruptedException {
        // Every member listens on all interfaces, as in a pod, and the resolver answers the three addresses.
        List<NodeAddress> addresses = new ArrayList<>(cluster.members.values());
        for (NodeId id : cluster.members.keySet()) {
            transports.put(
                    id,
                    cluster.start(TcpTransport.builder()
                            .cluster("test-cluster")
                            .self(id)
                            .listen(new NodeAddress(
                                    "0.0.0.0", cluster.members.get(id).port()))
                            .discover(cluster.members.keySet(), () -> addresses)
                            .secret(Cluster.SECRET)));
        }
        electAndReplaceTheLeader();
        assertThat(transports.values())
                .allSatisfy(
                        t -> assertThat(t.discovery().orElseThrow().lastError()).isNull());
    }

    private void electAndReplaceTheLeader() throws InterruptedException {
        for (NodeId id : cluster.members.keySet()) {
            TcpTransport transport = transports.get(id);
            Election election = Election.builder()
                    .group("tcp-e2e")
                    .self(id)
                    .members(cluster.members)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(transport)
                    .seed(id.hashCode())
                    .build();
            election.addListener(new ElectionListener() {
                @Override
                public void elected(Leadership leadership) {
                    signal();
                }

                @Override
                public void revoked(Leadership leadership, RevocationReason reason) {
                    signal();
                }

                @Override
                public void leaderChanged(Optional<LeaderView> leader) {
                    signal();
                }
            });
            elections.put(id, election);
        }
        elections.values().forEach(Election::start);

        Election first = awaitAgreedLeader(new ArrayList<>(elections.values()), 0);
        long firstEpoch = first.leadership().orElseThrow().epoch();

        transports.get(first.self()).close();
        first.close();
        List<Election> survivors = new ArrayList<>(elections.values());
        survivors.remove(first);

        Election second = awaitAgreedLeader(survivors, firstEpoch);
        assertThat(second.self()).isNotEqualTo(first.self());
        assertThat(second.leadership().orElseThrow().epoch()).isGreaterThan(firstEpoch);
    }

    private void signal() {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    /** Waits until {@code among} agree on one valid leader above {@code minEpoch}, woken by listener events. */
    private Election awaitAgreedLeader(List<Election> among, long minEpoch) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        synchronized (changed) {
            while (true) {
                Optional<Election> leader = agreedLeader(among, minEpoch);
                if (leader.isPresent()) {
                    return leader.get();
                }
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("within 20 s, one agreed leader above epoch %d; now: %s", minEpoch, views(among))
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }

    private static Optional<Election> agreedLeader(List<Election> among, long minEpoch) {
        List<Election> leaders = among.stream().filter(Election::isLeader).toList();
        if (leaders.size() != 1) {
            return Optional.empty();
        }
        Election leader = leaders.get(0);
        Optional<Leadership> held = leader.leadership();
        if (held.isEmpty() || held.get().epoch() <= minEpoch) {
            return Optional.empty();
        }
        long epoch = held.get().epoch();
        boolean allKnow = among.stream().allMatch(e -> e.leader()
                .filter(v -> v.leader().equals(leader.self()) && v.epoch() == epoch)
                .isPresent());
        return allKnow ? Optional.of(leader) : Optional.empty();
    }

    private static String views(List<Election> among) {
        StringBuilder s = new StringBuilder();
        among.forEach(e -> s.append(e.self())
                .append('=')
                .append(e.role())
                .append(e.leader().map(v -> "->" + v.leader() + "@" + v.epoch()).orElse(""))
                .append(' '));
        return s.toString();
    }
}
