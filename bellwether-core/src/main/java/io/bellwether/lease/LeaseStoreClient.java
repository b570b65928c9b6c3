package io.bellwether.lease;

import io.bellwether.elector.StoreClient;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.StoreRequest;
import io.bellwether.spi.LeaseStore;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries {@link LeaseRequest}s to a {@link LeaseStore} for one lease name: each request becomes one store
 * call and its result the matching {@link LeaseReply}. A store failure (an exceptional stage, or an exception
 * thrown by the call) completes the returned stage exceptionally; the driver turns that into {@link
 * LeaseRequest#failed}.
 *
 * <p>Release notifications: the first {@link LeaseRequest.AwaitRelease} subscribes once to {@link
 * LeaseStore#watchReleases}; every pushed release then completes all waiting {@code AwaitRelease} stages with
 * {@link LeaseReply.ReleasedNotification}. A waiter whose stage the driver cancels (its timeout, its elector
 * stopped) is forgotten. The subscription lasts until {@link #close()} (the runtime closes the client when its
 * election ends). Stores that cannot push fail {@code AwaitRelease} at once.
 *
 * <p>Thread-safe; never blocks the caller (as long as the store keeps its own non-blocking contract).
 */
public final class LeaseStoreClient implements StoreClient {
    private final LeaseStore store;
    private final String name;
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private volatile AutoCloseable watch;
    private boolean closed; // guarded by this

    private record Waiter(long requestId, CompletableFuture<StoreReply> future) {}

    public LeaseStoreClient(LeaseStore store, String name) {
        this.store = Objects.requireNonNull(store, "store");
        this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public CompletionStage<StoreReply> execute(StoreRequest request) {
        Objects.requireNonNull(request, "request");
        if (!(request instanceof LeaseRequest lease)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "not a lease request: " + request.getClass().getName()));
        }
        try {
            if (lease instanceof LeaseRequest.AcquireOrRenew r) {
                return store.acquireOrRenew(name, r.holder(), r.token(), r.duration(), r.priority())
                        .thenApply(record -> new LeaseReply.Lease(r.id(), record));
            } else if (lease instanceof LeaseRequest.Release r) {
                return store.release(name, r.holder(), r.token())
                        .thenApply(released -> new LeaseReply.Released(r.id(), released));
            } else if (lease instanceof LeaseRequest.Read r) {
                return store.read(name).thenApply(record -> new LeaseReply.Current(r.id(), record));
            } else {
                return awaitRelease((LeaseRequest.AwaitRelease) lease);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletionStage<StoreReply> awaitRelease(LeaseRequest.AwaitRelease request) {
        if (!store.canPush()) {
            return CompletableFuture.failedFuture(
                    new UnsupportedOperationException(store.describe() + " cannot push releases"));
        }
        subscribe();
        Waiter w = new Waiter(request.id(), new CompletableFuture<>());
        waiters.add(w);
        w.future().whenComplete((reply, failure) -> waiters.remove(w));
        return w.future();
    }

    private void subscribe() {
        if (watch != null) {
            return;
        }
        synchronized (this) {
            if (watch == null && !closed) {
                watch = store.watchReleases(name, this::onRelease);
            }
        }
    }

    /** Ends the subscription to pushed releases, if there is one; the store stays open. */
    @Override
    public void close() {
        AutoCloseable w;
        synchronized (this) {
            closed = true;
            w = watch;
        }
        waiters.forEach(waiter -> waiter.future().cancel(false));
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                throw new IllegalStateException(store.describe() + ": ending the release watch failed", e);
            }
        }
    }

    private void onRelease() {
        for (Waiter w : waiters) {
            w.future().complete(new LeaseReply.ReleasedNotification(w.requestId()));
        }
    }

    @Override
    public String toString() {
        return "LeaseStoreClient{" + store.describe() + ", name=" + name + "}";
    }
}
