package io.bellwether.sim;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Runs independent, numbered simulations on a few daemon threads and returns their results in number order,
 * so that what comes back does not depend on the number of threads (each run is deterministic on its own).
 */
final class ParallelRuns {
    private static final long TICK_NANOS = 500_000_000L;

    private ParallelRuns() {}

    /**
     * Runs {@code run.apply(i)} for {@code i} in {@code 0 ..< count} on at most {@code threads} threads, calling
     * {@code tick} on the calling thread about every 0.5 s while they run.
     *
     * @param interrupted the message when the caller is interrupted while waiting
     * @param failed the start of the message when a run throws (its exception follows)
     * @throws IllegalStateException if the caller is interrupted or a run throws
     */
    @SuppressWarnings("unchecked")
    static <T> List<T> run(
            int count,
            int threads,
            String threadName,
            IntFunction<T> run,
            Runnable tick,
            String interrupted,
            String failed) {
        Object[] results = new Object[count];
        AtomicInteger next = new AtomicInteger();
        int workers = Math.max(1, Math.min(threads, count));
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        try {
            Future<?>[] futures = new Future<?>[workers];
            for (int w = 0; w < workers; w++) {
                futures[w] = pool.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < count) {
                        results[i] = run.apply(i);
                    }
                });
            }
            for (Future<?> f : futures) {
                while (true) {
                    try {
                        f.get(TICK_NANOS, TimeUnit.NANOSECONDS);
                        break;
                    } catch (TimeoutException timeout) {
                        tick.run();
                    }
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted, ex);
        } catch (ExecutionException ex) {
            throw new IllegalStateException(failed + ex.getCause(), ex.getCause());
        } finally {
            pool.shutdownNow();
        }
        return (List<T>) List.copyOf(Arrays.asList(results));
    }
}
