package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.ElectorSpec;
import io.bellwether.testkit.toy.ToyAlgorithm;
import io.bellwether.testkit.toy.ToyConfig;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Drives the simulator with the toy elector: determinism, fault injection and checker failures. */
class ToySimulationTest {
    /** The toy algorithm with its defaults. */
    static final ElectorSpec SPEC = ToyConfig.builder().build();

    static SimulationConfig toy(int nodes, Set<FaultKind> faults) {
        return new SimulationConfig(
                "toy", SPEC, nodes, faults, Duration.ofSeconds(10), Duration.ofSeconds(5), ToyAlgorithm.INSTANCE);
    }

    static long count(RunResult r, String event) {
        return r.history().stream().filter(h -> h.event().equals(event)).count();
    }

    @Test
    void sameSeedGivesIdenticalHistory() {
        SimulationConfig config = toy(5, FaultKind.all());
        RunResult a = Simulator.run(config, 42, true);
        RunResult b = Simulator.run(config, 42, true);
        assertThat(a.history()).isNotEmpty();
        assertThat(b.history()).isEqualTo(a.history());
        assertThat(b.events()).isEqualTo(a.events());
        assertThat(b.violations()).isEqualTo(a.violations());
    }

    @Test
    void differentSeedsGiveDifferentHistories() {
        SimulationConfig config = toy(5, FaultKind.all());
        assertThat(Simulator.run(config, 1, true).history())
                .isNotEqualTo(Simulator.run(config, 2, true).history());
    }

    @Test
    void historyWithoutKeepingIsEmptyButTheRunIsTheSame() {
        SimulationConfig config = toy(3, FaultKind.parseList("crash,pause"));
        RunResult kept = Simulator.run(config, 7, true);
        RunResult lean = Simulator.run(config, 7, false);
        assertThat(lean.history()).isEmpty();
        assertThat(lean.events()).isEqualTo(kept.events());
        assertThat(lean.totalMessages()).isEqualTo(kept.totalMessages());
    }

    @Test
    void crashRunsRecordCrashAndRestartAndPeersAreToldOfTheReset() {
        RunResult r = Simulator.run(toy(5, FaultKind.parseList("crash")), 3, true);
        assertThat(count(r, "crash")).isPositive();
        assertThat(count(r, "restart")).isGreaterThanOrEqualTo(count(r, "crash"));
        assertThat(count(r, "disconnected")).isPositive();
    }

    @Test
    void silentCrashesTellNobody() {
        RunResult r = Simulator.run(toy(5, FaultKind.parseList("silent-crash")), 3, true);
        assertThat(count(r, "silent-crash")).isPositive();
        assertThat(count(r, "restart")).isPositive();
        assertThat(count(r, "disconnected")).isZero();
    }

    @Test
    void partitionedMessagesAreNotDelivered() {
        RunResult r = Simulator.run(toy(5, FaultKind.parseList("partition")), 5, true);
        assertThat(count(r, "partition")).isPositive();
        assertThat(count(r, "drop-cut")).isPositive();
    }

    @Test
    void isolationAndOneWayCutsDropMessages() {
        RunResult iso = Simulator.run(toy(5, FaultKind.parseList("isolate")), 5, true);
        assertThat(count(iso, "isolate")).isPositive();
        assertThat(count(iso, "drop-cut")).isPositive();
        RunResult oneWay = Simulator.run(toy(5, FaultKind.parseList("one-way")), 5, true);
        assertThat(count(oneWay, "one-way")).isPositive();
        assertThat(count(oneWay, "drop-cut")).isPositive();
    }

    @Test
    void lossDropsAndDuplicationRepeatsMessages() {
        RunResult loss = Simulator.run(toy(5, FaultKind.parseList("loss")), 9, true);
        assertThat(count(loss, "drop-loss")).isPositive();
        RunResult dup = Simulator.run(toy(5, FaultKind.parseList("duplicate")), 9, true);
        assertThat(count(dup, "recv")).isGreaterThan(count(dup, "send"));
    }

    @Test
    void resetsTellBothEndsAndDropInFlightMessages() {
        RunResult r = Simulator.run(toy(5, FaultKind.parseList("reset")), 11, true);
        assertThat(count(r, "reset")).isPositive();
        assertThat(count(r, "disconnected")).isEqualTo(2 * count(r, "reset"));
    }

    @Test
    void pausedNodesHandleQueuedEventsWhenTheyResume() {
        RunResult r = Simulator.run(toy(5, FaultKind.parseList("pause")), 13, true);
        assertThat(count(r, "pause")).isPositive();
        List<HistoryEntry> resumes =
                r.history().stream().filter(h -> h.event().equals("resume")).collect(Collectors.toList());
        assertThat(resumes).isNotEmpty();
        assertThat(resumes).anyMatch(h -> !h.detail().startsWith("0 "));
        // Nothing happens at a paused node between its pause and its resume.
        HistoryEntry pause = r.history().stream()
                .filter(h -> h.event().equals("pause"))
                .findFirst()
                .orElseThrow();
        HistoryEntry resume = r.history().stream()
                .filter(h -> h.event().equals("resume") && h.node().equals(pause.node()))
                .filter(h -> h.timeNanos() >= pause.timeNanos())
                .findFirst()
                .orElseThrow();
        assertThat(r.history())
                .filteredOn(h -> h.node().equals(pause.node())
                        && h.timeNanos() > pause.timeNanos()
                        && h.timeNanos() < resume.timeNanos())
                .isEmpty();
    }

