package io.bellwether.spring;

import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The lease store as the elections use it, passing every call on and remembering how the last one ended: whether the
 * store answers, for the health indicator, and when a release has gone out, for an orderly shutdown. Thread-safe.
 */
final class StoreHealth extends ForwardingLeaseStore {
    /**
     * What is known of the store.
     *
     * @param reachable empty until a call has ended, then whether the last one that ended succeeded
     * @param since when that state began
     * @param problem the kind of the last failure, while unreachable
     * @param lastError the message of the last failure, kept after the store answers again
     */
    record State(Optional<Boolean> reachable, Instant since, Optional<String> problem, Optional<String> lastError) {}

    private final List<CompletableFuture<Void>> releaseWaiters = new CopyOnWriteArrayList<>();
    private volatile State state = new State(Optional.empty(), Instant.now(), Optional.empty(), Optional.empty());

    StoreHealth(LeaseStore delegate) {
        super(delegate);
    }

    State state() {
        return state;
    }

    /** Completes when the next release call has ended, however it ended. */
    CompletableFuture<Void> nextReleaseEnded() {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        releaseWaiters.add(ended);
        return ended;
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return observe(() -> delegate.acquireOrRenew(group, holder, token, duration));
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        return observe(() -> delegate.acquireOrRenew(group, holder, token, duration, priority));
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        List<CompletableFuture<Void>> waiting = List.copyOf(releaseWaiters);
        releaseWaiters.removeAll(waiting);
        CompletionStage<Boolean> stage;
        try {
            stage = observe(() -> delegate.release(group, holder, token));
        } catch (RuntimeException e) {
            waiting.forEach(w -> w.complete(null));
            throw e;
        }
        return stage.whenComplete((released, error) -> waiting.forEach(w -> w.complete(null)));
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        return observe(() -> delegate.read(group));
    }

    /** The store itself is closed by whoever made it: the application's bean, or the starter's. */
    @Override
    public void close() {}

    private <T> CompletionStage<T> observe(Supplier<CompletionStage<T>> call) {
        return call.get().whenComplete((value, error) -> record(error));
    }

    private synchronized void record(Throwable error) {
        State before = state;
        if (error == null) {
            if (!before.reachable().orElse(false)) {
                state = new State(Optional.of(true), Instant.now(), Optional.empty(), before.lastError());
            }
            return;
        }
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause()
                : error;
        if (cause instanceof LeaseStoreException e && e.problem() == LeaseStoreException.Problem.CLOSED) {
            return; // the application is stopping: says nothing about the store
        }
        String problem = cause instanceof LeaseStoreException e ? e.problem().name() : "FAILED";
        Instant since = before.reachable().orElse(true) ? Instant.now() : before.since();
        state = new State(Optional.of(false), since, Optional.of(problem), Optional.ofNullable(cause.getMessage()));
    }
}
