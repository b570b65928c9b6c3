package io.bellwether;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Something that happened to a task run with {@link Election#runWhileLeader(LeaderTask, TaskOptions)}, as {@link
 * ElectionListener#taskEvent} hears it. Each is also logged on one line with its reason and counted ({@link
 * TaskHandle#count}).
 *
 * @param task the task's {@linkplain TaskOptions#name() name}
 * @param kind what happened
 * @param epoch the epoch of the leadership the task runs under
 * @param run which run of the task in this leadership: 1 for the first, 2 after the first restart, …
 * @param failure what the task threw, for {@link Kind#FAILED}; empty otherwise
 * @param backoff how long until the restart, for {@link Kind#RESTARTING}; {@link Duration#ZERO} otherwise
 * @param reason why the leadership ends, for {@link Kind#RESIGNED} (what the task's policy asked for) and {@link
 *     Kind#STOPPED} (what revoked it); empty otherwise
 */
public record TaskEvent(
        String task,
        Kind kind,
        long epoch,
        int run,
        Optional<Throwable> failure,
        Duration backoff,
        Optional<RevocationReason> reason) {
    /** What happened to a leader task. */
    public enum Kind {
        /** A run started: the first of a leadership, or a restart. */
        STARTED,
        /** The task returned while this member still leads; its {@link TaskOptions#onReturn()} policy follows. */
        RETURNED,
        /** The task threw while this member still leads; its {@link TaskOptions#onFailure()} policy follows. */
        FAILED,
        /** The task runs again after {@link TaskEvent#backoff()} ({@link TaskPolicy#RESTART}). */
        RESTARTING,
        /** The leader keeps leading with the task not running ({@link TaskPolicy#STAY}). */
        IDLE,
        /** The task did not call {@link Leadership#heartbeat()} within {@link TaskOptions#healthTimeout()}. */
        UNHEALTHY,
        /** The task's policy made this member step down, with {@link TaskEvent#reason()}. */
        RESIGNED,
        /** The run ended because its leadership ended, with {@link TaskEvent#reason()}: the normal end of a task. */
        STOPPED
    }

    public TaskEvent {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(backoff, "backoff");
        Objects.requireNonNull(reason, "reason");
    }
}
