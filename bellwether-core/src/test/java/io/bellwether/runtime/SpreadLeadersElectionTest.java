package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderSpread;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link io.bellwether.ElectionBuilder#spreadLeaders} on the real runtime: many quorum groups over three members are
 * each led by the member their name prefers ({@link LeaderSpread}); when a member goes, each of its groups is led by
 * its next choice among the members left.
 */
class SpreadLeadersElectionTest {
    private static final int GROUPS = 12;
    private static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final InProcessNetwork network = new InProcessNetwork();
    /** group → member → election. */
    private final Map<String, Map<NodeId, Election>> elections = new LinkedHashMap<>();

    private final Object changed = new Object();

    @AfterEach
    void closeAll() {
        elections.values().forEach(m -> m.values().forEach(Election::close));
        network.close();
    }

    private void signal() {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    /** Waits, woken by listener events, until {@code expected} gives each group's leader, agreed by all running. */
    private void awaitLeaders(Function<String, NodeId> expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        synchronized (changed) {
            while (!elections.keySet().stream().allMatch(g -> agreeOn(g, expected.apply(g)))) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("within 20 s, %s; now: %s", what, views()).isPositive();
                TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }

    private boolean agreeOn(String group, NodeId leader) {
        Map<NodeId, Election> members = elections.get(group);
        Election l = members.get(leader);
        if (l == null || !l.isLeader() || l.leadership().isEmpty()) {
            return false;
        }
        long epoch = l.leadership().get().epoch();
        return members.values().stream().allMatch(e -> e.leader()
                .filter(v -> v.leader().equals(leader) && v.epoch() == epoch)
                .isPresent());
    }

    private String views() {
        StringBuilder s = new StringBuilder();
        elections.forEach((g, members) -> {
            s.append(g).append(':');
            members.values().stream().filter(Election::isLeader).forEach(e -> s.append(e.self()));
            s.append(' ');
        });
        return s.toString();
    }

    @Test
    void eachGroupIsLedByTheMemberItsNamePrefersAndAGoneMembersGroupsGoToTheirNextChoices() throws Exception {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            members.put(NodeId.of("n" + i), new NodeAddress("localhost", 7300 + i));
        }
        QuorumConfig config =
                QuorumConfig.builder().priorityHoldDown(Duration.ofMillis(300)).build();
        for (int g = 0; g < GROUPS; g++) {
            String group = "spread-" + g;
            Map<NodeId, Election> byMember = new LinkedHashMap<>();
            for (NodeId id : members.keySet()) {
                Election election = Election.builder()
                        .group(group)
                        .self(id)
                        .members(members)
                        .algorithm(config)
                        .spreadLeaders(true)
                        .stateStore(new InMemoryStateStore())
                        .transport(network.transport(id))
                        .seed(g * 31L + id.hashCode())
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
                byMember.put(id, election);
            }
            elections.put(group, byMember);
        }
        elections.values().forEach(m -> m.values().forEach(Election::start));

        awaitLeaders(g -> LeaderSpread.order(g, members.keySet()).get(0), "each group led by its preferred member");
        Map<NodeId, Integer> led = new HashMap<>();
        elections.values().forEach(byMember -> byMember.values().stream()
                .filter(Election::isLeader)
                .forEach(e -> led.merge(e.self(), 1, Integer::sum)));
        assertThat(led).as("leaders spread over the members: %s", led).hasSizeGreaterThan(1);

        // The member that leads the most groups goes: each of its groups goes to its next choice.
        NodeId gone = led.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .orElseThrow()
                .getKey();
        for (Map<NodeId, Election> byMember : elections.values()) {
            byMember.remove(gone).close();
        }
        awaitLeaders(
                g -> {
                    List<NodeId> order = new ArrayList<>(LeaderSpread.order(g, members.keySet()));
                    order.remove(gone);
                    return order.get(0);
                },
                "each group led by its first choice among the members left (" + gone + " gone)");
    }
}
