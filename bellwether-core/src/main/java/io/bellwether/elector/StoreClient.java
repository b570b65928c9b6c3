package io.bellwether.elector;

import java.util.concurrent.CompletionStage;

/**
 * Carries an elector's {@link StoreRequest}s to a shared store. The runtime calls it off the elector's loop
 * and hands each outcome back as {@link Elector#onStoreReply}; the simulator replaces it with a simulated
 * store. Implementations never block the caller.
 */
public interface StoreClient extends AutoCloseable {
    /**
     * Starts {@code request}. The stage completes with the reply, or exceptionally when the store failed or
     * did not answer within {@link StoreRequest#timeoutNanos()}; the driver turns an exceptional completion
     * into the request's failure reply ({@link StoreRequest#failed(Throwable)}).
     */
    CompletionStage<StoreReply> execute(StoreRequest request);

    /**
     * Ends what the client keeps open for its election (a subscription to the store's pushes), not the store, which
     * the application owns. Called once, after the election's last request. The default does nothing.
     */
    @Override
    default void close() {}
}
