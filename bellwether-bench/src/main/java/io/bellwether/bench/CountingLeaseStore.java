package io.bellwether.bench;

import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A {@link LeaseStore} decorator that counts the statements one member sends (every acquire-or-renew, release
 * and read is one statement or script on the store), times the successful acquire-or-renew calls (one store
 * round trip each), and tells when the member's release watch is in force (push stores wake a new watch once).
 */
final class CountingLeaseStore extends ForwardingLeaseStore {
    private final AtomicLong acquireOrRenew = new AtomicLong();
    private final AtomicLong release = new AtomicLong();
    private final AtomicLong read = new AtomicLong();
    private final LongConsumer roundTripNanos;
    private final CompletableFuture<Void> watchInForce = new CompletableFuture<>();

    /** @param roundTripNanos told the duration of each successful acquire-or-renew */
    CountingLeaseStore(LeaseStore delegate, LongConsumer roundTripNanos) {
        super(delegate);
        this.roundTripNanos = roundTripNanos;
    }

    /** Statements sent so far. */
    long statements() {
        return acquireOrRenew.get() + release.get() + read.get();
    }

    /** Whether the store has confirmed a release watch (always false where it cannot push). */
    boolean watchInForce() {
        return watchInForce.isDone();
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        acquireOrRenew.incrementAndGet();
        long start = System.nanoTime();
        return delegate.acquireOrRenew(group, holder, token, duration).whenComplete((r, e) -> {
            if (e == null) {
                roundTripNanos.accept(System.nanoTime() - start);
            }
        });
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        release.incrementAndGet();
        return delegate.release(group, holder, token);
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        read.incrementAndGet();
        return delegate.read(group);
    }

    @Override
    public AutoCloseable watchReleases(String group, Runnable onRelease) {
        return delegate.watchReleases(group, () -> {
            watchInForce.complete(null);
            onRelease.run();
        });
    }
}
