package io.bellwether.elector;

import java.util.Arrays;

/** Majority arithmetic shared by the algorithms. */
public final class Quorums {
    private Quorums() {}

    /** The smallest majority of {@code members}: {@code members / 2 + 1}. */
    public static int majority(int members) {
        if (members < 1) {
            throw new IllegalArgumentException("members must be at least 1, was " + members);
        }
        return members / 2 + 1;
    }

    /** Whether {@code votes} distinct supporters out of {@code members} form a majority. */
    public static boolean isMajority(int votes, int members) {
        return votes >= majority(members);
    }

    /**
     * The largest value that at least a majority of {@code members} reached, given one value per member
     * ({@link Long#MIN_VALUE} for a member that reached nothing). For example, with the send times of the
     * latest heartbeat each member acknowledged, it is the latest round a majority confirmed.
     */
    public static long majorityValue(long[] perMember) {
        long[] sorted = perMember.clone();
        Arrays.sort(sorted);
        // The majority-th largest value: at least majority(n) members reached it.
        return sorted[sorted.length - majority(sorted.length)];
    }
}
