package io.bellwether.invitation;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.invitation.InvitationElector.GroupView;
import io.bellwether.invitation.InvitationElector.Phase;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A few invitation electors wired together through scripted contexts and a message queue, on one virtual
 * clock. Messages take a seeded random 0.1–3 ms, so they arrive in a seeded random order; a partition drops
 * every message between its two sides. After every event the harness checks what the simulator will check:
 * within one group number one coordinator and one member list, each member's group numbers strictly increase
 * (so no number is ever reused), and with the majority gate never two acting coordinators.
 */
class InvitationClusterTest {
    private static final Logger log = LoggerFactory.getLogger(InvitationClusterTest.class);
    private static final long MS = 1_000_000L;
    private static final List<NodeId> IDS =
            IntStream.rangeClosed(1, 5).mapToObj(i -> NodeId.of("n" + i)).toList();

    /** The harness: one virtual clock, five electors, a queue of messages in flight. */
    private static final class Cluster {
        private record InFlight(long at, long order, int from, int to, ElectorMessage message) {}

        private final long seed;
        private final SplittableRandom random;
        private final int n = IDS.size();
        private final ScriptedContext[] ctx = new ScriptedContext[n];
        private final InvitationElector[] elector = new InvitationElector[n];
        private final long[] startAt = new long[n];
        private final boolean[] started = new boolean[n];
        private final PriorityQueue<InFlight> inFlight =
                new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
        private final Map<GroupNumber, List<NodeId>> membersOf = new HashMap<>();
        private final GroupNumber[] lastNumber = new GroupNumber[n];
        private final boolean[] down = new boolean[n];
        private final InvitationConfig config;
        private int[] side; // null: no partition
        private double lossRate;
        private double duplicationRate;
        private long now;

        Cluster(long seed, InvitationConfig config, long startSpreadNanos) {
            this.seed = seed;
            this.config = config;
            this.random = new SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                ctx[i] = new ScriptedContext(IDS.get(i), IDS, random.nextLong());
                elector[i] = (InvitationElector) config.create(ctx[i]);
                startAt[i] = startSpreadNanos == 0 ? 0 : random.nextLong(startSpreadNanos);
            }
        }

        void partition(Set<Integer> oneSide) {
            side = new int[n];
            for (int i = 0; i < n; i++) {
                side[i] = oneSide.contains(i) ? 1 : 0;
            }
        }

        void heal() {
            side = null;
        }

        void lossy(double loss, double duplication) {
            lossRate = loss;
            duplicationRate = duplication;
        }

        /** The node stops: its timers and messages in flight to it are lost; its stored state survives. */
        void crash(int i) {
            down[i] = true;
            ctx[i].takeSent();
        }

        /** A new incarnation starts from the crashed one's stored state only. */
        void restart(int i) {
            ScriptedContext fresh = new ScriptedContext(IDS.get(i), IDS, random.nextLong());
            fresh.storeState(ctx[i].storedState());
            fresh.setNanos(now);
            ctx[i] = fresh;
            elector[i] = (InvitationElector) config.create(fresh);
            down[i] = false;
            elector[i].start();
        }

        private boolean cut(int a, int b) {
            return side != null && side[a] != side[b];
        }

        void runFor(long nanos) {
            long end = now + nanos;
            while (true) {
                collectSends();
                long next = Long.MAX_VALUE;
                int kind = -1; // 0 start, 1 message, 2 timer
                int node = -1;
                String timer = null;
                for (int i = 0; i < n; i++) {
                    if (!started[i] && startAt[i] < next) {
                        next = startAt[i];
                        kind = 0;
                        node = i;
                    }
                }
                if (!inFlight.isEmpty() && inFlight.peek().at < next) {
                    next = inFlight.peek().at;
                    kind = 1;
                }
                for (int i = 0; i < n; i++) {
                    if (!started[i] || down[i]) {
                        continue;
                    }
                    for (InvitationElector.Timer t : InvitationElector.Timer.values()) {
                        Optional<Long> at = ctx[i].deadline(t.name());
                        if (at.isPresent() && at.get() < next) {
                            next = at.get();
                            kind = 2;
                            node = i;
                            timer = t.name();
                        }
                    }
                }
                if (next > end) {
                    advanceTo(end);
                    return;
                }
                advanceTo(next);
                switch (kind) {
                    case 0 -> {
                        started[node] = true;
                        elector[node].start();
                    }
                    case 1 -> {
                        InFlight m = inFlight.poll();
                        node = m.to;
                        if (!cut(m.from, m.to) && !down[m.to]) {
                            elector[m.to].onMessage(IDS.get(m.from), m.message);
                        }
                    }
                    default -> elector[node].onTimer(ctx[node].fire(timer));
                }
                check(node);
            }
        }

