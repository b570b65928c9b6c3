package io.bellwether;

import java.util.Optional;

/**
 * Receives an election's events. Callbacks run on the election's notifier, one at a time and in order; a callback
 * that blocks delays later events but never the elector itself. The notifier runs on a small pool of threads shared
 * by every election of the process, so a callback should not block for long (it holds one of those threads); give
 * blocking work to an executor of your own. With {@link
 * ElectionBuilder#listenerExecutor}, each listener's callbacks run on that executor instead, still one at a time and
 * in order for that listener, so a listener that blocks delays only its own later events.
 */
public interface ElectionListener {
    /**
     * This member became leader. By the time this is called, the election's {@code role()}, {@code epoch()},
     * {@code isLeader()} and {@code leader()} already say so.
     */
    default void elected(Leadership leadership) {}

    /** This member's leadership ended (or is about to: see {@link Leadership#revoked()}). */
    default void revoked(Leadership leadership, RevocationReason reason) {}

    /**
     * This member's role or epoch changed: every step of an election (a scouting round, a candidacy, a new
     * term), not only leadership. For dashboards and logs; act on {@link #elected} and {@link #revoked}.
     */
    default void roleChanged(Role previous, Role current, long epoch) {}

    /** The leader as this member knows it changed; empty while no leader is known. */
    default void leaderChanged(Optional<LeaderView> leader) {}

    /**
     * Something happened to a task run with {@link Election#runWhileLeader(LeaderTask, TaskOptions)}: a run started,
     * returned, failed, is restarting, the leader went idle, the task was declared unhealthy, it made this member
     * step down, or it stopped with its leadership. In order with the other events of this listener.
     */
    default void taskEvent(TaskEvent event) {}
}
