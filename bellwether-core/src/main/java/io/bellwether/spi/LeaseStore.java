package io.bellwether.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A shared store holding one lease per election group: {@code (holder, token, expires_at)}. Every operation
 * is a single atomic statement (or script) that uses the <em>store's</em> clock, never the caller's. Tokens
 * only ever increase: they are the fencing tokens (epochs) of the leaderships.
 *
 * <p>Implementations never block the caller (they complete the returned stage from their own threads) and are
 * thread-safe.
 */
public interface LeaseStore extends AutoCloseable {
    /** A short description for logs and status, e.g. {@code postgresql 127.0.0.1:5432/test table bw_lease}. */
    String describe();

    /**
     * In one atomic operation on the store's clock:
     *
     * <ul>
     *   <li>if the group has no lease, or its lease has expired, gives it to {@code holder} for {@code
     *       duration} with token = previous token + 1 (1 for the first);
     *   <li>if {@code holder} holds it with {@code token} and it has not expired, extends it to store-now +
     *       {@code duration};
     *   <li>otherwise changes nothing.
     * </ul>
     *
     * @return the lease as it stands after the operation (whoever holds it), with the store's clock reading
     */
    CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration);

    /**
     * {@link #acquireOrRenew(String, String, long, Duration)} for a member of priority {@code priority} (higher
     * preferred), in the same atomic operation:
     *
     * <ul>
     *   <li>a lease given to or renewed by {@code holder} records {@code priority} as its holder's priority;
     *   <li>a free lease (expired or released) is not given to the caller while an unexpired claim of higher
     *       priority than {@code priority} is on it: the record comes back as it stands (expired, so not the
     *       caller's) and the caller polls again; so the claimant, not a contender below it, takes the lease
     *       released to it. A renewal needs the lease unexpired;
     *   <li>if the lease is held, unexpired, by another holder whose recorded priority is strictly below {@code
     *       priority}, the caller claims it: the record's claim becomes ({@code priority}, store-now + {@code
     *       duration}) unless an unexpired claim of higher priority is already there (so a waiting contender
     *       keeps its claim alive by polling). Nothing else changes.
     * </ul>
     *
     * The returned record carries the claim ({@link LeaseRecord#claimedAbove}); a holder that sees a claim above
     * its own priority releases the lease. With every member at priority 0 no claim is ever written, and the
     * lease moves exactly as without priorities.
     *
     * <p>The default serves stores without priorities: priority 0 is {@link #acquireOrRenew(String, String, long,
     * Duration)}, any other priority fails the stage with {@link UnsupportedOperationException}.
     */
    default CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        if (priority == 0) {
            return acquireOrRenew(group, holder, token, duration);
        }
        return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
                describe() + " cannot record priorities: lease priority must be 0 with this store"));
    }

    /**
     * Ends the lease iff {@code holder} holds it with {@code token}: its expiry becomes the store's now, the
     * token is kept (so the next acquisition still increases it), and watchers are woken where the store can
     * push.
     *
     * @return whether this call released it
     */
    CompletionStage<Boolean> release(String group, String holder, long token);

    /** Reads the group's lease without contending for it; empty if it never had one. */
    CompletionStage<Optional<LeaseRecord>> read(String group);

    /** Whether {@link #watchReleases} pushes (PostgreSQL LISTEN/NOTIFY, Redis pub/sub) rather than doing nothing. */
    default boolean canPush() {
        return false;
    }

    /**
     * Calls {@code onRelease} (from a store thread) whenever the group's lease is released, where the store
     * can push; contenders then try at once instead of waiting for their next poll.
     *
     * @return a handle that stops watching
     */
    default AutoCloseable watchReleases(String group, Runnable onRelease) {
        return () -> {};
    }

    @Override
    void close();
}