        private void advanceTo(long t) {
            now = Math.max(now, t);
            for (ScriptedContext c : ctx) {
                c.setNanos(now);
            }
        }

        private void collectSends() {
            for (int i = 0; i < n; i++) {
                for (Sent s : ctx[i].takeSent()) {
                    int to = IDS.indexOf(s.to());
                    if (cut(i, to) || down[i] || random.nextDouble() < lossRate) {
                        continue;
                    }
                    int copies = random.nextDouble() < duplicationRate ? 2 : 1;
                    for (int c = 0; c < copies; c++) {
                        long delay = 100_000 + random.nextLong(2_900_000);
                        inFlight.add(new InFlight(now + delay, random.nextLong(), i, to, s.message()));
                    }
                }
            }
        }

        /** The invariants, after every event at {@code node}. */
        private void check(int node) {
            for (int i = 0; i < n; i++) {
                Optional<GroupView> view = elector[i].group();
                if (view.isEmpty() || down[i]) {
                    continue;
                }
                GroupView v = view.get();
                if (lastNumber[i] != null && !v.number().equals(lastNumber[i])) {
                    assertThat(v.number())
                            .as(
                                    "seed %d: %s moved from group %s to a lower or equal one",
                                    seed, IDS.get(i), lastNumber[i])
                            .isGreaterThan(lastNumber[i]);
                }
                lastNumber[i] = v.number();
                if (v.phase() == Phase.NORMAL) {
                    List<NodeId> known = membersOf.putIfAbsent(v.number(), v.members());
                    assertThat(known == null ? v.members() : known)
                            .as("seed %d: member list of group %s as %s sees it", seed, v.number(), IDS.get(i))
                            .isEqualTo(v.members());
                    assertThat(v.members()).contains(IDS.get(i), v.coordinator());
                }
            }
        }

        int actingCoordinators() {
            int acting = 0;
            for (int i = 0; i < n; i++) {
                Optional<GroupView> v = elector[i].group();
                if (!down[i] && v.isPresent() && v.get().acting() && ctx[i].validUntil() > now) {
                    acting++;
                }
            }
            return acting;
        }

        /** Whether the nodes {@code nodes} form exactly one group, in the normal state, coordinated by {@code coordinator}. */
        boolean oneGroup(List<Integer> nodes, int coordinator) {
            GroupNumber number = null;
            List<NodeId> expected = nodes.stream().map(IDS::get).sorted().toList();
            for (int i : nodes) {
                Optional<GroupView> v = elector[i].group();
                if (v.isEmpty()
                        || v.get().phase() != Phase.NORMAL
                        || !v.get().coordinator().equals(IDS.get(coordinator))
                        || !v.get().members().equals(expected)
                        || (number != null && !number.equals(v.get().number()))) {
                    return false;
                }
                number = v.get().number();
            }
            return true;
        }

        /** Runs in steps of 10 ms until {@code nodes} form one group under {@code coordinator}; returns how long it took. */
        long runUntilOneGroup(List<Integer> nodes, int coordinator, long ceilingNanos) {
            long from = now;
            while (!oneGroup(nodes, coordinator)) {
                assertThat(now - from)
                        .as(
                                "seed %d: no single group under %s after %d ms: %s",
                                seed, IDS.get(coordinator), ceilingNanos / MS, describe())
                        .isLessThan(ceilingNanos);
                runFor(10 * MS);
            }
            return now - from;
        }

