package io.bellwether.sim;

import io.bellwether.elector.ElectorSpec;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.quorum.QuorumConfig;

/**
 * The timing facts the timing-dependent checkers need, read from the spec when it is (or wraps) a {@link
 * QuorumConfig}.
 *
 * @param known whether the spec's timings are known; timing checkers are skipped otherwise
 */
record Timing(boolean known, long electionTimeoutNanos, long heartbeatNanos, double maxDrift) {
    static final double DEFAULT_DRIFT = 0.01;

    static Timing of(ElectorSpec spec) {
        ElectorSpec s = spec;
        while (s instanceof DelegatingSpec d) {
            s = d.delegate();
        }
        if (s instanceof QuorumConfig q) {
            return new Timing(
                    true, q.electionTimeout().toNanos(), q.heartbeatInterval().toNanos(), q.maxClockDrift());
        }
        if (s instanceof LeaseConfig l) {
            // The quorum timings do not apply; the drift bound does (it sets the nodes' clock rates).
            return new Timing(false, 400_000_000L, 100_000_000L, l.maxClockDrift());
        }
        return new Timing(false, 400_000_000L, 100_000_000L, DEFAULT_DRIFT);
    }

    /**
     * How long after being cut off from a majority a leader may still be LEADER: one election timeout plus one
     * heartbeat period of check-quorum granularity, stretched by the slowest allowed clock, plus the longest
     * message delay (its last acknowledgement may have been in flight).
     */
    long stepDownBoundNanos() {
        return (long) Math.ceil((electionTimeoutNanos + heartbeatNanos) / (1 - maxDrift)) + Network.maxMessageDelay();
    }
}
