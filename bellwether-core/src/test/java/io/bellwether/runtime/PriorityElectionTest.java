package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Priorities on the real runtime, over an in-process network: a member of higher priority that joins late becomes
 * leader once, and leadership does not move again while it stays healthy. node-1 has the highest priority and the
 * lowest id, so neither the id order nor the order of starting makes it win.
 */
class PriorityElectionTest {
    private static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Duration HOLD_DOWN = Duration.ofMillis(300);
    private static final NodeId PREFERRED = NodeId.of("node-1");

    private final InProcessNetwork network = new InProcessNetwork();
    private final Map<NodeId, Election> elections = new LinkedHashMap<>();
    /** Every leadership won, by whom, in order. */
    private final List<NodeId> elected = new ArrayList<>();

    private final Object changed = new Object();

    @AfterEach
    void closeAll() {
        elections.values().forEach(Election::close);
        network.close();
    }

    /** The spec each member runs: node-1 is preferred. */
    private static Function<NodeId, ElectorSpec> specs(String algorithm) {
        return switch (algorithm) {
            case "quorum" -> id -> QuorumConfig.builder()
                    .priority(id.equals(PREFERRED) ? 5 : 0)
                    .priorityHoldDown(HOLD_DOWN)
                    .build();
            case "bully" -> id -> BullyConfig.builder()
                    .priorities(Map.of(PREFERRED, 5))
                    .preemptionHoldDown(HOLD_DOWN)
                    .build();
            default -> throw new IllegalArgumentException(algorithm);
        };
    }

    private void create(int size, Function<NodeId, ElectorSpec> spec) {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= size; i++) {
            members.put(NodeId.of("node-" + i), new NodeAddress("localhost", 7200 + i));
        }
        for (NodeId id : members.keySet()) {
            Election election = Election.builder()
                    .group("priority-it")
                    .self(id)
                    .members(members)
                    .algorithm(spec.apply(id))
                    .stateStore(new InMemoryStateStore())
                    .transport(network.transport(id))
                    .seed(17L * 31 + id.hashCode())
                    .build();
            election.addListener(new ElectionListener() {
                @Override
                public void elected(Leadership leadership) {
                    synchronized (changed) {
                        elected.add(id);
                        changed.notifyAll();
                    }
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
    }

    private void signal() {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    /** Waits, woken by listener events, until every started member names {@code leader}, which leads validly. */
    private void awaitLeader(NodeId leader, List<Election> among) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        synchronized (changed) {
            while (!agreeOn(leader, among)) {
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("within 10 s, %s agree that %s leads; now: %s", among, leader, views())
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }

    private boolean agreeOn(NodeId leader, List<Election> among) {
        Election l = elections.get(leader);
        if (!l.isLeader() || l.leadership().isEmpty()) {
            return false;
        }
        long epoch = l.leadership().get().epoch();
        return among.stream().allMatch(e -> e.leader()
                .filter(v -> v.leader().equals(leader) && v.epoch() == epoch)
                .isPresent());
    }

    private String views() {
        StringBuilder s = new StringBuilder();
        elections.values().forEach(e -> s.append(e.self())
                .append('=')
                .append(e.role())
                .append(e.leader().map(v -> "→" + v.leader() + "@" + v.epoch()).orElse(""))
                .append(' '));
        return s.toString();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"quorum", "bully"})
    void aHigherPriorityMemberThatJoinsLateLeadsOnceAndLeadershipStaysWithIt(String algorithm) throws Exception {
        create(3, specs(algorithm));
        List<Election> others = List.of(elections.get(NodeId.of("node-2")), elections.get(NodeId.of("node-3")));
        others.forEach(Election::start);
        synchronized (changed) {
            long deadline = System.nanoTime() + CEILING_NANOS;
            while (elected.isEmpty() || others.stream().noneMatch(e -> agreeOn(e.self(), others))) {
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("the first two agree on a leader; now: %s", views())
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
        int before;
        synchronized (changed) {
            before = elected.size();
        }

        elections.get(PREFERRED).start();
        awaitLeader(PREFERRED, new ArrayList<>(elections.values()));
        long epoch = elections.get(PREFERRED).leadership().orElseThrow().epoch();

        // Watch for three hold-downs, woken by every listener event: node-1 keeps its leadership at its epoch.
        long watchEnd = System.nanoTime() + HOLD_DOWN.multipliedBy(3).toNanos();
        synchronized (changed) {
            long left;
            while ((left = watchEnd - System.nanoTime()) > 0) {
                assertThat(agreeOn(PREFERRED, new ArrayList<>(elections.values())))
                        .as("node-1 still leads at epoch %d, known by all; now: %s", epoch, views())
                        .isTrue();
                TimeUnit.NANOSECONDS.timedWait(changed, left);
            }
            assertThat(elections.get(PREFERRED).leadership().orElseThrow().epoch())
                    .isEqualTo(epoch);
            assertThat(elected.subList(before, elected.size()))
                    .as("one leadership won since node-1 joined: its own")
                    .containsExactly(PREFERRED);
        }
    }
}
