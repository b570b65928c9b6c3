package io.bellwether.sim;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs many seeds of one simulation in parallel. Each seed's run is deterministic and independent of the
 * others, so the results (returned in seed order) do not depend on the number of threads.
 */
public final class RandomExplorer {
    private RandomExplorer() {}

    /** Progress of a long exploration, reported now and then. */
    public record Progress(int seedsDone, int seedsTotal, int violations, long elapsedNanos) {}

    /** The runs of seeds {@code seedStart ..< seedStart + seeds}, in seed order, without histories. */
    public record Exploration(SimulationConfig config, long seedStart, int seeds, List<RunResult> runs) {}

    /**
     * Runs seeds {@code seedStart ..< seedStart + seeds} on {@code threads} threads, calling {@code progress}
     * (on the calling thread) about every 0.5 s and once at the end.
     *
     * @throws IllegalArgumentException if {@code seeds} is negative or {@code threads} is below 1
     */
    public static Exploration explore(
            SimulationConfig config, long seedStart, int seeds, int threads, Consumer<Progress> progress) {
        Objects.requireNonNull(config, "config");
        if (seeds < 0) {
            throw new IllegalArgumentException("seeds = " + seeds + " is invalid: must be at least 0");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads = " + threads + " is invalid: must be at least 1");
        }
        Consumer<Progress> report = progress == null ? p -> {} : progress;
        long started = System.nanoTime();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        List<RunResult> runs = ParallelRuns.run(
                seeds,
                threads,
                "bellwether-sim",
                i -> {
                    RunResult r = Simulator.run(config, seedStart + i, false);
                    if (!r.ok()) {
                        violations.incrementAndGet();
                    }
                    done.incrementAndGet();
                    return r;
                },
                () -> report.accept(new Progress(done.get(), seeds, violations.get(), System.nanoTime() - started)),
                "exploration interrupted",
                "a simulation run failed: ");
        report.accept(new Progress(done.get(), seeds, violations.get(), System.nanoTime() - started));
        return new Exploration(config, seedStart, seeds, runs);
    }
}
