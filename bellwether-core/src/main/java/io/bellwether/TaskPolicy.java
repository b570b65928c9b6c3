package io.bellwether;

/**
 * What a task run with {@link Election#runWhileLeader(LeaderTask, TaskOptions)} does when it ends on its own while
 * this member still leads: it threw ({@link TaskOptions#onFailure()}) or it returned ({@link TaskOptions#onReturn()}).
 * A task that ends because its leadership was revoked is not subject to a policy: it simply stops.
 */
public enum TaskPolicy {
    /**
     * Step down so that another member leads, and stay out of the next elections for {@link
     * TaskOptions#resignHoldOff()}; this member stays in the group and runs the task again when it leads again. The
     * leadership ends with {@link RevocationReason#TASK_UNHEALTHY} after a failure, {@link RevocationReason#RESIGNED}
     * after a return. What a Curator {@code LeaderSelector} does when {@code takeLeadership} returns.
     */
    RESIGN,
    /**
     * Run the task again in place, on the same leadership, after a backoff that starts at {@link
     * TaskOptions#initialBackoff()} and doubles with each restart up to {@link TaskOptions#maxBackoff()}. Failures
     * are budgeted: the failure after {@link TaskOptions#maxRestarts()} restarts resigns as {@link #RESIGN} does.
     * Returns are not budgeted (a task that returns is restarted for as long as this member leads).
     */
    RESTART,
    /**
     * Keep the leadership and run nothing until it ends; the next leadership runs the task again. What a Curator
     * {@code LeaderLatch} holder gets: leadership is held whatever the work does.
     */
    STAY
}
