package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.spi.Transport;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The single thread one election's events run on: a thread of the election's own, or the transport's I/O thread
 * when the transport offers it ({@link Transport#sharedLoop()}), in which case a message goes from the socket
 * to the elector and its answer back to the socket without a thread hand-off.
 *
 * <p>Either way it behaves like a one-thread {@link ScheduledThreadPoolExecutor} that was told not to run
 * delayed tasks after shutdown: after {@link #shutdown()} it refuses new tasks with {@link
 * RejectedExecutionException}, still runs the tasks already queued for immediate execution, and drops the
 * delayed ones.
 */
abstract class ElectionLoop {
    /** Queues a task; throws {@link RejectedExecutionException} after {@link #shutdown()}. */
    abstract void execute(Runnable task);

    /** Runs a task after a delay unless the loop was shut down by then. */
    abstract ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit);

    abstract void shutdown();

    abstract boolean isShutdown();

    /** Whether the calling thread is the loop's. */
    abstract boolean inLoop();

    /**
     * Queues a task and returns its future. Every task a loop runs goes through {@link FatalErrors#guard}: an
     * executor's future, or a Netty event loop, would otherwise catch an Error and leave a zombie election.
     */
    final FutureTask<Void> submit(Runnable task) {
        FutureTask<Void> f = new FutureTask<>(FatalErrors.guard(task), null);
        execute(f);
        return f;
    }

    /**
     * A loop on a thread of its own, named {@code name}, daemon, with {@code group} and {@code self} in its MDC
     * ({@link Mdc}).
     */
    static ElectionLoop ownThread(String name, String group, NodeId self) {
        return new OwnThread(name, group, self);
    }

    /**
     * A loop on {@code executor}'s thread, shared with others: shutting it down leaves {@code executor} running. Each
     * of its tasks runs with {@code group} and {@code self} in the MDC, restored afterwards.
     */
    static ElectionLoop shared(ScheduledExecutorService executor, String group, NodeId self) {
        return new Shared(executor, group, self);
    }

    private static final class OwnThread extends ElectionLoop {
        private final ScheduledThreadPoolExecutor executor;
        private volatile Thread thread;

        OwnThread(String name, String group, NodeId self) {
            executor = new ScheduledThreadPoolExecutor(1, Mdc.owned(group, self, r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                thread = t;
                return t;
            }));
            executor.setRemoveOnCancelPolicy(true);
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        }

        @Override
        void execute(Runnable task) {
            executor.execute(FatalErrors.guard(task));
        }

        @Override
        ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return executor.schedule(FatalErrors.guard(task), delay, unit);
        }

        @Override
        void shutdown() {
            executor.shutdown();
        }

        @Override
        boolean isShutdown() {
            return executor.isShutdown();
        }

        @Override
        boolean inLoop() {
            return Thread.currentThread() == thread;
        }
    }

    /**
     * The shared executor is single-threaded by the {@link Transport#sharedLoop()} contract; its thread is learnt
     * from the first task that runs (the election's start), and until then no caller can be on it on our behalf.
     */
    private static final class Shared extends ElectionLoop {
        private final ScheduledExecutorService executor;
        private final String group;
        private final NodeId self;
        private volatile boolean shutdown;
        private volatile Thread thread;

        Shared(ScheduledExecutorService executor, String group, NodeId self) {
            this.executor = executor;
            this.group = group;
            this.self = self;
        }

        @Override
        void execute(Runnable task) {
            if (shutdown) {
                throw new RejectedExecutionException("the election's loop is shut down");
            }
            Runnable guarded = Mdc.around(group, self, FatalErrors.guard(task));
            executor.execute(() -> {
                if (thread == null) {
                    thread = Thread.currentThread();
                }
                guarded.run();
            });
        }

        @Override
        ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            if (shutdown) {
                throw new RejectedExecutionException("the election's loop is shut down");
            }
            Runnable guarded = Mdc.around(group, self, FatalErrors.guard(task));
            return executor.schedule(
                    () -> {
                        if (!shutdown) {
                            guarded.run();
                        }
                    },
                    delay,
                    unit);
        }

        @Override
        void shutdown() {
            shutdown = true;
        }

        @Override
        boolean isShutdown() {
            return shutdown;
        }

        @Override
        boolean inLoop() {
            return Thread.currentThread() == thread;
        }
    }
}
