package io.bellwether;

import java.util.concurrent.CompletionStage;

/**
 * Held by the leader, for one epoch. It says how long this member may act as leader and warns before that
 * time runs out.
 *
 * <p>Rules for users: act as leader only while {@link #isValid()}; call {@link #checkValid()} right before
 * each side effect; pass {@link #epoch()} as a fencing token to any resource that can reject stale tokens;
 * stop work when {@link #revoked()} completes. The revocation signal completes <em>before</em> {@link
 * #validUntilNanos()} passes (by the runtime's revocation lead), whether or not the elector's own event loop
 * is making progress.
 *
 * <p>Thread-safe.
 */
public interface Leadership {
    /** The epoch of this leadership: the fencing token. Strictly increasing across leaderships of a group. */
    long epoch();

    /**
     * The instant, on the local monotonic clock ({@link System#nanoTime()}), until which this leadership is
     * valid. It moves forward while a majority keeps confirming the leader (or the lease is renewed) and may
     * move backward when support is lost; it never extends past what the algorithm can guarantee.
     */
    long validUntilNanos();

    /** Whether the leadership is still valid now: not revoked and {@code now < validUntilNanos()}. */
    boolean isValid();

    /**
     * Throws unless the leadership is valid now. Call it immediately before a side effect that only the
     * leader may perform.
     *
     * @throws LeadershipLostException when it is no longer valid
     */
    void checkValid();

    /**
     * Completes with the reason once the leadership ends, or is about to (before {@link #validUntilNanos()}). It
     * completes on a small pool of threads every election of the process shares (never the election's loop), so
     * callbacks registered with the non-async methods run there and should not block for long; {@link #isValid()}
     * turns false before it completes, whatever those threads are doing.
     */
    CompletionStage<RevocationReason> revoked();

    /**
     * Reports that the work holding this leadership is alive. On the leadership a task receives from {@link
     * Election#runWhileLeader(LeaderTask, TaskOptions)} with a {@linkplain TaskOptions#healthTimeout() health
     * timeout}, a task that has not called it within that time is declared unhealthy and this member steps down
     * ({@link RevocationReason#TASK_UNHEALTHY}). Cheap (one volatile write); call it from the task's main loop. Does
     * nothing on any other leadership.
     */
    default void heartbeat() {}
}
