package io.bellwether.lease;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory {@link LeaseStore} for tests. Its clock is {@link System#nanoTime()} in milliseconds (the
 * "store's clock"). Several {@linkplain #view views} share one set of leases; each view can be told to answer
 * normally, hang (never answer), fail, or answer late, so one member can lose its store while another keeps it.
 */
final class FakeLeaseStore {
    enum Mode {
        NORMAL,
        HANG,
        FAIL
    }

    private record Row(String holder, long token, long expiresAtMillis) {}

    private final Map<String, Row> rows = new ConcurrentHashMap<>();
    private final Map<String, List<Runnable>> watchers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-lease-store");
        t.setDaemon(true);
        return t;
    });
    final AtomicInteger acquisitions = new AtomicInteger();
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    /** Counted down once per renewal, for tests that wait for renewals. */
    volatile java.util.concurrent.CountDownLatch renewalLatch = new java.util.concurrent.CountDownLatch(0);
    /** Counted down by the first release. */
    final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);

    static long storeNowMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    synchronized LeaseRecord acquireOrRenewNow(String group, String holder, long token, Duration duration) {
        long now = storeNowMillis();
        Row row = rows.get(group);
        if (row == null || row.expiresAtMillis() <= now) {
            row = new Row(holder, row == null ? 1 : row.token() + 1, now + duration.toMillis());
            rows.put(group, row);
            acquisitions.incrementAndGet();
        } else if (row.holder().equals(holder) && row.token() == token) {
            row = new Row(holder, token, now + duration.toMillis());
            rows.put(group, row);
            renewals.incrementAndGet();
            renewalLatch.countDown();
        }
        return new LeaseRecord(row.holder(), row.token(), row.expiresAtMillis(), now);
    }

    boolean releaseNow(String group, String holder, long token) {
        boolean released;
        synchronized (this) {
            long now = storeNowMillis();
            Row row = rows.get(group);
            released =
                    row != null && row.expiresAtMillis() > now && row.holder().equals(holder) && row.token() == token;
            if (released) {
                rows.put(group, new Row(holder, token, now));
                releases.incrementAndGet();
                this.released.countDown();
            }
        }
        if (released) {
            watchers.getOrDefault(group, List.of()).forEach(Runnable::run);
        }
        return released;
    }

    synchronized Optional<LeaseRecord> readNow(String group) {
        long now = storeNowMillis();
        return Optional.ofNullable(rows.get(group))
                .map(r -> new LeaseRecord(r.holder(), r.token(), r.expiresAtMillis(), now));
    }

    /** A new view; {@code canPush} says whether it pushes releases. */
    View view(boolean canPush) {
        return new View(canPush);
    }

    void shutdown() {
        answers.shutdownNow();
    }

    /** One member's connection to the store. */
    final class View implements LeaseStore {
        private final boolean canPush;
        volatile Mode mode = Mode.NORMAL;
        volatile long delayMillis;
        final AtomicInteger calls = new AtomicInteger();

        View(boolean canPush) {
            this.canPush = canPush;
        }

        private <T> CompletionStage<T> answer(java.util.function.Supplier<T> op) {
            calls.incrementAndGet();
            CompletableFuture<T> f = new CompletableFuture<>();
            Mode m = mode;
            if (m == Mode.HANG) {
                return f;
            }
            if (m == Mode.FAIL) {
                f.completeExceptionally(new IllegalStateException("fake store: connection refused"));
                return f;
            }
            answers.schedule(
                    () -> {
                        try {
                            f.complete(op.get());
                        } catch (RuntimeException e) {
                            f.completeExceptionally(e);
                        }
                    },
                    delayMillis,
                    TimeUnit.MILLISECONDS);
            return f;
        }

        @Override
        public String describe() {
            return "fake store";
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
            return answer(() -> acquireOrRenewNow(group, holder, token, duration));
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return answer(() -> releaseNow(group, holder, token));
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            return answer(() -> readNow(group));
        }

        @Override
        public boolean canPush() {
            return canPush;
        }

        @Override
        public AutoCloseable watchReleases(String group, Runnable onRelease) {
            if (!canPush) {
                return () -> {};
            }
            List<Runnable> list = watchers.computeIfAbsent(group, g -> new CopyOnWriteArrayList<>());
            Runnable r = () -> {
                if (mode == Mode.NORMAL) {
                    onRelease.run();
                }
            };
            list.add(r);
            return () -> list.remove(r);
        }

        @Override
        public void close() {}
    }
}
