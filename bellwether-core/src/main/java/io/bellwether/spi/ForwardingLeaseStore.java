package io.bellwether.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A {@link LeaseStore} that passes every call to another one: the base of decorators that count, time or watch
 * a store's calls, which override only the calls they observe. Support for implementers.
 */
public abstract class ForwardingLeaseStore implements LeaseStore {
    /** The store every call goes to. */
    protected final LeaseStore delegate;

    /** @param delegate the store every call goes to */
    protected ForwardingLeaseStore(LeaseStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return delegate.acquireOrRenew(group, holder, token, duration);
    }

    /**
     * Priority 0 goes through {@link #acquireOrRenew(String, String, long, Duration)}, so that a decorator
     * overriding only that sees every call of a group without priorities; any other priority goes to the
     * delegate's own.
     */
    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        if (priority == 0) {
            return acquireOrRenew(group, holder, token, duration);
        }
        return delegate.acquireOrRenew(group, holder, token, duration, priority);
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        return delegate.release(group, holder, token);
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        return delegate.read(group);
    }

    @Override
    public boolean canPush() {
        return delegate.canPush();
    }

    @Override
    public AutoCloseable watchReleases(String group, Runnable onRelease) {
        return delegate.watchReleases(group, onRelease);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
