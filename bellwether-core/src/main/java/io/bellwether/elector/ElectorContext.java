package io.bellwether.elector;

import io.bellwether.NodeId;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Everything an {@link Elector} may do to the outside world. Implemented by the runtime (real time, real
 * network) and by the simulator (virtual time, simulated network). Effects are carried out in the order
 * they are requested.
 */
public interface ElectorContext {
    /** This member. */
    NodeId self();

    /** Every member of the group, this one included, sorted by id. Fixed for the elector's lifetime. */
    List<NodeId> members();

    /** The local monotonic clock, in nanoseconds. Only differences are meaningful. */
    long nanoTime();

    /** The only source of randomness an elector may use; seeded in the simulator. */
    RandomGenerator random();

    /**
     * Sends a message to one peer. Delivery is best effort: it may be lost, delayed, duplicated or
     * reordered. If a {@link #persist} is pending, the message leaves only after the state is durable.
     */
    void send(NodeId to, ElectorMessage message);

    /** Sends a message to every member except this one. */
    default void broadcast(ElectorMessage message) {
        for (NodeId member : members()) {
            if (!member.equals(self())) {
                send(member, message);
            }
        }
    }

    /**
     * Arms {@code key} to fire after {@code delayNanos} on the local monotonic clock, replacing any pending
     * firing of the same key.
     */
    void schedule(TimerKey key, long delayNanos);

    /** Disarms {@code key}; a no-op if it is not armed. */
    void cancel(TimerKey key);

    /** What was last persisted for this member and group (empty on first start). */
    StoredState storedState();

    /**
     * Makes {@code state} durable before any effect requested after this call takes place (in particular
     * before any later {@link #send}).
     *
     * @throws io.bellwether.spi.StateStoreException when it cannot be made durable; the elector must then
     *     not act on the new state
     */
    void persist(StoredState state);

    /** Publishes a change of role, epoch or leader, with the reason. */
    void announce(ElectorState state, ChangeReason reason);

    /**
     * While leader: the instant on {@link #nanoTime()}'s clock until which the leadership is valid. May
     * move backward (support lost). The driver revokes the leadership for users before that instant even
     * if the elector is not scheduled in time. It may be called just before the LEADER announcement it
     * belongs to. Every elector must give a bounded instant (never {@code Long.MAX_VALUE}: monotonic clock
     * arithmetic overflows) and must itself step down once the instant has passed without being extended;
     * until it does, users hold no valid leadership.
     */
    void validUntil(long nanos);

    /**
     * While leader: the member that would lead at once if this leader stopped now, without an election (the
     * quorum elector's ready standby); empty when there is none. Called when it changes; the driver forgets it
     * when the leadership ends. Informational only (status pages): nothing may depend on it for safety.
     */
    default void successor(Optional<NodeId> member) {}

    /** Sends a request to the shared store (lease electors); the reply arrives via {@link Elector#onStoreReply}. */
    default void storeRequest(StoreRequest request) {
        throw new UnsupportedOperationException("this driver has no store");
    }
}
