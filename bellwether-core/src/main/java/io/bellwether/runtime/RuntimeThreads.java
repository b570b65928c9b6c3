package io.bellwether.runtime;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every election of the process shares, so that a process running thousands of groups runs a handful
 * of threads for them, not a few per group:
 *
 * <ul>
 *   <li>the <b>timer</b>, one thread: watchdog checks ({@link RuntimeLeadership}) and leader tasks' health checks
 *       ({@link TaskRunner}). What it runs only flips state and queues work elsewhere; it never runs an application's
 *       code, so that one application callback cannot hold up another group's revocation.
 *   <li>the <b>callback pool</b>, at most {@link #CALLBACK_THREADS} threads, started on demand and ended after
 *       {@value #IDLE_SECONDS} s idle: every election's listeners run there, each election's in order through a
 *       {@link SerialExecutor} of its own.
 *   <li>the <b>revocation pool</b>, at most {@link #LOOP_THREADS} threads: {@link io.bellwether.Leadership#revoked()}
 *       completes there (a leader task's interrupt, the callbacks applications register on it), each election's
 *       in order; apart from the listeners, so that listeners that block cannot hold up a revocation.
 *   <li>the <b>loop pool</b>, at most {@link #LOOP_THREADS} threads: the event loops of elections whose transport
 *       offers no loop of its own to share ({@link io.bellwether.spi.Transport#sharedLoop()}; the lease elections,
 *       the in-process network), each a {@link SerialExecutor}, so that each election's events still run one at a
 *       time and in order. Never applications' code.
 *   <li>the <b>store pool</b>, at most {@link #LOOP_THREADS} threads: the lease elections' store callers, which start
 *       each store request off the loop ({@link StoreBridge}), each election's in order.
 *   <li>the <b>state pool</b>, at most {@link #SAVE_THREADS} threads: saves of the elections' state to a store that
 *       blocks (a file forced to disk), each election's in order, so that a flush never holds up a loop.
 * </ul>
 *
 * <p>With a transport that offers its I/O loop, the elections' loops are that loop. Leader tasks' runs and a
 * step-down are threads of their own: an application's task may block for as long as it leads.
 *
 * <p>The threads are daemons, made on first use and kept for the life of the process (the pool's idle threads end).
 */
final class RuntimeThreads {
    /**
     * The most callback threads: enough that a few listeners which block (they should not: see {@link
     * io.bellwether.ElectionListener}) do not stop every group's events, few enough that a burst of thousands of
     * groups' events does not make thousands of threads.
     */
    static final int CALLBACK_THREADS =
            Math.min(32, Math.max(8, 4 * Runtime.getRuntime().availableProcessors()));

    /**
     * The most threads of the loop pool and of the store pool: their tasks are short, but a state store's write
     * (an fdatasync) or a store client that blocks despite its contract holds one.
     */
    static final int LOOP_THREADS =
            Math.min(16, Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    static final int IDLE_SECONDS = 30;

    private static final class Holder {
        static final ScheduledThreadPoolExecutor TIMER = newTimer();
        static final ExecutorService CALLBACKS = newPool(CALLBACK_THREADS, "bellwether-events-");
        static final ExecutorService LOOPS = newPool(LOOP_THREADS, "bellwether-loop-");
        static final ExecutorService STORE_CALLS = newPool(LOOP_THREADS, "bellwether-store-");
        static final ExecutorService STATE_SAVES = newPool(SAVE_THREADS, "bellwether-state-");
        static final ExecutorService REVOCATIONS = newPool(LOOP_THREADS, "bellwether-revoked-");
    }

    private RuntimeThreads() {}

    /** The process's timer thread. Its tasks must be short and must not block or call applications' code. */
    static ScheduledThreadPoolExecutor timer() {
        return Holder.TIMER;
    }

    /** The process's callback pool; use it through a {@link SerialExecutor}. */
    static ExecutorService callbackPool() {
        return Holder.CALLBACKS;
    }

    /** The process's loop pool; use it through a {@link SerialExecutor}. */
    static ExecutorService loopPool() {
        return Holder.LOOPS;
    }

    /** The process's revocation pool; use it through a {@link SerialExecutor}. */
    static ExecutorService revocationPool() {
        return Holder.REVOCATIONS;
    }

    /** The process's store-caller pool; use it through a {@link SerialExecutor}. */
    /**
     * The most threads saving elections' state at once ({@link io.bellwether.spi.StateStore#blocks()}): a save is
     * mostly a wait for the disk, and a file system that is asked for many flushes at once commits them together, so
     * many groups electing at once are not made to wait for one flush after another.
     */
    static final int SAVE_THREADS = 32;

    /** The state pool: elections' saves to a store that blocks, each election's in order. */
    static ExecutorService savePool() {
        return Holder.STATE_SAVES;
    }

    static ExecutorService storePool() {
        return Holder.STORE_CALLS;
    }

    private static ScheduledThreadPoolExecutor newTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemons("bellwether-timer"));
        timer.setRemoveOnCancelPolicy(true); // re-armed watchdogs do not pile up cancelled checks
        return timer;
    }

    private static ExecutorService newPool(int threads, String name) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                threads, threads, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemons(name));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Daemon threads named {@code name} (numbered when it ends in '-'), Errors reported to {@link FatalErrors}. */
    private static ThreadFactory daemons(String name) {
        AtomicInteger made = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name.endsWith("-") ? name + made.incrementAndGet() : name);
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(FatalErrors::uncaught);
            return t;
        };
    }
}
