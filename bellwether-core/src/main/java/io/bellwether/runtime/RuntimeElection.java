package io.bellwether.runtime;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.TaskHandle;
import io.bellwether.TaskOptions;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.spi.Transport;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's {@link Election}: drives one {@link Elector} on one event-loop thread in real time. This class is
 * the lifecycle (start, close, a failure that closes it) and the public view; the work is done by its parts, each
 * on threads of its own kind (shared by every election of the process: {@link RuntimeThreads}):
 *
 * <ul>
 *   <li>the <b>loop</b> ({@link ElectorDriver}, {@link ElectorTimers}) runs every elector event (start, messages,
 *       timers, peer changes, stop) one at a time and carries out its effects in order; timers are scheduled on
 *       the loop itself. {@link ElectorContext#persist} to a store that blocks saves off the loop (the state
 *       pool), and every later send and announced leadership waits for it, so durability precedes them. The loop is the transport's I/O thread when the transport offers it ({@link
 *       Transport#sharedLoop()}: no thread hand-off between the socket and the elector), else the election's queue
 *       on the process's loop pool.
 *   <li>the <b>watchdog</b> ({@link LeadershipTracker}, {@link RuntimeLeadership}) revokes a leadership whose
 *       validity is about to run out, independently of the loop: a stalled loop must not keep a leader acting.
 *       {@link Leadership#revoked()} completes on the election's queue on the revocation pool.
 *   <li>the <b>notifier</b> ({@link ListenerBus}) calls {@link ElectionListener}s, one event at a time, in order;
 *       listener events of one elector event are published together once the event has been handled, except that
 *       a new leadership whose validity was set before its announcement is published at once (with what the event
 *       queued before it). A resigning leader's last sends wait for it ({@link HeldSends}).
 *   <li>the <b>store caller</b> ({@link StoreBridge}; only for algorithms with a {@link
 *       io.bellwether.elector.ElectorSpec#storeClient(String)}, the lease electors) starts each store request off the
 *       loop, and each gets exactly one reply on the loop.
 * </ul>
 *
 * Every elector event that throws is logged at ERROR and dropped; the loop carries on. A failed {@link
 * ElectorContext#persist} is fatal: the leadership is revoked, the elector gets no more events and none of its
 * further effects are carried out (it must not act on unpersisted state), and {@link #closed()} completes
 * exceptionally.
 *
 * <p>Made by {@link ElectionSettings#newElection()} for {@link io.bellwether.ElectionBuilder}. Thread-safe.
 */
final class RuntimeElection implements Election {
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);
    static final long CLOSE_WAIT_SECONDS = 10;
    /**
     * How long close() waits for an elector's handover ({@link Elector#beginStop()}); electors bound their own
     * (the quorum elector by its proposal timeout), this only covers one that does not.
     */
    private static final long HANDOVER_WAIT_SECONDS = 5;

    private enum Phase {
        NEW,
        RUNNING,
        CLOSING,
        CLOSED
    }

    private final ElectionSettings settings;
    private final String group;
    private final NodeId self;
    private final long seed;
    private final ElectionLoop loop;
    private final ListenerBus bus;
    private final HeldSends held;
    private final LeadershipTracker tracker;
    private final ElectorDriver driver;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private Phase phase = Phase.NEW; // guarded by this

    /** Creates a dormant election. */
    RuntimeElection(ElectionSettings settings) {
        this.settings = settings;
        this.group = settings.group();
        this.self = settings.self();
        this.seed = settings.seed().orElseGet(() -> new SecureRandom().nextLong());
        this.loop = settings.transport()
                .sharedLoop()
                .map(executor -> ElectionLoop.shared(executor, group, self))
                .orElseGet(() -> ElectionLoop.pooled(group, self));
        this.bus = new ListenerBus(group, self, loop, settings.listenerExecutor());
        this.held = new HeldSends(group, self, loop, bus);
        this.tracker = new LeadershipTracker(settings, bus, held);
        this.driver = new ElectorDriver(settings, new SplittableRandom(seed), loop, tracker, bus, held, this::failed);
        tracker.onValidityExpired(epoch -> {
            try {
                loop.execute(() -> driver.validityExpired(epoch));
            } catch (RejectedExecutionException e) {
                // closed meanwhile: the elector is stopping anyway
            }
        });
    }

    @Override
    public NodeId self() {
        return self;
    }

    @Override
    public String group() {
        return group;
    }

    /** The seed of the elector's random source, to reproduce a run. */
    long seed() {
        return seed;
    }

    @Override
    public void start() {
        synchronized (this) {
            if (phase != Phase.NEW) {
                throw new IllegalStateException("election " + group + "/" + self + " cannot start: it is "
                        + phase.name().toLowerCase());
            }
            // Loaded before anything else happens: an unreadable store must fail here, loudly.
            driver.create();
            tracker.started();
            phase = Phase.RUNNING;
        }
        log.debug(
                "group {} node {}: starting {} with seed {}",
                group,
                self,
                settings.algorithm().algorithm(),
                seed);
        Future<?> started = loop.submit(driver::start);
        try {
            started.get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            shutDownThreads();
            synchronized (this) {
                phase = Phase.CLOSED;
            }
            closed.completeExceptionally(e.getCause());
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("election " + group + "/" + self + " could not start", e.getCause());
        } catch (TimeoutException e) {
            log.warn(
                    "group {} node {}: the elector's start did not finish within {} s; its event loop seems stuck",
                    group,
                    self,
                    CLOSE_WAIT_SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Role role() {
        return tracker.role();
    }

    @Override
    public long epoch() {
        return tracker.epoch();
    }

    @Override
    public Optional<LeaderView> leader() {
        return tracker.leader();
    }

    @Override
    public boolean isLeader() {
        return tracker.isLeader();
    }

    @Override
    public Optional<Leadership> leadership() {
        return tracker.leadership();
    }

    @Override
    public Optional<NodeId> successor() {
        return tracker.successor();
    }

    @Override
    public void addListener(ElectionListener listener) {
        bus.addListener(listener);
    }

    @Override
    public void removeListener(ElectionListener listener) {
        bus.removeListener(listener);
    }

    @Override
    public TaskHandle runWhileLeader(LeaderTask task, TaskOptions options) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(options, "options");
        TaskRunner runner = new TaskRunner(
                group,
                self,
                task,
                options,
                bus::taskEvent,
                this::resignForTask,
                tracker.watchdog(),
                bus::removeListener);
        bus.addRuntimeListener(runner);
        return runner;
    }

    /**
     * A leader task's policy steps this member down ({@link TaskRunner.Resigner}): revokes the leadership here at
     * once with {@code why}, then {@link #resign(Duration, RevocationReason)} on a thread of its own, since the
     * resignation waits for the revocation's callbacks and the listeners, which run on the threads that may call
     * this (the task's, the watchdog's). An
     * algorithm that cannot resign and stay a member has its leadership revoked here only: the task stops and the
     * listeners hear {@code why}, and the member leads on, idle, until it loses the leadership.
     */
    private void resignForTask(Duration holdOff, RevocationReason why) {
        Optional<Leadership> held = tracker.leadership();
        if (held.isEmpty()) {
            return;
        }
        if (settings.algorithm().resignHoldOff().isEmpty()) {
            log.warn(
                    "group {} node {}: leadership of epoch {} revoked for its leader task ({}); algorithm {} cannot"
                            + " step down and stay a member, so it leads on, idle, until it loses the leadership",
                    group,
                    self,
                    held.get().epoch(),
                    why,
                    settings.algorithm().algorithm());
            tracker.revoke(why);
            return;
        }
        tracker.revoke(why); // at once, as the watchdog would: the task stops before the hand-over begins
        Thread stepDown = new Thread(
                () -> {
                    Mdc.put(group, self);
                    try {
                        resign(holdOff, why);
                    } catch (RuntimeException e) {
                        log.warn("group {} node {}: the leader task's step-down failed", group, self, e);
                        tracker.revoke(why);
                    }
                },
                "bellwether-step-down-" + group + "-" + self);
        stepDown.setDaemon(true);
        stepDown.start();
    }

    @Override
    public void close() {
        boolean wait;
        synchronized (this) {
            switch (phase) {
                case NEW -> {
                    phase = Phase.CLOSED;
                    shutDownThreads();
                    closed.complete(null);
                    return;
                }
                case RUNNING -> {
                    phase = Phase.CLOSING;
                    wait = false;
                }
                default -> wait = true;
            }
        }
        if (wait) {
            // Someone else is closing; wait for them unless this is one of our own threads.
            if (!loop.inLoop() && !bus.onNotifier()) {
                closed.handle((v, e) -> null).join();
            }
            return;
        }
        handOver();
        Future<?> stopped;
        if (driver.stoppedInHandover()) {
            stopped = driver.handoverEventDone(); // the whole event, the revocation's end included, as for a stop
        } else {
            stopped = submitStop();
        }
        if (!await(stopped, "stop")) {
            // The loop is stuck; users must stop acting regardless.
            tracker.revoke(RevocationReason.RESIGNED);
        }
        // What the elector sent after a save (a cession after its last term) leaves once the save has returned.
        await(driver.savesDone(), "state saves");
        held.awaitSent();
        settings.transport().unregister(group, self);
        synchronized (this) {
            phase = Phase.CLOSED;
        }
        try {
            bus.execute(() -> closed.complete(null));
        } catch (RejectedExecutionException e) {
            closed.complete(null);
        }
        shutDownThreads();
    }

    // ---------------------------------------------------------------- resigning and staying a member

    /** The longest hold-off {@link #resign(Duration)} accepts. */
    static final Duration MAX_RESIGN_HOLD_OFF = Duration.ofHours(24);

    @Override
    public void resign() {
        resign(defaultResignHoldOff(), RevocationReason.RESIGNED);
    }

    @Override
    public void resign(Duration holdOff) {
        resign(holdOff, RevocationReason.RESIGNED);
    }

    /**
     * {@link Election#resign(Duration)}, with the reason this member's listeners and its {@link Leadership} are
     * told: {@link RevocationReason#RESIGNED} when the application asks, {@link RevocationReason#TASK_UNHEALTHY} when
     * the task runner does. The hold-off is checked first, then whether the algorithm can resign.
     */
    void resign(Duration holdOff, RevocationReason reason) {
        Objects.requireNonNull(holdOff, "holdOff");
        Objects.requireNonNull(reason, "reason");
        if (holdOff.isNegative() || holdOff.compareTo(MAX_RESIGN_HOLD_OFF) > 0) {
            throw new IllegalArgumentException("resign holdOff " + holdOff + " is out of range: allowed "
                    + Duration.ZERO + " to " + MAX_RESIGN_HOLD_OFF + " (0 to 24 hours)");
        }
        defaultResignHoldOff(); // the algorithm must be able to resign
        synchronized (this) {
            if (phase == Phase.NEW) {
                throw new IllegalStateException("election " + group + "/" + self + " cannot resign: it is not started");
            }
            if (phase != Phase.RUNNING) {
                return; // closing: its leadership is being given up anyway
            }
        }
        long holdOffNanos = holdOff.toNanos();
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            loop.execute(() -> driver.resign(holdOffNanos, reason, done));
        } catch (RejectedExecutionException e) {
            return; // closed meanwhile
        }
        if (loop.inLoop()) {
            return; // from inside an event: the loop runs the resignation after it
        }
        try {
            getUninterruptibly(done, HANDOVER_WAIT_SECONDS);
        } catch (TimeoutException e) {
            log.warn(
                    "group {} node {}: the resignation's handover did not end within {} s",
                    group,
                    self,
                    HANDOVER_WAIT_SECONDS);
        } catch (ExecutionException e) {
            // never completed exceptionally
        }
        await(driver.savesDone(), "state saves");
        held.awaitSent();
    }

    private Duration defaultResignHoldOff() {
        return settings.algorithm()
                .resignHoldOff()
                .orElseThrow(() -> new UnsupportedOperationException(
                        "algorithm " + settings.algorithm().algorithm() + " cannot resign and stay a member"));
    }

    private Future<?> submitStop() {
        try {
            return loop.submit(driver::stop);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Lets the elector hand over while it still leads ({@link Elector#beginStop()}) and waits until it has, on an
     * event rather than a poll: the announcement of DORMANT completes the tracker's handover.
     */
    private void handOver() {
        if (loop.inLoop()) {
            return; // closed from inside an event: the loop cannot run the handover while this waits
        }
        try {
            loop.execute(driver::handOver);
        } catch (RejectedExecutionException e) {
            return;
        }
        try {
            getUninterruptibly(tracker.handedOver(), HANDOVER_WAIT_SECONDS);
        } catch (TimeoutException e) {
            log.warn(
                    "group {} node {}: the handover did not end within {} s; stopping",
                    group,
                    self,
                    HANDOVER_WAIT_SECONDS);
        } catch (ExecutionException e) {
            // never completed exceptionally
        }
    }

    /**
     * After the driver halted the elector for a failure to persist (on the loop, inside the failing event): the
     * election is closed, and once the current event is over it unregisters, stops its threads (not from inside the
     * event) and reports the failure through {@link #closed()}.
     */
    private void failed(RuntimeException e) {
        synchronized (this) {
            phase = Phase.CLOSED;
        }
        try {
            loop.execute(() -> {
                try {
                    settings.transport().unregister(group, self);
                } finally {
                    try {
                        bus.execute(() -> closed.completeExceptionally(e));
                    } catch (RejectedExecutionException gone) {
                        closed.completeExceptionally(e);
                    }
                    shutDownThreads();
                }
            });
        } catch (RejectedExecutionException alreadyClosing) {
            closed.completeExceptionally(e); // close() is running and unregisters itself
        }
    }

    @Override
    public CompletionStage<Void> probeLoop() {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        try {
            loop.execute(() -> answered.complete(null));
        } catch (RejectedExecutionException e) {
            answered.completeExceptionally(new IllegalStateException("the election is closed"));
        }
        return answered;
    }

    @Override
    public CompletionStage<Void> closed() {
        return closed.minimalCompletionStage();
    }

    private boolean await(Future<?> future, String what) {
        if (loop.inLoop()) {
            return true;
        }
        try {
            getUninterruptibly(future, CLOSE_WAIT_SECONDS);
            return true;
        } catch (TimeoutException e) {
            log.warn(
                    "group {} node {}: the elector's {} did not finish within {} s; its event loop seems stuck",
                    group,
                    self,
                    what,
                    CLOSE_WAIT_SECONDS);
        } catch (ExecutionException e) {
            log.error("group {} node {}: {} failed", group, self, what, e.getCause());
        }
        return false;
    }

    /**
     * {@link Future#get(long, TimeUnit)} that an interrupt does not cut short; the interrupt is kept for the caller.
     * close() must not skip its waits when the closing thread is interrupted: a leader task that closes its
     * election is interrupted by the very revocation that close() causes, and cutting the waits short would leave
     * the group before the cession has gone out.
     */
    static void getUninterruptibly(Future<?> future, long seconds) throws ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void shutDownThreads() {
        loop.shutdown();
        tracker.shutdown(); // the watchdog
        bus.shutdown(); // queued events are still delivered
        driver.shutdownStore();
    }

    @Override
    public String toString() {
        return "RuntimeElection{group=" + group + ", self=" + self + ", role=" + tracker.role() + "}";
    }
}
