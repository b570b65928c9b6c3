package io.bellwether;

/** Why a {@link Leadership} ended. */
public enum RevocationReason {
    /** This member resigned: {@link Election#close()} or an explicit resignation. */
    RESIGNED,
    /** The leader could no longer confirm that a majority supports it (check-quorum). */
    LOST_QUORUM,
    /** The lease could not be renewed before its renew deadline. */
    LEASE_NOT_RENEWED,
    /** A message from a newer epoch showed that another member has been or is being elected. */
    HIGHER_EPOCH_SEEN,
    /**
     * The validity period ran out before the elector extended it; raised by the runtime's watchdog, which
     * does not depend on the elector's event loop making progress.
     */
    VALIDITY_EXPIRED,
    /**
     * The member's state (its term or counters) could not be made durable, so it stopped taking part in the
     * election rather than act on state it could forget.
     */
    STATE_STORE_FAILED,
    /**
     * A task run with {@link Election#runWhileLeader(LeaderTask, TaskOptions)} made this member step down: it did
     * not call {@link Leadership#heartbeat()} within its {@link TaskOptions#healthTimeout()}, or it failed with the
     * {@link TaskPolicy#RESIGN} policy or beyond its {@link TaskOptions#maxRestarts()}.
     */
    TASK_UNHEALTHY
}
