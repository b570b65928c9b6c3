package io.bellwether.lease;

import io.bellwether.elector.StoreRequest;
import io.bellwether.spi.LeaseStore;
import java.time.Duration;
import java.util.Objects;

/**
 * What the {@link LeaseElector} asks of its {@link LeaseStore}, through {@link LeaseStoreClient} in the runtime
 * or the simulator's store. Every request carries an id, unique per elector, that its reply repeats, so the
 * elector can tell the answer to its current attempt from a late one.
 */
public sealed interface LeaseRequest extends StoreRequest {
    /** Unique per elector; repeated by the reply. */
    long id();

    @Override
    default LeaseReply.Failed failed(Throwable cause) {
        return new LeaseReply.Failed(id(), this, Objects.requireNonNull(cause, "cause"));
    }

    /**
     * {@link LeaseStore#acquireOrRenew}: a contender's poll (with {@code token} 0, which no lease has) or a
     * holder's renewal (with its token), by a member of priority {@code priority} ({@link
     * LeaseStore#acquireOrRenew(String, String, long, Duration, int)}). Answered by {@link LeaseReply.Lease}.
     */
    record AcquireOrRenew(long id, String holder, long token, Duration duration, long timeoutNanos, int priority)
            implements LeaseRequest {
        public AcquireOrRenew {
            Objects.requireNonNull(holder, "holder");
            Objects.requireNonNull(duration, "duration");
        }

        /** A request of a member of priority 0. */
        public AcquireOrRenew(long id, String holder, long token, Duration duration, long timeoutNanos) {
            this(id, holder, token, duration, timeoutNanos, 0);
        }

        /** Leaves out priority 0, so that a request without priorities reads as it always did (in histories). */
        @Override
        public String toString() {
            return "AcquireOrRenew[id=" + id + ", holder=" + holder + ", token=" + token + ", duration=" + duration
                    + ", timeoutNanos=" + timeoutNanos + (priority == 0 ? "" : ", priority=" + priority) + "]";
        }
    }

    /** {@link LeaseStore#release}: ends the lease iff {@code holder} holds it with {@code token}. */
    record Release(long id, String holder, long token, long timeoutNanos) implements LeaseRequest {
        public Release {
            Objects.requireNonNull(holder, "holder");
        }
    }

    /** {@link LeaseStore#read}: the lease as it stands, without contending. Answered by {@link LeaseReply.Current}. */
    record Read(long id, long timeoutNanos) implements LeaseRequest {}

    /**
     * Waits for the next release of the lease, where the store can push ({@link LeaseStore#canPush()}). This is
     * how unsolicited store events reach a pure elector: as the reply to a long-poll it keeps outstanding. The
     * reply is {@link LeaseReply.ReleasedNotification} when a release happens within {@code timeoutNanos},
     * else the driver's timeout failure; the elector then asks again. A release that happens between one
     * reply and the next request is missed, which only costs the contender its next regular poll.
     */
    record AwaitRelease(long id, long timeoutNanos) implements LeaseRequest {}
}
