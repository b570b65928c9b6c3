package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the classic and pause-all simulation tests share: run many seeds, list failures, report measured bounds. */
final class ClassicSimulations {
    private static final Logger log = LoggerFactory.getLogger(ClassicSimulations.class);

    private ClassicSimulations() {}

    /** Runs {@code seeds} seeds, asserts none violated an invariant, logs the measured bounds and returns them. */
    static RandomExplorer.Exploration runAndCheck(SimulationConfig config, int seeds) {
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
        long[] convergence = x.runs().stream()
                .mapToLong(RunResult::convergenceNanos)
                .sorted()
                .toArray();
        long[] failover = x.runs().stream()
                .flatMap(r -> r.failovers().stream())
                .mapToLong(FailoverSample::nanos)
                .sorted()
                .toArray();
        long twoLeaders = x.runs().stream().mapToLong(RunResult::twoLeaderNanos).sum();
        long episodes =
                x.runs().stream().mapToLong(RunResult::twoLeaderEpisodes).sum();
        long withTwo = x.runs().stream().filter(r -> r.twoLeaderEpisodes() > 0).count();
        log.info(
                "{} n={} seeds={}: convergence after faults p50 {} p99 {} max {}; failover p50 {} p99 {} max {};"
                        + " two acting coordinators in {} runs, {} episodes, {} ms total ({} ms per run of {} s)",
                config.algorithm(),
                config.nodes(),
                seeds,
                ms(percentile(convergence, 0.5)),
                ms(percentile(convergence, 0.99)),
                ms(percentile(convergence, 1)),
                ms(percentile(failover, 0.5)),
                ms(percentile(failover, 0.99)),
                ms(percentile(failover, 1)),
                withTwo,
                episodes,
                twoLeaders / 1_000_000,
                seeds == 0 ? 0 : twoLeaders / 1_000_000 / seeds,
                config.faultPhase().plus(config.quietPhase()).toSeconds());
        return x;
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
        return sorted[Math.max(0, i)];
    }

    private static String ms(long nanos) {
        return nanos < 0 ? "-" : String.format("%.1fms", nanos / 1e6);
    }
}
