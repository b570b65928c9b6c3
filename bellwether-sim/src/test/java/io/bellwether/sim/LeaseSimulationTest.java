package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Thousands of seeded random fault schedules against the real lease elector over the simulated store: 5
 * nodes, every fault kind that applies to a lease (crashes, silent crashes, pauses of one node or all, drift, graceful stops, store
 * outages, slow stores, lost replies). The number of seeds comes from {@code -Dbellwether.sim.leaseSeeds}
 * (default 3000). Every failing seed is listed with its replay command.
 */
class LeaseSimulationTest {
    static final Set<FaultKind> LEASE_FAULTS = EnumSet.of(
            FaultKind.CRASH,
            FaultKind.SILENT_CRASH,
            FaultKind.PAUSE,
            FaultKind.PAUSE_ALL,
            FaultKind.STARVE,
            FaultKind.DRIFT,
            FaultKind.STOP,
            FaultKind.STORE_OUTAGE,
            FaultKind.STORE_SLOW,
            FaultKind.LOST_REPLY,
            FaultKind.RESIGN);

    @Test
    void leaseElectorKeepsEveryInvariantUnderRandomFaults() {
        int seeds = Integer.getInteger("bellwether.sim.leaseSeeds", 3000);
        SimulationConfig config = SimulationConfig.forAlgorithm("lease", 5, FaultKind.all());
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        RandomExplorer.Exploration x = RandomExplorer.explore(config, 1, seeds, threads, p -> {});
        List<String> failures = x.runs().stream()
                .filter(r -> !r.ok())
                .limit(20)
                .map(r -> {
                    Violation v = r.violations().get(0);
                    return "seed " + v.seed() + " " + v.invariant() + ": " + v.message() + "\n    replay: "
                            + v.replayCommand();
                })
                .collect(Collectors.toList());
        long failed = x.runs().stream().filter(r -> !r.ok()).count();
        assertThat(failures)
                .as("%d of %d seeds violated an invariant (first 20 listed)", failed, seeds)
                .isEmpty();
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        assertThat(x.runs().stream().mapToInt(RunResult::elections).sum()).isPositive();
        assertThat(x.runs().stream().mapToLong(r -> r.failovers().size()).sum()).isPositive();
        assertThat(x.runs().stream().mapToLong(RunResult::fencedWrites).sum()).isPositive();
        // Pauses longer than the margin happen: fencing, not timing, is what stops those stale writes.
        assertThat(x.runs().stream().mapToLong(RunResult::staleWritesRejected).sum())
                .isPositive();
    }

    @Test
    void allMeansEveryKindThatAppliesToALease() {
        SimulationConfig all = SimulationConfig.forAlgorithm("lease", 5, FaultKind.all());
        SimulationConfig listed = SimulationConfig.forAlgorithm("lease", 5, LEASE_FAULTS);
        for (long seed = 1; seed <= 3; seed++) {
            List<HistoryEntry> a = Simulator.run(all, seed, true).history();
            List<HistoryEntry> b = Simulator.run(listed, seed, true).history();
            // The first entry names the configured faults; everything after it must be the same.
            assertThat(a.subList(1, a.size())).isEqualTo(b.subList(1, b.size()));
        }
    }

    @Test
    void storeFaultsHappenAndFailoversAreSampledPerFault() {
        SimulationConfig config = SimulationConfig.forAlgorithm("lease", 5, LEASE_FAULTS);
        RandomExplorer.Exploration x = RandomExplorer.explore(config, 1, 40, 2, p -> {});
        Set<FaultKind> sampled = x.runs().stream()
                .flatMap(r -> r.failovers().stream())
                .map(FailoverSample::cause)
                .collect(Collectors.toSet());
        assertThat(sampled).contains(FaultKind.CRASH, FaultKind.STORE_OUTAGE);
        RunResult r = Simulator.run(config, 5, true);
        assertThat(r.history()).anySatisfy(h -> assertThat(h.event()).isEqualTo("store-apply"));
        assertThat(r.history()).noneSatisfy(h -> assertThat(h.event()).isIn("partition", "loss", "send"));
    }

    @Test
    void sameSeedGivesTheSameLeaseHistory() {
        SimulationConfig config = SimulationConfig.forAlgorithm("lease", 5, FaultKind.all());
        RunResult a = Simulator.run(config, 42, true);
        assertThat(Simulator.run(config, 42, true).history()).isEqualTo(a.history());
        assertThat(a.elections()).isPositive();
    }
}
