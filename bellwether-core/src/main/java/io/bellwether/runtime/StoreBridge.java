package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.StoreClient;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.StoreRequest;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bridge between one election's loop and its algorithm's {@link StoreClient} (the lease electors' store). The
 * <b>store caller</b> (the election's queue on the process's store pool, {@link RuntimeThreads}) starts each {@link
 * StoreRequest} on the client, in order, so that a store that blocks despite its
 * contract cannot stall the loop. Each request gets exactly one reply, handed to the loop: the store's answer, the
 * request's {@link StoreRequest#failed} reply for a store error, or that reply with a {@link TimeoutException} once
 * {@link StoreRequest#timeoutNanos()} has passed (timed on the loop), whichever comes first. Unsolicited store events
 * reach the elector the same way, as replies to long-polls it keeps outstanding.
 */
final class StoreBridge {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;
    private final StoreClient client;
    private final ElectionLoop loop;
    /** Posts a reply onto the loop, for the elector. */
    private final Consumer<StoreReply> replies;

    private final SerialExecutor caller;
    /** Store calls started and not yet answered; cancelled when the election halts. */
    private final Set<CompletableFuture<StoreReply>> calls = ConcurrentHashMap.newKeySet();

    StoreBridge(String group, NodeId self, StoreClient client, ElectionLoop loop, Consumer<StoreReply> replies) {
        this.group = group;
        this.self = self;
        this.client = client;
        this.loop = loop;
        this.replies = replies;
        this.caller = new SerialExecutor(RuntimeThreads.storePool(), group, self, "store calls");
    }

    /**
     * Starts one store request off the loop and arranges for exactly one reply to be posted back onto it: the
     * answer, the failure reply for a store error, or the failure reply with a timeout.
     */
    void start(StoreRequest request) {
        AtomicBoolean answered = new AtomicBoolean();
        AtomicReference<CompletableFuture<StoreReply>> call = new AtomicReference<>();
        Consumer<StoreReply> answer = reply -> {
            if (answered.compareAndSet(false, true)) {
                replies.accept(reply);
            }
        };
        long timeoutNanos = Math.max(0, request.timeoutNanos());
        ScheduledFuture<?> timeout;
        try {
            timeout = loop.schedule(
                    () -> {
                        answer.accept(request.failed(new TimeoutException("the store did not answer within "
                                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms")));
                        CompletableFuture<StoreReply> f = call.get();
                        if (f != null) {
                            f.cancel(false);
                        }
                    },
                    timeoutNanos,
                    TimeUnit.NANOSECONDS);
            caller.execute(() -> {
                CompletableFuture<StoreReply> started;
                try {
                    started = client.execute(request).toCompletableFuture();
                } catch (RuntimeException e) {
                    started = CompletableFuture.failedFuture(e);
                }
                CompletableFuture<StoreReply> f = started;
                call.set(f);
                calls.add(f);
                f.whenComplete((reply, error) -> {
                    calls.remove(f);
                    timeout.cancel(false);
                    if (error == null && reply != null) {
                        answer.accept(reply);
                    } else {
                        Throwable cause = error instanceof CompletionException && error.getCause() != null
                                ? error.getCause()
                                : error;
                        answer.accept(request.failed(
                                cause != null ? cause : new IllegalStateException("the store answered null")));
                    }
                });
                if (answered.get() || loop.isShutdown()) {
                    f.cancel(false); // timed out before it started, or nobody is listening any more
                }
            });
        } catch (RejectedExecutionException e) {
            log.trace("group {} node {}: dropping a store request after close", group, self);
        }
    }

    void shutdown() {
        try {
            // After the queued calls, so that it ends nothing they still need.
            caller.execute(this::closeClient);
        } catch (RejectedExecutionException alreadyShutDown) {
            return;
        }
        caller.shutdown(); // queued calls (a stopping leader's release) still go out
        // Nobody will read the answers; cancelling lets clients drop long-polls.
        calls.forEach(f -> f.cancel(false));
    }

    private void closeClient() {
        try {
            client.close();
        } catch (RuntimeException e) {
            log.warn("group {} node {}: closing its store client failed", group, self, e);
        }
    }
}
