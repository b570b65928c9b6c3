package io.bellwether.spi;

import java.util.Objects;

/**
 * A group's lease as the store reported it.
 *
 * @param holder the holder id (a per-process random id, never a host name)
 * @param token the lease's token: the fencing token of the leadership it grants
 * @param expiresAtMillis when it expires, on the store's clock
 * @param storeNowMillis the store's clock when it answered
 * @param claimPriority the priority of the best contender waiting for the lease ({@link
 *     LeaseStore#acquireOrRenew(String, String, long, java.time.Duration, int)}); meaningful only while {@link
 *     #claimed()}
 * @param claimUntilMillis when that claim runs out, on the store's clock; 0 when there is none
 */
public record LeaseRecord(
        String holder,
        long token,
        long expiresAtMillis,
        long storeNowMillis,
        int claimPriority,
        long claimUntilMillis) {
    public LeaseRecord {
        Objects.requireNonNull(holder, "holder");
    }

    /** A lease without a claim on it (what a store without priorities always reports). */
    public LeaseRecord(String holder, long token, long expiresAtMillis, long storeNowMillis) {
        this(holder, token, expiresAtMillis, storeNowMillis, 0, 0);
    }

    /** Whether it had expired when the store answered. */
    public boolean expired() {
        return expiresAtMillis <= storeNowMillis;
    }

    /** What was left of it when the store answered, in milliseconds (≤ 0 once expired). */
    public long remainingMillis() {
        return expiresAtMillis - storeNowMillis;
    }

    /** Whether {@code holder} holds it with {@code token} and it had not expired. */
    public boolean heldBy(String holder, long token) {
        return !expired() && this.token == token && this.holder.equals(holder);
    }

    /** Leaves out an absent claim, so that a lease without priorities reads as it always did (in logs and histories). */
    @Override
    public String toString() {
        return "LeaseRecord[holder=" + holder + ", token=" + token + ", expiresAtMillis=" + expiresAtMillis
                + ", storeNowMillis=" + storeNowMillis
                + (claimPriority == 0 && claimUntilMillis == 0
                        ? ""
                        : ", claimPriority=" + claimPriority + ", claimUntilMillis=" + claimUntilMillis)
                + "]";
    }

    /** Whether a waiting contender's claim had not run out when the store answered. */
    public boolean claimed() {
        return claimUntilMillis > storeNowMillis;
    }

    /** Whether a waiting contender of priority strictly above {@code priority} claims it: its holder should yield. */
    public boolean claimedAbove(int priority) {
        return claimed() && claimPriority > priority;
    }
}
