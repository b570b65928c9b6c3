package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.spi.Transport;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where one election's events run, one at a time: the transport's I/O thread when the transport offers it ({@link
 * Transport#sharedLoop()}), in which case a message goes from the socket to the elector and its answer back to the
 * socket without a thread hand-off; else the election's queue on the process's loop pool ({@link
 * RuntimeThreads#loopPool()}).
 *
 * <p>Either way it behaves like a one-thread {@link java.util.concurrent.ScheduledThreadPoolExecutor} that was told
 * not to run delayed tasks after shutdown: after {@link #shutdown()} it refuses new tasks with {@link
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
     * A loop on the process's loop pool ({@link RuntimeThreads#loopPool()}): its tasks run one at a time and in order
     * on whichever pool thread is free, with {@code group} and {@code self} in the MDC; its delayed tasks wait on the
     * process's timer and then join the queue. For elections whose transport has no loop to share.
     */
    static ElectionLoop pooled(String group, NodeId self) {
        return new Pooled(group, self);
    }

    /**
     * A loop on {@code executor}'s thread, shared with others: shutting it down leaves {@code executor} running. Each
     * of its tasks runs with {@code group} and {@code self} in the MDC, restored afterwards.
     */
    static ElectionLoop shared(ScheduledExecutorService executor, String group, NodeId self) {
        return new Shared(executor, group, self);
    }

    /**
     * An election's queue on the loop pool. An Error a task throws goes to the pool thread's uncaught-exception
     * handler ({@link FatalErrors}) once the rest of the queue has been handed on ({@link SerialExecutor}).
     */
    private static final class Pooled extends ElectionLoop {
        private final SerialExecutor serial;
        private final ElectionTimer timer;
        private final String group;
        private final NodeId self;

        Pooled(String group, NodeId self) {
            this.group = group;
            this.self = self;
            this.serial = new SerialExecutor(RuntimeThreads.loopPool(), group, self, "event loop");
            this.timer = new ElectionTimer(RuntimeThreads.timer(), group, self);
        }

        /** @throws RejectedExecutionException after {@link #shutdown()} (the queue refuses it) */
        @Override
        void execute(Runnable task) {
            serial.execute(task);
        }

        /**
         * On the timer until it is due, then into the queue; dropped if the loop is shut down by then.
         *
         * @throws RejectedExecutionException after {@link #shutdown()} (the timer refuses it)
         */
        @Override
        ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return timer.schedule(
                    () -> {
                        try {
                            serial.execute(task);
                        } catch (RejectedExecutionException e) {
                            // shut down meanwhile
                        }
                    },
                    delay,
                    unit);
        }

        @Override
        void shutdown() {
            serial.shutdown(); // what is queued for now still runs
            timer.shutdown(); // delayed tasks are dropped
        }

        @Override
        boolean isShutdown() {
            return serial.isShutdown();
        }

        @Override
        boolean inLoop() {
            return serial.onThread();
        }

        @Override
        public String toString() {
            return "ElectionLoop{pooled, group=" + group + ", self=" + self + "}";
        }
    }

    /**
     * The shared executor is single-threaded by the {@link Transport#sharedLoop()} contract; its thread is learnt
     * from the first task that runs (the election's start), and until then no caller can be on it on our behalf.
     */
    private static final class Shared extends ElectionLoop {
        private final ScheduledExecutorService executor;
        private final ElectionTimer timer;
        private final String group;
        private final NodeId self;
        private volatile boolean shutdown;
        private volatile Thread thread;

        Shared(ScheduledExecutorService executor, String group, NodeId self) {
            this.executor = executor;
            this.timer = new ElectionTimer(executor, group, self);
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

        /**
         * On the shared executor itself, dropped if the loop is shut down by then ({@link ElectionTimer}).
         *
         * @throws RejectedExecutionException after {@link #shutdown()} (the timer refuses it)
         */
        @Override
        ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return timer.schedule(task, delay, unit);
        }

        @Override
        void shutdown() {
            shutdown = true;
            timer.shutdown();
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
