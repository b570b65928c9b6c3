package io.bellwether.spi;

import java.util.Objects;

/**
 * A group's lease as the store reported it.
 *
 * @param holder the holder id (a per-process random id, never a host name)
 * @param token the lease's token: the fencing token of the leadership it grants
 * @param expiresAtMillis when it expires, on the store's clock
 * @param storeNowMillis the store's clock when it answered
 */
public record LeaseRecord(String holder, long token, long expiresAtMillis, long storeNowMillis) {
    public LeaseRecord {
        Objects.requireNonNull(holder, "holder");
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
}
