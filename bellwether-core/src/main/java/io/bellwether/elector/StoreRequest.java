package io.bellwether.elector;

/** A request from an elector to a shared store (a lease row, a Redis key). */
public interface StoreRequest {
    /**
     * How long the driver waits for the reply before it gives up and delivers {@link #failed} instead; an
     * elector sets it shorter than the validity it has left, so a hung store cannot keep it leading.
     */
    long timeoutNanos();

    /** The reply that stands for this request's failure (store down, timed out, error). */
    StoreReply failed(Throwable cause);
}
