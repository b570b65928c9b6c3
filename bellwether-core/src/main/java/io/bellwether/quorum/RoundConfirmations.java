package io.bellwether.quorum;

import io.bellwether.elector.Quorums;
import java.util.Arrays;

/**
 * The validity bookkeeping of a leader, a candidate and a standby (rules 5, 7 and 10.4 of {@code
 * docs/quorum.md}): per member, the send time of the latest round it confirmed, and the send times of the recent
 * rounds that confirmations are matched to. A validity counts from the send time of the latest round a majority
 * confirmed: {@code s + election-timeout × (1 − max-clock-drift) − validity-margin}.
 *
 * <p>One instance per elector, shared by its roles: a member is leader, candidate or standby, never two at once,
 * and each role clears what it needs when it starts. Not thread-safe.
 */
final class RoundConfirmations {
    /** How many recent rounds are remembered to match acknowledgements to send times. */
    private static final int ROUND_MEMORY = 64;

    private final QuorumConfig config;
    private final int selfIndex;
    private final long[] roundSequence = new long[ROUND_MEMORY];
    private final long[] roundSentNanos = new long[ROUND_MEMORY];
    /** Per member: the send time of the latest round (or proposal) it confirmed; MIN_VALUE if none. */
    private final long[] confirmedNanos;

    RoundConfirmations(QuorumConfig config, int memberCount, int selfIndex) {
        this.config = config;
        this.selfIndex = selfIndex;
        this.confirmedNanos = new long[memberCount];
    }

    /** Forgets every member's confirmation. */
    void clear() {
        Arrays.fill(confirmedNanos, Long.MIN_VALUE);
    }

    /** Forgets the rounds sent, so that no confirmation of an earlier role's round matches a new one. */
    void forgetRounds() {
        Arrays.fill(roundSequence, 0);
    }

    /** Member {@code member} confirmed a round sent at {@code sentNanos} (a vote confirms the proposal). */
    void confirmAt(int member, long sentNanos) {
        confirmedNanos[member] = sentNanos;
    }

    /** Member {@code member}'s confirmation no longer counts. */
    void forget(int member) {
        confirmedNanos[member] = Long.MIN_VALUE;
    }

    /** The send time of the latest round {@code member} confirmed; MIN_VALUE if none. */
    long confirmedAt(int member) {
        return confirmedNanos[member];
    }

    /**
     * Records that round {@code seq} (a leader's heartbeats or a standby's pledge round) was sent at {@code now};
     * sending it counts as this member's own confirmation.
     */
    void record(long seq, long now) {
        int slot = (int) (seq % ROUND_MEMORY);
        roundSequence[slot] = seq;
        roundSentNanos[slot] = now;
        confirmedNanos[selfIndex] = now;
    }

    /**
     * A peer confirmed round {@code seq}: its confirmation now counts from that round's send time. False when the
     * round is too old to match to a send time, or was never sent.
     */
    boolean confirm(int fromIndex, long seq) {
        int slot = (int) (seq % ROUND_MEMORY);
        if (roundSequence[slot] != seq || seq <= 0) {
            return false;
        }
        confirmedNanos[fromIndex] = Math.max(confirmedNanos[fromIndex], roundSentNanos[slot]);
        return true;
    }

    /** The send time of the latest round a majority confirmed, plus the validity; MIN_VALUE without a majority. */
    long validUntil() {
        long majorityConfirmed = Quorums.majorityValue(confirmedNanos);
        return majorityConfirmed == Long.MIN_VALUE ? Long.MIN_VALUE : majorityConfirmed + config.validityNanos();
    }

    /**
     * The peer that confirmed most recently, -1 if none has: it is connected and caught up, the best successor.
     * Ties go to the lowest index (the members are in id order).
     */
    int mostRecentPeer() {
        int best = -1;
        for (int i = 0; i < confirmedNanos.length; i++) {
            if (i != selfIndex
                    && confirmedNanos[i] != Long.MIN_VALUE
                    && (best < 0 || confirmedNanos[i] > confirmedNanos[best])) {
                best = i;
            }
        }
        return best;
    }
}
