package io.bellwether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The order in which a group prefers its members ({@link LeaderSpread}) and how an election takes it. */
class LeaderSpreadTest {
    /**
     * The score of member "a" in group "g", computed independently of the code under test (FNV-1a 64 over the bytes
     * 'g', 0, 'a', then the SplitMix64 finalizer, in Python with 64-bit masks).
     */
    private static final long PINNED_SCORE = -332579456658180606L;

    private static final List<NodeId> FIVE =
            List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("n5"));

    /** A store the elections of these tests never reach (their build fails first). */
    private static io.bellwether.spi.LeaseStore unusedStore() {
        return (io.bellwether.spi.LeaseStore) java.lang.reflect.Proxy.newProxyInstance(
                LeaderSpreadTest.class.getClassLoader(),
                new Class<?>[] {io.bellwether.spi.LeaseStore.class},
                (proxy, method, args) -> {
                    throw new AssertionError("unexpected call " + method.getName());
                });
    }

    @Test
    void theOrderIsAPermutationFixedByTheNamesAloneWhateverOrderTheMembersAreGivenIn() {
        List<NodeId> order = LeaderSpread.order("orders-17", FIVE);
        assertThat(order).containsExactlyInAnyOrderElementsOf(FIVE);
        List<NodeId> reversed = new ArrayList<>(FIVE);
        java.util.Collections.reverse(reversed);
        assertThat(LeaderSpread.order("orders-17", reversed)).isEqualTo(order);
        // Pinned, as computed by hand from the documented hash: members running different builds must agree on it.
        assertThat(LeaderSpread.score("g", NodeId.of("a"))).isEqualTo(PINNED_SCORE);
        assertThat(LeaderSpread.priorities("orders-17", FIVE))
                .containsEntry(order.get(0), 4)
                .containsEntry(order.get(4), 0)
                .hasSize(5);
    }

    @Test
    void aThousandGroupsAreLedAboutEvenlyAndAGoneMembersGroupsSpreadOverTheOthers() {
        Map<NodeId, Integer> first = new HashMap<>();
        Map<NodeId, Integer> secondOfN1 = new HashMap<>();
        for (int g = 0; g < 1000; g++) {
            List<NodeId> order = LeaderSpread.order("g" + g, FIVE);
            first.merge(order.get(0), 1, Integer::sum);
            if (order.get(0).equals(FIVE.get(0))) {
                secondOfN1.merge(order.get(1), 1, Integer::sum);
            }
        }
        assertThat(first).hasSize(5);
        assertThat(first.values()).allSatisfy(n -> assertThat(n).isBetween(150, 250));
        int ofN1 = first.get(FIVE.get(0));
        assertThat(secondOfN1).hasSize(4);
        assertThat(secondOfN1.values()).allSatisfy(n -> assertThat(n).isBetween(ofN1 / 8, ofN1 / 2));
    }

    @Test
    void aReturningMembersHandOversAreStaggeredOverOneMoreHoldDown() {
        int[] buckets = new int[10];
        for (int g = 0; g < 1000; g++) {
            double f = LeaderSpread.stagger("g" + g);
            assertThat(f).isGreaterThanOrEqualTo(0).isLessThan(1);
            buckets[(int) (f * 10)]++;
        }
        assertThat(java.util.Arrays.stream(buckets).boxed().toList())
                .allSatisfy(n -> assertThat(n).isBetween(50, 150));

        io.bellwether.quorum.QuorumConfig base = io.bellwether.quorum.QuorumConfig.builder()
                .priorityHoldDown(java.time.Duration.ofSeconds(1))
                .build();
        long one = java.time.Duration.ofSeconds(1).toNanos();
        java.util.Set<Long> holdDowns = new java.util.HashSet<>();
        for (int g = 0; g < 20; g++) {
            io.bellwether.quorum.QuorumConfig q =
                    (io.bellwether.quorum.QuorumConfig) ElectionBuilder.staggered(base, "g" + g);
            long h = q.priorityHoldDown().toNanos();
            assertThat(h).isBetween(one, 2 * one);
            assertThat(h - one).isEqualTo((long) (one * LeaderSpread.stagger("g" + g)));
            holdDowns.add(h);
        }
        assertThat(holdDowns).as("different groups wait different times").hasSizeGreaterThan(15);
    }

    @Test
    void theOrderDependsOnTheMemberIdsNotOnTheirPositions() {
        // Renaming one member moves only that member: the others keep their relative order.
        List<NodeId> renamed =
                List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("x9"));
        for (int g = 0; g < 50; g++) {
            List<NodeId> before = new ArrayList<>(LeaderSpread.order("g" + g, FIVE));
            List<NodeId> after = new ArrayList<>(LeaderSpread.order("g" + g, renamed));
            before.remove(NodeId.of("n5"));
            after.remove(NodeId.of("x9"));
            assertThat(after).isEqualTo(before);
        }
    }

    private static ElectionBuilder member(InProcessNetwork network, io.bellwether.elector.ElectorSpec spec) {
        return Election.builder()
                .group("spread")
                .self(FIVE.get(0))
                .members(FIVE.toArray(NodeId[]::new))
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(FIVE.get(0)))
                .spreadLeaders(true)
                .algorithm(spec);
    }

    @Test
    void spreadLeadersTakesQuorumAndBullyAndRefusesHandSetPrioritiesAndAlgorithmsWithoutThem() {
        try (InProcessNetwork network = new InProcessNetwork()) {
            member(network, QuorumConfig.defaults()).build().close();
            member(network, io.bellwether.bully.BullyConfig.builder().build())
                    .build()
                    .close();
            assertThatThrownBy(() -> member(
                                    network, QuorumConfig.builder().priority(3).build())
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("spread-leaders")
                    .hasMessageContaining("priority = 3")
                    .hasMessageContaining("allowed none");
            assertThatThrownBy(() -> member(
                                    network,
                                    io.bellwether.bully.BullyConfig.builder()
                                            .priorities(java.util.Map.of(FIVE.get(1), 2))
                                            .build())
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("priorities set by hand");
            assertThatThrownBy(() -> member(
                                    network,
                                    io.bellwether.ring.RingConfig.builder().build())
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("spread-leaders needs an algorithm with priorities")
                    .hasMessageContaining("'ring', which has none");
        }
        ElectionBuilder lease = Election.builder()
                .group("spread")
                .self(FIVE.get(0))
                .stateStore(new InMemoryStateStore())
                .spreadLeaders(true)
                .algorithm(LeaseConfig.builder().store(unusedStore()).build());
        assertThatThrownBy(lease::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lease', which elects through its store alone");
    }
}
