package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Thousands of seeded random fault schedules against the real quorum elector: 5 nodes, every fault kind.
 * The number of seeds comes from {@code -Dbellwether.sim.seeds} (default 10000; the {@code long} profile
 * raises it). Every failing seed is listed with its replay command.
 */
@Tag("quorum")
class QuorumSimulationTest {
    @Test
    void quorumElectorKeepsEveryInvariantUnderRandomFaults() {
        int seeds = Integer.getInteger("bellwether.sim.seeds", 10000);
        SimulationConfig config = SimulationConfig.forAlgorithm("quorum", 5, FaultKind.all());
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
    }
}
