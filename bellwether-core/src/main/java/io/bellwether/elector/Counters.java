package io.bellwether.elector;

/**
 * The one range every monotonic counter of every algorithm lives in: quorum terms, pledge terms and heartbeat
 * sequences, the bully and ring epoch counters (the part of an epoch above its rank), the ring's highest known
 * counter, invitation group counters, and lease tokens. A value is in range when {@code 0 <= value < }{@link
 * #LIMIT}.
 *
 * <p>Why a limit at all: a member adopts any higher term, counter or token it sees and persists it. Without a
 * limit, one message carrying {@code Long.MAX_VALUE} (a bug, a corrupted peer) moves every member there, and
 * the next increment overflows: the group can never elect again, across restarts, since the value is durable.
 * With the limit, every codec refuses an out-of-range value as a malformed frame (dropped and counted by the
 * transport), every elector refuses to adopt or persist one, and state files holding one are refused at load.
 *
 * <p>Why {@code 2^47}: it leaves {@code 2^63 − 2^47} of headroom, so {@code value + 1} never overflows a
 * {@code long}; it is the counter range the invitation epoch ({@code counter × 2^16 + rank}) can encode, and the
 * bully and ring epochs ({@code counter × 2^10 + rank}) stay below {@code 2^57}; terms and tokens stay exact as
 * JSON numbers (below {@code 2^53}). And it is inexhaustible in practice: at one increment per millisecond,
 * far faster than any election timeout allows, {@code 2^47} increments last about 4,400 years.
 *
 * <p>A member holding {@code LIMIT − 1} cannot increment it: it stays in range by not campaigning (quorum),
 * not issuing an epoch (bully, ring) or not creating a group (invitation), and logs an error. No run reaches it
 * but through {@code 2^47} increments or a peer that sends such a value on purpose.
 */
public final class Counters {
    /** The exclusive upper bound of every counter: {@code 2^47}. */
    public static final long LIMIT = 1L << 47;

    /**
     * The bully and ring epochs pack {@code (counter, rank)} as {@code counter << EPOCH_RANK_BITS | rank}; their
     * counter part is what must be in range.
     */
    public static final int EPOCH_RANK_BITS = 10;

    /** The StoredState key under which the bully and ring electors keep their adopted (packed) epoch. */
    public static final String EPOCH_KEY = "epoch";

    private Counters() {}

    /** Whether {@code value} is a valid counter: {@code 0 <= value < LIMIT}. */
    public static boolean inRange(long value) {
        return value >= 0 && value < LIMIT;
    }

    /** Whether {@code value + 1} is still in range (and {@code value} itself is). */
    public static boolean canIncrement(long value) {
        return value >= 0 && value < LIMIT - 1;
    }

    /**
     * Whether a member holding {@code counter} may issue an epoch above it (bully, ring); when it may not, logs
     * the refusal at ERROR through {@code log}, naming {@code self}, so an elector needs only {@code if (!...)
     * return}.
     */
    public static boolean mayIssueEpochAbove(long counter, Object self, org.slf4j.Logger log) {
        if (canIncrement(counter)) {
            return true;
        }
        log.error(
                "{}: cannot issue an epoch above counter {}: counters are at their limit ({})",
                self,
                counter,
                allowed());
        return false;
    }

    /** Whether a packed bully or ring epoch is valid: not negative, with its counter part in range. */
    public static boolean epochInRange(long epoch) {
        return epoch >= 0 && inRange(epoch >>> EPOCH_RANK_BITS);
    }

    /**
     * Whether a value stored under {@code key} is valid: every stored value is a counter, except {@value
     * #EPOCH_KEY}, a packed epoch ({@link #epochInRange}). State stores check this on load and save.
     */
    public static boolean storedInRange(String key, long value) {
        return EPOCH_KEY.equals(key) ? epochInRange(value) : inRange(value);
    }

    /**
     * Returns {@code value} if it is in range, for codecs reading a field.
     *
     * @throws MalformedMessageException naming the message, the field, the value and the allowed range
     */
    public static long decoded(String message, String field, long value) {
        if (!inRange(value)) {
            throw new MalformedMessageException(message + " has " + field + " " + value + ": " + allowed());
        }
        return value;
    }

    /**
     * Returns {@code value} if it is in range, for codecs writing a field and electors about to persist one.
     *
     * @throws IllegalArgumentException naming the field, the value and the allowed range
     */
    public static long checked(String field, long value) {
        if (!inRange(value)) {
            throw new IllegalArgumentException(field + " " + value + " is out of range: " + allowed());
        }
        return value;
    }

    /**
     * As {@link #checked(String, long)} for the field {@code field} of {@code owner} (named "{@code field} of {@code
     * owner}"), whose text is built only for the refusal: for codecs, which check on every message's path.
     *
     * @throws IllegalArgumentException naming the field, its owner, the value and the allowed range
     */
    public static long checked(String field, Object owner, long value) {
        if (!inRange(value)) {
            throw new IllegalArgumentException(field + " of " + owner + " " + value + " is out of range: " + allowed());
        }
        return value;
    }

    /**
     * Returns a packed bully or ring epoch if it is valid, for codecs reading one.
     *
     * @throws MalformedMessageException naming the message, the field, the value and the allowed range
     */
    public static long decodedEpoch(String message, String field, long epoch) {
        if (!epochInRange(epoch)) {
            throw new MalformedMessageException(message + " has " + field + " " + epoch + " (counter "
                    + (epoch >> EPOCH_RANK_BITS) + "): counter " + allowed());
        }
        return epoch;
    }

    /** The allowed range in words, for error messages. */
    public static String allowed() {
        return "allowed 0 to " + (LIMIT - 1) + " (2^47 - 1)";
    }
}