        String describe() {
            List<String> views = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                views.add(IDS.get(i) + "="
                        + elector[i].group().map(Object::toString).orElse("down"));
            }
            return views.toString();
        }
    }

    private static final List<Integer> ALL = List.of(0, 1, 2, 3, 4);

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void fiveNodesStartingApartConvergeToOneGroupUnderTheHighestPriorityNode(long seed) {
        Cluster cluster = new Cluster(seed, InvitationConfig.defaults(), 2_000 * MS);
        cluster.runFor(2_000 * MS);
        long took = cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
        log.info("seed {}: one group {} ms after the last start window", seed, took / MS);

        // And it stays one group: no spurious merges or recoveries once converged.
        cluster.runFor(3_000 * MS);
        assertThat(cluster.oneGroup(ALL, 4)).as(cluster.describe()).isTrue();
        assertThat(cluster.actingCoordinators()).isEqualTo(1);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15})
    void withoutTheGateEachSideOfAPartitionFormsItsOwnGroupAndTheyMergeBackAfterTheHeal(long seed) {
        Cluster cluster = new Cluster(seed, InvitationConfig.defaults(), 500 * MS);
        cluster.runFor(500 * MS);
        cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);

        cluster.partition(Set.of(0, 1));
        cluster.runUntilOneGroup(List.of(0, 1), 1, 5_000 * MS);
        cluster.runUntilOneGroup(List.of(2, 3, 4), 4, 5_000 * MS);
        assertThat(cluster.actingCoordinators()).as("one per side, by design").isEqualTo(2);

        cluster.heal();
        long took = cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
        log.info("seed {}: one group {} ms after the heal", seed, took / MS);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {21, 22, 23, 24, 25})
    void withTheGateTheMinorityNeverActsTwoCoordinatorsNeverActAndTheGroupsMergeAfterTheHeal(long seed) {
        InvitationConfig gated = InvitationConfig.builder().majorityGate(true).build();
        Cluster cluster = new Cluster(seed, gated, 500 * MS);
        cluster.runFor(500 * MS);
        cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
        cluster.runFor(200 * MS);
        assertThat(cluster.actingCoordinators()).isEqualTo(1);

        // The coordinator ends up on the minority side.
        cluster.partition(Set.of(3, 4));
        int[] maxActing = {0};
        for (int step = 0; step < 300; step++) {
            cluster.runFor(10 * MS);
            maxActing[0] = Math.max(maxActing[0], cluster.actingCoordinators());
            assertThat(cluster.actingCoordinators())
                    .as("seed %d: %s", seed, cluster.describe())
                    .isLessThanOrEqualTo(1);
        }
        assertThat(cluster.oneGroup(List.of(0, 1, 2), 2)).as(cluster.describe()).isTrue();
        assertThat(cluster.elector[2].group().orElseThrow().acting()).isTrue();
        assertThat(cluster.elector[4].group().orElseThrow().acting()).isFalse();

        cluster.heal();
        long took = cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
        log.info("seed {}: one gated group {} ms after the heal", seed, took / MS);
        for (int step = 0; step < 100; step++) {
            cluster.runFor(10 * MS);
            assertThat(cluster.actingCoordinators()).isLessThanOrEqualTo(1);
        }
        assertThat(cluster.actingCoordinators()).isEqualTo(1);
        assertThat(Arrays.stream(cluster.lastNumber).distinct().count()).isEqualTo(1);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {31, 32, 33, 34, 35})
    void coordinatorCrashLeavesTheSurvivorsInOneGroupAndItsRestartTakesOverUnderANewerNumber(long seed) {
        Cluster cluster = new Cluster(seed, InvitationConfig.defaults(), 500 * MS);
        cluster.runFor(500 * MS);
        cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
        GroupNumber before = cluster.elector[4].group().orElseThrow().number();

        cluster.crash(4);
        long failover = cluster.runUntilOneGroup(List.of(0, 1, 2, 3), 3, 5_000 * MS);
        log.info("seed {}: survivors in one group under n4 {} ms after the crash", seed, failover / MS);

        cluster.restart(4);
        assertThat(cluster.elector[4].group().orElseThrow().number()).isGreaterThan(before);
        cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {41, 42, 43, 44, 45})
    void withTheGateLossAndDuplicationNeverGiveTwoActingCoordinatorsAndOneGroupFormsOnceTheyStop(long seed) {
        InvitationConfig gated = InvitationConfig.builder().majorityGate(true).build();
        Cluster cluster = new Cluster(seed, gated, 500 * MS);
        cluster.lossy(0.05, 0.05);
        for (int step = 0; step < 500; step++) {
            cluster.runFor(10 * MS);
            assertThat(cluster.actingCoordinators())
                    .as("seed %d: %s", seed, cluster.describe())
                    .isLessThanOrEqualTo(1);
        }
        cluster.lossy(0, 0);
        long took = cluster.runUntilOneGroup(ALL, 4, 5_000 * MS);
        log.info("seed {}: one group {} ms after loss stopped", seed, took / MS);
    }
}
