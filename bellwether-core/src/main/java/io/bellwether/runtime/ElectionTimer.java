package io.bellwether.runtime;

import io.bellwether.NodeId;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One election's view of the process's timer ({@link RuntimeThreads#timer()}): its watchdog and its leader tasks'
 * health checks. Each task runs with the election's group and node in the MDC. After {@link #shutdown()} it refuses
 * new tasks with {@link RejectedExecutionException}, and the delayed tasks it still has do nothing when their time
 * comes, as a scheduled executor told not to run delayed tasks after shutdown would. Thread-safe.
 */
final class ElectionTimer {
    private final ScheduledExecutorService timer;
    private final String group;
    private final NodeId self;
    private volatile boolean shutdown;

    ElectionTimer(ScheduledExecutorService timer, String group, NodeId self) {
        this.timer = timer;
        this.group = group;
        this.self = self;
    }

    /**
     * Runs {@code task} on the timer after {@code delay} unless this was shut down by then. The task must be short
     * and must not block or call an application's code: every election of the process shares the thread.
     *
     * @throws RejectedExecutionException after {@link #shutdown()}
     */
    ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new RejectedExecutionException(
                    "group " + group + " node " + self + ": the election's timer is shut down");
        }
        Runnable guarded = Mdc.around(group, self, FatalErrors.guard(task));
        return timer.schedule(
                () -> {
                    if (!shutdown) {
                        guarded.run();
                    }
                },
                delay,
                unit);
    }

    void shutdown() {
        shutdown = true;
    }
}
