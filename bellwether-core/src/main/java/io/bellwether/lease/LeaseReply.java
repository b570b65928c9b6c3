package io.bellwether.lease;

import io.bellwether.elector.StoreReply;
import io.bellwether.spi.LeaseRecord;
import java.util.Objects;
import java.util.Optional;

/** The answers to {@link LeaseRequest}s; each repeats the id of the request it answers. */
public sealed interface LeaseReply extends StoreReply {
    /** The id of the request this answers. */
    long requestId();

    /** The lease after an {@link LeaseRequest.AcquireOrRenew}, whoever holds it, with the store's clock. */
    record Lease(long requestId, LeaseRecord record) implements LeaseReply {
        public Lease {
            Objects.requireNonNull(record, "record");
        }
    }

    /** The outcome of a {@link LeaseRequest.Release}: whether that call released the lease. */
    record Released(long requestId, boolean released) implements LeaseReply {}

    /** The lease as a {@link LeaseRequest.Read} found it; empty if the group never had one. */
    record Current(long requestId, Optional<LeaseRecord> record) implements LeaseReply {
        public Current {
            Objects.requireNonNull(record, "record");
        }
    }

    /** The lease was released: the answer to a {@link LeaseRequest.AwaitRelease}. */
    record ReleasedNotification(long requestId) implements LeaseReply {}

    /** The request failed: the store was unreachable, answered with an error, or not within the timeout. */
    record Failed(long requestId, LeaseRequest request, Throwable cause) implements LeaseReply {
        public Failed {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(cause, "cause");
        }
    }
}
