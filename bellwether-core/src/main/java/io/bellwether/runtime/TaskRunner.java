package io.bellwether.runtime;

import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.TaskEvent;
import io.bellwether.TaskEvent.Kind;
import io.bellwether.TaskHandle;
import io.bellwether.TaskOptions;
import io.bellwether.TaskPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LeaderTask} for each leadership, under its {@link TaskOptions}: what {@link
 * io.bellwether.Election#runWhileLeader} returns. A listener like any other: it hears of each leadership on the
 * notifier, in order with the listeners added before it, and starts the task's thread from there; the task never
 * runs on the election's loop or notifier, so a task that ignores interrupts delays neither.
 *
 * <p>Per leadership, one thread runs the task and, when it ends on its own while the leadership holds, applies the
 * options' policy: restart after a capped, doubling backoff (failures budgeted by {@code max-restarts}), step down,
 * or stay idle. The health check runs on {@code monitor} (the election's watchdog timer): a run that has not called
 * {@link Leadership#heartbeat()} within {@code health-timeout} makes this member step down and is interrupted. Stepping
 * down goes through a {@link Resigner}; the leadership's revocation (whatever its cause) interrupts the task and
 * ends the run. Every step is one {@link TaskEvent}, one log line and one count.
 */
final class TaskRunner implements ElectionListener, TaskHandle {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    /** Makes this member step down for its task. */
    interface Resigner {
        /**
         * Gives up the current leadership with {@code why} and keeps out of elections for {@code holdOff}. Called on
         * the task's thread or the monitor, never on the loop or the notifier.
         */
        void resign(Duration holdOff, RevocationReason why);
    }

    private final String group;
    private final NodeId self;
    private final LeaderTask task;
    private final TaskOptions options;
    private final Consumer<TaskEvent> events;
    private final Resigner resigner;
    private final ElectionTimer monitor;
    private final Consumer<ElectionListener> onClose;
    private final AtomicLongArray counts = new AtomicLongArray(Kind.values().length);
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    /**
     * @param events where each event goes (the election's listeners)
     * @param resigner steps down for the task
     * @param monitor runs the health checks (the election's watchdog timer); not the loop
     * @param onClose removes this runner, given to it, from the election's listeners
     */
    TaskRunner(
            String group,
            NodeId self,
            LeaderTask task,
            TaskOptions options,
            Consumer<TaskEvent> events,
            Resigner resigner,
            ElectionTimer monitor,
            Consumer<ElectionListener> onClose) {
        this.group = group;
        this.self = self;
        this.task = task;
        this.options = options;
        this.events = events;
        this.resigner = resigner;
        this.monitor = monitor;
        this.onClose = onClose;
    }

    @Override
    public String name() {
        return options.name();
    }

    @Override
    public long count(Kind kind) {
        return counts.get(kind.ordinal());
    }

    @Override
    public void elected(Leadership l) {
        if (closed.isDone()) {
            return;
        }
        Run run = new Run(l);
        Thread thread = new Thread(
                () -> {
                    Mdc.put(group, self);
                    run.runWhileValid();
                },
                "bellwether-task-" + group + "-" + self + "-" + options.name() + "-" + l.epoch());
        thread.setDaemon(true);
        run.thread = thread;
        thread.start();
        // Completes on the revocation queue, so the interrupt does not wait for the loop or the listeners.
        l.revoked().whenComplete((r, e) -> run.leadershipEnded());
    }

    /** Stops running the task on future leaderships and stops restarting it; a run in progress runs on. */
    @Override
    public void close() {
        closed.complete(null);
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "TaskRunner{" + options.name() + "}";
    }

    /** One leadership's runs of the task; also the {@link Leadership} the task sees, which takes heartbeats. */
    private final class Run implements Leadership {
        private final Leadership leadership;
        private final CompletableFuture<RevocationReason> ended;
        private final AtomicBoolean steppingDown = new AtomicBoolean();
        private volatile Thread thread;
        private volatile long lastBeatNanos;
        /** The number of the run in progress; 0 when none is. */
        private volatile int running;

        private ScheduledFuture<?> healthCheck; // guarded by this

        Run(Leadership leadership) {
            this.leadership = leadership;
            this.ended = leadership.revoked().toCompletableFuture();
        }

        void runWhileValid() {
            int run = 0;
            int failures = 0;
            Duration backoff = options.initialBackoff();
            while (true) {
                if (!holds()) {
                    if (run > 0) {
                        stopped(run);
                    }
                    return;
                }
                run++;
                Throwable failure = started(run);
                if (!holds()) {
                    stopped(run);
                    return;
                }
                Thread.interrupted(); // a stray interrupt of the ended run must not cut the next short
                TaskPolicy policy;
                String why;
                if (failure != null) {
                    failures++;
                    policy = options.onFailure();
                    why = "on-failure " + policy;
                    if (policy == TaskPolicy.RESTART && failures > options.maxRestarts()) {
                        policy = TaskPolicy.RESIGN;
                        why = "failure " + failures + " of this leadership, max-restarts " + options.maxRestarts();
                    }
                    emit(Kind.FAILED, run, failure, Duration.ZERO, null, why);
                } else {
                    policy = options.onReturn();
                    why = "on-return " + policy;
                    emit(Kind.RETURNED, run, null, Duration.ZERO, null, why);
                }
                if (policy == TaskPolicy.RESTART && closed.isDone()) {
                    policy = TaskPolicy.STAY;
                    why = "its handle is closed";
                }
                switch (policy) {
                    case STAY -> {
                        emit(Kind.IDLE, run, null, Duration.ZERO, null, why);
                        return;
                    }
                    case RESIGN -> {
                        stepDown(
                                run,
                                failure != null ? RevocationReason.TASK_UNHEALTHY : RevocationReason.RESIGNED,
                                why);
                        return;
                    }
                    case RESTART -> {
                        String restart = failure != null
                                ? "restart " + failures + " of at most " + options.maxRestarts()
                                : "restart after a return";
                        emit(Kind.RESTARTING, run, null, backoff, null, restart);
                        if (!waitOut(backoff)) {
                            if (holds()) {
                                emit(Kind.IDLE, run, null, Duration.ZERO, null, "its handle is closed");
                            } else {
                                stopped(run);
                            }
                            return;
                        }
                        backoff = min(backoff.multipliedBy(2), options.maxBackoff());
                    }
                }
            }
        }

        /** Runs the task once; returns what it threw, or null when it returned. */
        private Throwable started(int run) {
            lastBeatNanos = System.nanoTime();
            running = run;
            emit(Kind.STARTED, run, null, Duration.ZERO, null, run == 1 ? "elected" : "restarted");
            armHealth(run, options.healthTimeout().map(Duration::toNanos).orElse(0L));
            try {
                task.run(this);
                return null;
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                return e;
            } finally {
                running = 0;
                disarmHealth();
            }
        }

        /** Whether this leadership still holds and the runner has not stepped down from it. */
        private boolean holds() {
            return leadership.isValid() && !steppingDown.get();
        }

        /** Waits out a backoff; false if the leadership ended or the handle was closed meanwhile. */
        private boolean waitOut(Duration backoff) {
            try {
                CompletableFuture.anyOf(ended, closed).get(backoff.toNanos(), TimeUnit.NANOSECONDS);
                return false;
            } catch (TimeoutException e) {
                return holds() && !closed.isDone();
            } catch (InterruptedException e) {
                return holds() && !closed.isDone();
            } catch (ExecutionException e) {
                return false; // never completed exceptionally
            }
        }

        private void stopped(int run) {
            // The reason is set before revoked() completes (and before the interrupt that may have woken this thread).
            RevocationReason reason =
                    leadership instanceof RuntimeLeadership r ? r.revocationReason() : ended.getNow(null);
            emit(
                    Kind.STOPPED,
                    run,
                    null,
                    Duration.ZERO,
                    reason,
                    reason != null ? "its leadership ended: " + reason : "its leadership ended");
        }

        private void stepDown(int run, RevocationReason reason, String why) {
            if (!leadership.isValid() || !steppingDown.compareAndSet(false, true)) {
                return; // already ended: nothing to give up
            }
            emit(Kind.RESIGNED, run, null, Duration.ZERO, reason, why);
            resigner.resign(options.resignHoldOff(), reason);
            Thread t = thread;
            if (t != Thread.currentThread()) {
                t.interrupt(); // the health check: the task must stop whatever the resignation does
            }
        }

        /** On the revocation queue, once the leadership is revoked: the task is interrupted, no backoff outlives it. */
        void leadershipEnded() {
            disarmHealth();
            thread.interrupt();
        }

        // ---------------------------------------------------------------- health, on the monitor

        private synchronized void armHealth(int run, long timeoutNanos) {
            if (timeoutNanos <= 0) {
                return;
            }
            long delay = Math.max(0, lastBeatNanos + timeoutNanos - System.nanoTime());
            try {
                healthCheck = monitor.schedule(() -> checkHealth(run, timeoutNanos), delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                healthCheck = null; // the election is closing; the revocation ends the run
            }
        }

        private synchronized void disarmHealth() {
            if (healthCheck != null) {
                healthCheck.cancel(false);
                healthCheck = null;
            }
        }

        private void checkHealth(int run, long timeoutNanos) {
            if (running != run || !holds()) {
                return;
            }
            long silentNanos = System.nanoTime() - lastBeatNanos;
            if (silentNanos < timeoutNanos) {
                synchronized (this) {
                    if (running == run) {
                        armHealth(run, timeoutNanos); // beaten since: check again a timeout after that beat
                    }
                }
                return;
            }
            String why = "no heartbeat for " + TimeUnit.NANOSECONDS.toMillis(silentNanos) + " ms, health-timeout "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms";
            emit(Kind.UNHEALTHY, run, null, Duration.ZERO, null, why);
            stepDown(run, RevocationReason.TASK_UNHEALTHY, "unhealthy: " + why);
        }

        private void emit(
                Kind kind, int run, Throwable failure, Duration backoff, RevocationReason reason, String why) {
            counts.incrementAndGet(kind.ordinal());
            logEvent(kind, leadership.epoch(), run, failure, backoff, why);
            events.accept(new TaskEvent(
                    options.name(),
                    kind,
                    leadership.epoch(),
                    run,
                    Optional.ofNullable(failure),
                    backoff,
                    Optional.ofNullable(reason)));
        }

        // ---------------------------------------------------------------- the task's view of its leadership

        @Override
        public long epoch() {
            return leadership.epoch();
        }

        @Override
        public long validUntilNanos() {
            return leadership.validUntilNanos();
        }

        @Override
        public boolean isValid() {
            return leadership.isValid();
        }

        @Override
        public void checkValid() {
            leadership.checkValid();
        }

        @Override
        public CompletionStage<RevocationReason> revoked() {
            return leadership.revoked();
        }

        @Override
        public void heartbeat() {
            lastBeatNanos = System.nanoTime();
        }

        @Override
        public String toString() {
            return leadership.toString();
        }
    }

    /** One line per event, with its reason. */
    private void logEvent(Kind kind, long epoch, int run, Throwable failure, Duration backoff, String why) {
        String name = options.name();
        switch (kind) {
            case STARTED -> {
                if (run == 1) {
                    log.debug(
                            "group {} node {}: leader task {} started at epoch {} ({})", group, self, name, epoch, why);
                } else {
                    log.info(
                            "group {} node {}: leader task {} restarted at epoch {} (run {})",
                            group,
                            self,
                            name,
                            epoch,
                            run);
                }
            }
            case RETURNED -> log.info(
                    "group {} node {}: leader task {} returned while leading at epoch {} (run {}; {})",
                    group,
                    self,
                    name,
                    epoch,
                    run,
                    why);
            case FAILED -> log.warn(
                    "group {} node {}: leader task {} failed while leading at epoch {} (run {}; {})",
                    group,
                    self,
                    name,
                    epoch,
                    run,
                    why,
                    failure);
            case RESTARTING -> log.info(
                    "group {} node {}: leader task {} restarts in {} ms at epoch {} ({})",
                    group,
                    self,
                    name,
                    backoff.toMillis(),
                    epoch,
                    why);
            case IDLE -> log.info(
                    "group {} node {}: leader task {} is not running; leading on at epoch {} until the leadership ends"
                            + " ({})",
                    group,
                    self,
                    name,
                    epoch,
                    why);
            case UNHEALTHY -> log.warn(
                    "group {} node {}: leader task {} is unhealthy at epoch {} (run {}; {})",
                    group,
                    self,
                    name,
                    epoch,
                    run,
                    why);
            case RESIGNED -> log.warn(
                    "group {} node {}: leader task {} makes this member step down from epoch {} for {} ms ({})",
                    group,
                    self,
                    name,
                    epoch,
                    options.resignHoldOff().toMillis(),
                    why);
            case STOPPED -> log.debug(
                    "group {} node {}: leader task {} stopped at epoch {} (run {}; {})",
                    group,
                    self,
                    name,
                    epoch,
                    run,
                    why);
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
