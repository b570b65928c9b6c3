package io.bellwether.runtime;

import io.bellwether.NodeId;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election's queue of callbacks on a shared pool ({@link RuntimeThreads#callbackPool()}): its tasks run one at a
 * time, in the order they were queued, each with the election's group and node in the MDC; different elections'
 * queues run side by side. A queue drains at most {@value #BATCH} tasks before it yields its thread, so one busy
 * election does not keep the others waiting.
 *
 * <p>It behaves like a single-thread executor: after {@link #shutdown()} it refuses new tasks with {@link
 * RejectedExecutionException} and still runs the ones queued. A task's RuntimeException is logged and the next task
 * runs; an Error is rethrown, after the rest of the queue has been handed on, to the pool thread's uncaught-exception
 * handler, which reports it to {@link FatalErrors}.
 * Thread-safe.
 */
final class SerialExecutor implements Executor {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    /** The most tasks one turn on a pool thread runs. */
    static final int BATCH = 64;

    private final Executor pool;
    private final String group;
    private final NodeId self;
    private final String what;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>(); // guarded by this
    private boolean scheduled; // guarded by this
    private boolean shutdown; // guarded by this
    private volatile Thread running;

    /**
     * @param what what the queue is for, in log lines ("listeners", "revocations")
     */
    SerialExecutor(Executor pool, String group, NodeId self, String what) {
        this.pool = pool;
        this.group = group;
        this.self = self;
        this.what = what;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException(
                        "group " + group + " node " + self + ": the " + what + " queue is shut down");
            }
            queue.add(task);
            if (scheduled) {
                return;
            }
            scheduled = true;
        }
        submitTurn();
    }

    /** Refuses new tasks from now on; the ones queued still run. */
    synchronized void shutdown() {
        shutdown = true;
    }

    synchronized boolean isShutdown() {
        return shutdown;
    }

    /** Whether the calling thread is running one of this queue's tasks now. */
    boolean onThread() {
        return running == Thread.currentThread();
    }

    private void submitTurn() {
        try {
            pool.execute(Mdc.around(group, self, this::turn));
        } catch (RejectedExecutionException e) {
            // The shared pool never shuts down; should it refuse anyway, nothing queued here may be lost.
            log.warn("group {} node {}: the {} pool refused a turn; running it on the caller", group, self, what);
            turn();
        }
    }

    /**
     * One turn on a pool thread: at most {@link #BATCH} tasks, then either the queue is empty (the next {@link
     * #execute} starts a new turn) or the rest goes behind the other queues' turns. {@link #running} is cleared under
     * the lock before the next turn can start, so {@link #onThread()} is only ever true on the thread running a task.
     */
    private void turn() {
        running = Thread.currentThread();
        Error fatal = null;
        boolean more = false;
        for (int n = 0; fatal == null; n++) {
            Runnable next;
            synchronized (this) {
                next = n < BATCH ? queue.poll() : null;
                if (next == null) {
                    running = null;
                    more = !queue.isEmpty();
                    if (!more) {
                        scheduled = false;
                    }
                    break;
                }
            }
            try {
                next.run();
            } catch (Error e) {
                fatal = e; // reported by the pool thread's uncaught-exception handler (FatalErrors)
            } catch (Throwable e) {
                log.error("group {} node {}: a task on the {} queue failed", group, self, what, e);
            }
        }
        if (fatal != null) {
            synchronized (this) {
                running = null;
                more = !queue.isEmpty();
                if (!more) {
                    scheduled = false;
                }
            }
        }
        if (more) {
            submitTurn(); // behind the other queues' turns
        }
        if (fatal != null) {
            throw fatal;
        }
    }
}