    @Test
    void reorderingDelaysSomeMessagesBeyondTheBaseLatency() {
        RunResult r = Simulator.run(toy(3, FaultKind.parseList("reorder")), 17, true);
        assertThat(count(r, "reorder")).isPositive();
    }

    @Test
    void gracefulStopsStopAndStartAgain() {
        RunResult r = Simulator.run(toy(5, FaultKind.parseList("stop")), 19, true);
        assertThat(count(r, "stop")).isPositive();
        assertThat(count(r, "restart")).isGreaterThanOrEqualTo(count(r, "stop"));
    }

    @Test
    void driftGivesEachNodeItsOwnClockRateWithinTheBound() {
        Engine e = new Engine(toy(5, FaultKind.parseList("drift")), 23, false, false, 16);
        double bound = Timing.DEFAULT_DRIFT / 2;
        for (SimNode node : e.nodes) {
            assertThat(node.rate).isBetween(1 - bound, 1 + bound).isNotEqualTo(1.0);
        }
        Engine noDrift = new Engine(toy(5, FaultKind.parseList("crash")), 23, false, false, 16);
        for (SimNode node : noDrift.nodes) {
            assertThat(node.rate).isEqualTo(1.0);
        }
    }

    @Test
    void toyElectorSurvivesCrashesStopsAndResetsWithoutViolations() {
        RandomExplorer.Exploration x = RandomExplorer.explore(
                toy(5, FaultKind.parseList("crash,silent-crash,stop,reset,duplicate,drift")), 1, 200, 2, p -> {});
        List<String> bad = x.runs().stream()
                .filter(r -> !r.ok())
                .map(r -> r.violations().get(0).invariant() + " "
                        + r.violations().get(0).message() + "\n  "
                        + r.violations().get(0).replayCommand())
                .collect(Collectors.toList());
        assertThat(bad).as("violations").isEmpty();
        assertThat(x.runs()).hasSize(200);
        assertThat(x.runs().get(0).seed()).isEqualTo(1);
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        assertThat(x.runs()).anySatisfy(r -> assertThat(r.failovers()).isNotEmpty());
    }

    @Test
    void aSpecThatPromisesTheHighestIdLeadsIsCheckedForItWhateverItsAlgorithm() {
        ElectorSpec highest = ToyConfig.builder().highestWins(true).build();
        SimulationConfig keeps = new SimulationConfig(
                "toy",
                highest,
                5,
                FaultKind.parseList("crash,stop"),
                Duration.ofSeconds(10),
                Duration.ofSeconds(5),
                ToyAlgorithm.INSTANCE);
        assertThat(RandomExplorer.explore(keeps, 1, 20, 2, p -> {}).runs())
                .allSatisfy(r -> assertThat(r.ok()).as("%s", r.violations()).isTrue());

        // The lowest id leads, but the spec claims the highest does: the convergence check must say so.
        ElectorSpec claims = new DelegatingSpec() {
            @Override
            public ElectorSpec delegate() {
                return SPEC;
            }

            @Override
            public io.bellwether.elector.Elector create(io.bellwether.elector.ElectorContext context) {
                return SPEC.create(context);
            }

            @Override
            public boolean highestIdLeads() {
                return true;
            }
        };
        SimulationConfig breaks = new SimulationConfig(
                "toy",
                claims,
                5,
                FaultKind.parseList("crash,stop"),
                Duration.ofSeconds(10),
                Duration.ofSeconds(5),
                ToyAlgorithm.INSTANCE);
        assertThat(Simulator.run(breaks, 1, false).violations())
                .extracting(Violation::message)
                .anySatisfy(m -> assertThat(m).contains("highest-live-id-leads"));
    }

    @Test
    void explorationResultsDoNotDependOnTheNumberOfThreads() {
        SimulationConfig config = toy(3, FaultKind.all());
        RandomExplorer.Exploration one = RandomExplorer.explore(config, 100, 20, 1, p -> {});
        RandomExplorer.Exploration two = RandomExplorer.explore(config, 100, 20, 2, p -> {});
        assertThat(two.runs()).isEqualTo(one.runs());
    }

    @Test
    void checkersCatchTheToyElectorUnderPartitions() {
        RandomExplorer.Exploration x =
                RandomExplorer.explore(toy(5, FaultKind.parseList("partition")), 1, 50, 2, p -> {});
        Violation v = x.runs().stream()
                .filter(r -> !r.ok())
                .map(r -> r.violations().get(0))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no violation found in 50 partitioned toy runs"));
        assertThat(v.invariant()).isIn("leader-epoch-increases", "single-leader-after-quiet");
        assertThat(v.excerpt()).isNotEmpty().hasSizeLessThanOrEqualTo(40);
        assertThat(v.replayCommand())
                .isEqualTo("./bellwether simulate --algorithm toy --nodes 5 --seeds 1 --seed-start " + v.seed()
                        + " --faults partition --fault-phase 10000ms --quiet-phase 5000ms");
        RunResult replay = Simulator.run(toy(5, FaultKind.parseList("partition")), v.seed(), false);
        assertThat(replay.violations()).containsExactly(v);
    }

    @Test
    void exhaustiveExplorationOfTheToyElectorCoversManyStates() {
        ExhaustiveExplorer.Result r = ExhaustiveExplorer.explore(ToyAlgorithm.INSTANCE, "toy", SPEC, 3, 6, true);
        assertThat(r.paths()).isPositive();
        assertThat(r.distinctStates()).isGreaterThan(10);
        assertThat(r.nodes()).isEqualTo(3);
        assertThat(r.depth()).isEqualTo(6);
    }
}
