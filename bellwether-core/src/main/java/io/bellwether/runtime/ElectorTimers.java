package io.bellwether.runtime;

import io.bellwether.elector.TimerKey;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The timers one elector has set ({@link io.bellwether.elector.ElectorContext#schedule}), scheduled on its
 * election's loop. A timer that is due is handed to the elector as an event of its own, through the driver's
 * dispatch.
 *
 * <p>A {@linkplain TimerKey#coalesced() coalesced} timer's deadline is rounded up to a grid of the process's monotonic
 * clock ({@link #coalescedDeadline}): the same timers of every group with the same timings then fall due together,
 * run in one pass of a shared loop, and what they send goes out in one write per peer (the transport flushes once
 * per pass). Loop-confined.
 */
final class ElectorTimers {
    private final ElectionLoop loop;
    /** The driver's dispatch: runs one elector event and carries out its effects. */
    private final BiConsumer<Supplier<String>, Runnable> dispatch;
    /** Tells the elector that a timer is due. */
    private final Consumer<TimerKey> fire;

    private final Map<TimerKey, Timer> timers = new HashMap<>();

    ElectorTimers(ElectionLoop loop, BiConsumer<Supplier<String>, Runnable> dispatch, Consumer<TimerKey> fire) {
        this.loop = loop;
        this.dispatch = dispatch;
        this.fire = fire;
    }

    void schedule(TimerKey key, long delayNanos) {
        long now = System.nanoTime();
        long deadline = now + Math.max(0, delayNanos);
        if (key.coalesced()) {
            deadline = coalescedDeadline(deadline, delayNanos);
        }
        long delay = deadline - now;
        Timer current = timers.get(key);
        if (current != null && current.wakeAtNanos - deadline <= 0) {
            // Pushing a deadline back, as a follower does with its election timer on every heartbeat: the
            // pending wake-up comes first and re-arms itself for the rest, so nothing is cancelled or
            // allocated here (on an idle cluster that churn was a good part of each heartbeat's cost).
            current.deadlineNanos = deadline;
            return;
        }
        if (current != null) {
            current.future.cancel(false);
        }
        Timer timer = new Timer(key, deadline);
        timers.put(key, timer);
        arm(key, timer, delay);
    }

    /**
     * {@code deadline} rounded up to the next multiple of the grid for {@code delayNanos}, {@link
     * TimerKey#coalescingNanos}; unchanged when that is zero. Every election of the process with the same delay
     * shares the grid, whatever its phase.
     */
    static long coalescedDeadline(long deadline, long delayNanos) {
        long tick = TimerKey.coalescingNanos(delayNanos);
        if (tick == 0) {
            return deadline;
        }
        return deadline + Math.floorMod(-deadline, tick);
    }

    void cancel(TimerKey key) {
        Timer old = timers.remove(key);
        if (old != null) {
            old.future.cancel(false);
        }
    }

    void cancelAll() {
        timers.values().forEach(t -> t.future.cancel(false));
        timers.clear();
    }

    /** Schedules {@code timer}'s next wake-up {@code delayNanos} from now; false if the loop is shut down. */
    private boolean arm(TimerKey key, Timer timer, long delayNanos) {
        try {
            timer.future = loop.schedule(timer, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            timers.remove(key);
            return false;
        }
        timer.wakeAtNanos = System.nanoTime() + Math.max(0, delayNanos);
        return true;
    }

    /**
     * A timer the elector set: when it is due, and when the loop will next look at it (never later). It is its own
     * wake-up task and log name, so that a firing allocates nothing (a leader's heartbeat timer fires ten times a
     * second; see {@link ElectorDriver} on lambdas).
     */
    private final class Timer implements Runnable, Supplier<String> {
        final TimerKey key;
        long deadlineNanos;
        long wakeAtNanos;
        ScheduledFuture<?> future;
        private final Runnable due = this::due;

        Timer(TimerKey key, long deadlineNanos) {
            this.key = key;
            this.deadlineNanos = deadlineNanos;
        }

        /** The wake-up, on the loop. */
        @Override
        public void run() {
            dispatch.accept(this, due);
        }

        @Override
        public String get() {
            return "timer " + key.name();
        }

        private void due() {
            // A cancelled or replaced timer may still run if it was already due; only the current one counts.
            if (timers.get(key) != this) {
                return;
            }
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining > 0) {
                // Pushed back since it was scheduled (see schedule): sleep again until the new deadline.
                arm(key, this, remaining);
                return;
            }
            timers.remove(key);
            fire.accept(key);
        }
    }
}
