package io.bellwether.ring;

import io.bellwether.elector.Counters;

/**
 * The ring epoch {@code (counter, coordinator)} as one strictly increasing {@code long}: {@code counter ×
 * 1024 + rank}, where {@code rank} is the coordinator's index among the group's members sorted by id. Epochs
 * compare as the pairs do (counter first, then coordinator id), so a member that adopts only greater epochs
 * adopts only greater pairs, and each epoch names exactly one coordinator. Epoch 0 means "none yet"; every real
 * epoch has a counter of at least 1. Groups are therefore limited to {@value #MAX_MEMBERS} members.
 */
public final class RingEpoch {
    /** The largest group the encoding allows. */
    public static final int MAX_MEMBERS = 1024;

    private static final int RANK_BITS = Counters.EPOCH_RANK_BITS;

    private RingEpoch() {}

    /** The epoch of {@code counter} (1 or more, below {@link Counters#LIMIT}) led by the member of sorted index {@code rank}. */
    public static long of(long counter, int rank) {
        if (counter < 1 || !Counters.inRange(counter)) {
            throw new IllegalArgumentException(
                    "epoch counter " + counter + " is out of range: " + Counters.allowed() + ", at least 1");
        }
        if (rank < 0 || rank >= MAX_MEMBERS) {
            throw new IllegalArgumentException("rank " + rank + " is out of range: allowed 0 to " + (MAX_MEMBERS - 1));
        }
        return (counter << RANK_BITS) | rank;
    }

    /** The counter part of {@code epoch} (0 for the empty epoch). */
    public static long counter(long epoch) {
        return epoch >>> RANK_BITS;
    }

    /** The coordinator's rank among the sorted members. */
    public static int rank(long epoch) {
        return (int) (epoch & (MAX_MEMBERS - 1));
    }

    /** {@code counter.rank}, for logs. */
    public static String toString(long epoch) {
        return counter(epoch) + "." + rank(epoch);
    }
}
