package io.bellwether.elector;

/**
 * A ranked epoch {@code (counter, coordinator)} as one strictly increasing {@code long}: {@code counter ×
 * 2^rankBits + rank}, where {@code rank} is the coordinator's index among the group's members sorted by id.
 * Epochs compare as the pairs do (counter first, then coordinator id), so a member that adopts only greater
 * epochs adopts only greater pairs, and each epoch names exactly one coordinator. Epoch 0 means "none yet";
 * every real epoch has a counter of at least 1.
 *
 * <p>The bully and ring electors use {@link Counters#EPOCH_RANK_BITS} (10) rank bits, hence groups of at most
 * {@value #MAX_MEMBERS}; the invitation elector encodes its group numbers with {@link #pack(long, int, int)} and
 * 16 rank bits, since its wire format carries group numbers, not epochs, and its epochs were always wider.
 */
public final class RankedEpoch {
    /** The largest group the bully and ring encoding allows. */
    public static final int MAX_MEMBERS = 1 << Counters.EPOCH_RANK_BITS;

    private static final int RANK_BITS = Counters.EPOCH_RANK_BITS;

    private RankedEpoch() {}

    /** The epoch of {@code counter} (1 or more, below {@link Counters#LIMIT}) led by the member of sorted index {@code rank}. */
    public static long of(long counter, int rank) {
        if (counter < 1 || !Counters.inRange(counter)) {
            throw new IllegalArgumentException(
                    "epoch counter " + counter + " is out of range: " + Counters.allowed() + ", at least 1");
        }
        if (rank < 0 || rank >= MAX_MEMBERS) {
            throw new IllegalArgumentException("rank " + rank + " is out of range: allowed 0 to " + (MAX_MEMBERS - 1));
        }
        return pack(counter, rank, RANK_BITS);
    }

    /** {@code counter × 2^rankBits + rank}, unchecked: callers guarantee both parts fit. */
    public static long pack(long counter, int rank, int rankBits) {
        return (counter << rankBits) | rank;
    }

    /** The counter part of {@code epoch} (0 for the empty epoch). */
    public static long counter(long epoch) {
        return epoch >>> RANK_BITS;
    }

    /** The coordinator's rank among the sorted members. */
    public static int rank(long epoch) {
        return (int) (epoch & (MAX_MEMBERS - 1));
    }

    /** Whether {@code epoch} is a real coordinator's epoch naming the member of sorted index {@code rank}. */
    public static boolean names(long epoch, int rank) {
        return rank(epoch) == rank && counter(epoch) >= 1;
    }

    /** {@code counter.rank}, for logs. */
    public static String toString(long epoch) {
        return counter(epoch) + "." + rank(epoch);
    }
}
