package io.bellwether.sim;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs many seeds of one simulation in parallel. Each seed's run is deterministic and independent of the
 * others, so the results (returned in seed order) do not depend on the number of threads.
 */
public final class RandomExplorer {
    private static final long PROGRESS_INTERVAL_NANOS = 500_000_000L;

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
        RunResult[] results = new RunResult[seeds];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        int workers = Math.max(1, Math.min(threads, seeds));
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "bellwether-sim");
            t.setDaemon(true);
            return t;
        });
        try {
            Runnable worker = () -> {
                int i;
                while ((i = next.getAndIncrement()) < seeds) {
                    RunResult r = Simulator.run(config, seedStart + i, false);
                    results[i] = r;
                    if (!r.ok()) {
                        violations.incrementAndGet();
                    }
                    done.incrementAndGet();
                }
            };
            Future<?>[] futures = new Future<?>[workers];
            for (int w = 0; w < workers; w++) {
                futures[w] = pool.submit(worker);
            }
            for (Future<?> f : futures) {
                while (true) {
                    try {
                        f.get(PROGRESS_INTERVAL_NANOS, TimeUnit.NANOSECONDS);
                        break;
                    } catch (TimeoutException timeout) {
                        report.accept(new Progress(done.get(), seeds, violations.get(), System.nanoTime() - started));
                    }
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("exploration interrupted", ex);
        } catch (java.util.concurrent.ExecutionException ex) {
            throw new IllegalStateException("a simulation run failed: " + ex.getCause(), ex.getCause());
        } finally {
            pool.shutdownNow();
        }
        report.accept(new Progress(done.get(), seeds, violations.get(), System.nanoTime() - started));
        return new Exploration(config, seedStart, seeds, List.copyOf(Arrays.asList(results)));
    }
}
