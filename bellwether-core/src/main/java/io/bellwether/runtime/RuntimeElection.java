package io.bellwether.runtime;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoreClient;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.StoreRequest;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.TimerKey;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's {@link Election}: drives one {@link Elector} on one event-loop thread in real time.
 *
 * <p>Threads, per election:
 *
 * <ul>
 *   <li>the <b>loop</b> runs every elector event (start, messages, timers, peer changes, stop) one at a time
 *       and carries out its effects in order; timers are scheduled on the loop itself. {@link
 *       ElectorContext#persist} writes synchronously on the loop, so durability precedes every later send. The
 *       loop is the transport's I/O thread when the transport offers it ({@link Transport#sharedLoop()}: no
 *       thread hand-off between the socket and the elector), else a thread of the election's own.
 *   <li>the <b>watchdog</b> revokes a leadership whose validity is about to run out, independently of the
 *       loop: a stalled loop must not keep a leader acting. {@link Leadership#revoked()} completes there.
 *   <li>the <b>notifier</b> calls {@link ElectionListener}s, one event at a time, in order; listener events of
 *       one elector event are published together once the event has been handled, except that a new leadership
 *       whose validity was set before its announcement is published at once (with what the event queued before
 *       it).
 *   <li>the <b>store caller</b> (only for algorithms with a {@link io.bellwether.elector.ElectorSpec#storeClient()}, the lease
 *       electors) starts each {@link ElectorContext#storeRequest} on the spec's {@link StoreClient}, so that a
 *       store that blocks despite its contract cannot stall the loop. Each request gets exactly one reply on the
 *       loop, as {@link Elector#onStoreReply}: the store's answer, the request's {@link StoreRequest#failed}
 *       reply for a store error, or that reply with a {@link TimeoutException} once {@link
 *       StoreRequest#timeoutNanos()} has passed (timed on the loop), whichever comes first. Unsolicited store
 *       events reach the elector the same way, as replies to long-polls it keeps outstanding.
 * </ul>
 *
 * Every elector event that throws is logged at ERROR and dropped; the loop carries on. A failed {@link
 * ElectorContext#persist} is fatal: the leadership is revoked, the elector gets no more events and none of
 * its further effects are carried out (it must not act on unpersisted state), and {@link #closed()}
 * completes exceptionally.
 *
 * <p>Thread-safe.
 */
public final class RuntimeElection implements Election {
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);
    private static final long CLOSE_WAIT_SECONDS = 10;
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
    private final List<NodeId> members;
    private final long revocationLeadNanos;
    private final long seed;
    private final RandomGenerator random;
    private final Context context = new Context();
    private final Listener transportListener = new Listener();
    private final ElectionLoop loop;
    private final ScheduledThreadPoolExecutor watchdog;
    private final ExecutorService notifier;
    private final StoreClient storeClient;
    private final ExecutorService storeCaller;
    /** Store calls started and not yet answered; cancelled when the election halts. */
    private final Set<CompletableFuture<StoreReply>> storeCalls = ConcurrentHashMap.newKeySet();

    private volatile Thread notifierThread;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** Completed when a handover started by close() is over: the elector announced DORMANT, or had none to do. */
    private final CompletableFuture<Void> handedOver = new CompletableFuture<>();
    /**
     * A resigning leader's last messages and store requests (its cession or its lease's release, and anything
     * after it), held from its revocation until its listeners have heard of it; null when nothing is held.
     * Loop-confined.
     */
    private List<Runnable> heldEffects;
    /** Completed once held effects have been carried out; replaced when holding starts. */
    private volatile CompletableFuture<Void> heldSent = CompletableFuture.completedFuture(null);

    private Phase phase = Phase.NEW; // guarded by this

    // Observable snapshots, written on the loop.
    private volatile Role role = Role.DORMANT;
    private volatile long epoch;
    private volatile Optional<LeaderView> leaderView = Optional.empty();
    /** What the elector last reported as its successor (read only while a leadership is held). */
    private volatile Optional<NodeId> successor = Optional.empty();

    private volatile RuntimeLeadership leadership;

    // Loop-confined.
    private Elector elector;
    private StoredState stored = StoredState.EMPTY;
    private ElectorState announced = ElectorState.DORMANT;
    private final Map<TimerKey, Timer> timers = new HashMap<>();
    private final List<Runnable> pendingNotifications = new ArrayList<>();
    private boolean validityChanged;
    private boolean hasPendingValidity;
    private long pendingValidUntil;
    private boolean halted;
    private boolean stopping;
    /** Set on the loop when the elector stopped within the handover's event; read after {@link #handedOver}. */
    private volatile boolean stoppedInHandover;

    private final CompletableFuture<Void> handoverEventDone = new CompletableFuture<>();

    private boolean releaseQueued;
    private RuntimeException failure;
    private long leaderlessSinceNanos;
    private final RoleChangeLog roleChanges = new RoleChangeLog(this::logRepeats);
    private String leaderlessSince = "start";

    // Notifier-confined: what listeners have been told so far.
    private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();
    private RuntimeLeadership notifiedLeadership;
    private Optional<LeaderView> notifiedLeader = Optional.empty();

    /** Creates a dormant election; {@link io.bellwether.ElectionBuilder} is the usual way. */
    public RuntimeElection(ElectionSettings settings) {
        this.settings = settings;
        this.group = settings.group();
        this.self = settings.self();
        this.members = List.copyOf(settings.members().keySet()); // sorted: the settings keep a TreeMap
        this.revocationLeadNanos = settings.revocationLead().toNanos();
        this.seed = settings.seed().orElseGet(() -> new SecureRandom().nextLong());
        this.random = new SplittableRandom(seed);
        String name = group + "-" + self;
        this.loop = settings.transport()
                .sharedLoop()
                .map(ElectionLoop::shared)
                .orElseGet(() -> ElectionLoop.ownThread("bellwether-loop-" + name));
        this.watchdog = new ScheduledThreadPoolExecutor(1, threads("bellwether-watchdog-" + name, t -> {}));
        watchdog.setRemoveOnCancelPolicy(true);
        watchdog.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.notifier =
                Executors.newSingleThreadExecutor(threads("bellwether-events-" + name, t -> notifierThread = t));
        this.storeClient = settings.algorithm().storeClient();
        this.storeCaller = storeClient == null
                ? null
                : Executors.newSingleThreadExecutor(threads("bellwether-store-" + name, t -> {}));
    }

    private static ThreadFactory threads(String name, java.util.function.Consumer<Thread> created) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            // The notifier and the store caller rethrow what a task threw, so a listener's Error lands here.
            t.setUncaughtExceptionHandler(FatalErrors::uncaught);
            created.accept(t);
            return t;
        };
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
    public long seed() {
        return seed;
    }

    @Override
    public void start() {
        synchronized (this) {
            if (phase != Phase.NEW) {
                throw new IllegalStateException("election " + group + "/" + self + " cannot start: it is "
                        + phase.name().toLowerCase());
            }
            // Loaded before anything else happens: an unreadable store must fail here, loudly, rather than
            // let this member start from an empty term (it could vote twice in one term).
            StoredState loaded = settings.stateStore().load(group);
            stored = loaded;
            elector = settings.algorithm().create(context);
            leaderlessSinceNanos = System.nanoTime();
            phase = Phase.RUNNING;
        }
        log.debug(
                "group {} node {}: starting {} with seed {}",
                group,
                self,
                settings.algorithm().algorithm(),
                seed);
        // Registering on the loop, in the same task as elector.start(), means every transport event is queued
        // behind the start, and the registration exists before the elector's first send.
        Future<?> started = loop.submit(() -> {
            settings.transport().register(group, self, settings.algorithm().codec(), transportListener);
            dispatch(() -> "start", () -> elector.start());
        });
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
        return role;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public Optional<LeaderView> leader() {
        return leaderView;
    }

    @Override
    public boolean isLeader() {
        RuntimeLeadership l = leadership;
        return l != null && l.isValid();
    }

    @Override
    public Optional<Leadership> leadership() {
        RuntimeLeadership l = leadership;
        return l != null && l.revocationReason() == null ? Optional.of(l) : Optional.empty();
    }

    @Override
    public Optional<NodeId> successor() {
        return leadership().isPresent() ? successor : Optional.empty();
    }

    @Override
    public void addListener(ElectionListener listener) {
        java.util.Objects.requireNonNull(listener, "listener");
        try {
            notifier.execute(() -> {
                listeners.add(listener);
                // Same order as live events: elected before the leader change it causes.
                RuntimeLeadership l = notifiedLeadership;
                if (l != null && l.revocationReason() == null) {
                    call(listener, "elected", () -> listener.elected(l));
                }
                Optional<LeaderView> leader = notifiedLeader;
                if (leader.isPresent()) {
                    call(listener, "leaderChanged", () -> listener.leaderChanged(leader));
                }
            });
        } catch (RejectedExecutionException e) {
            listeners.add(listener); // closed: it will hear nothing
        }
    }

    @Override
    public void removeListener(ElectionListener listener) {
        listeners.remove(listener);
    }

    @Override
    public AutoCloseable runWhileLeader(LeaderTask task) {
        java.util.Objects.requireNonNull(task, "task");
        TaskRunner runner = new TaskRunner(task);
        addListener(runner);
        return runner;
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
            Thread me = Thread.currentThread();
            if (!loop.inLoop() && me != notifierThread) {
                closed.handle((v, e) -> null).join();
            }
            return;
        }
        handOver();
        Future<?> stopped;
        if (stoppedInHandover) {
            stopped = handoverEventDone; // the whole event, the revocation's end included, as for a stop event
        } else {
            stopped = submitStop();
        }
        if (!await(stopped, "stop")) {
            // The loop is stuck; users must stop acting regardless.
            RuntimeLeadership l = leadership;
            if (l != null) {
                l.revoke(RevocationReason.RESIGNED);
            }
        }
        awaitHeldSent();
        settings.transport().unregister(group, self);
        synchronized (this) {
            phase = Phase.CLOSED;
        }
        try {
            notifier.execute(() -> closed.complete(null));
        } catch (RejectedExecutionException e) {
            closed.complete(null);
        }
        shutDownThreads();
    }

    private Future<?> submitStop() {
        try {
            return loop.submit(() -> {
                dispatch(() -> "stop", () -> {
                    stopping = true;
                    elector.stop();
                });
                haltAfterStop();
            });
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Lets the elector hand over while it still leads ({@link Elector#beginStop()}) and waits until it has, on
     * an event rather than a poll: the announcement of DORMANT completes {@link #handedOver}.
     */
    private void handOver() {
        if (loop.inLoop()) {
            return; // closed from inside an event: the loop cannot run the handover while this waits
        }
        try {
            loop.execute(() -> {
                dispatch(() -> "hand over", () -> {
                    stopping = true;
                    if (!elector.beginStop()) {
                        // Nothing to prepare (or a standby that takes over on the cession alone): stop in this
                        // same event rather than in a second one, which would cost the closing thread another
                        // hand-off to this loop before the revocation.
                        stoppedInHandover = true;
                        elector.stop();
                    }
                });
                if (stoppedInHandover) {
                    haltAfterStop();
                }
                if (halted) {
                    handedOver.complete(null);
                }
                handoverEventDone.complete(null);
            });
        } catch (RejectedExecutionException e) {
            return;
        }
        try {
            getUninterruptibly(handedOver, HANDOVER_WAIT_SECONDS);
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

    /** Lets the cession (or release) held by {@link #holdSends()} go out before the transport is left. */
    private void awaitHeldSent() {
        CompletableFuture<Void> sent = heldSent;
        if (sent.isDone()) {
            return;
        }
        if (Thread.currentThread() == notifierThread) {
            // Closed by a listener: the notifier cannot tell the listeners while this waits on it; send now, and
            // the listeners hear of the revocation once this listener returns (Election#close says so).
            try {
                loop.execute(this::releaseHeld);
            } catch (RejectedExecutionException e) {
                releaseHeld();
            }
        }
        try {
            getUninterruptibly(sent, CLOSE_WAIT_SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.warn("group {} node {}: its last messages did not go out within {} s", group, self, CLOSE_WAIT_SECONDS);
        }
    }

    /**
     * A leader that resigns holds what it sends and asks its store from its revocation on (its cession, its
     * lease's release) until the notifier has told every listener of the revocation: by the time a successor can
     * lead, this member's listeners (and the task runner) have heard that it does not, and their {@code revoked}
     * calls have returned. A prepared successor leads as soon as the cession reaches it, so without this hold it
     * could be told it leads before this member's listeners are told it does not.
     */
    private void holdSends() {
        if (heldEffects != null) {
            return;
        }
        heldEffects = new ArrayList<>();
        heldSent = new CompletableFuture<>();
        releaseQueued = false;
    }

    /** Queues the release of held messages behind the notifications queued so far. */
    private void queueRelease() {
        try {
            notifier.execute(this::releaseFromNotifier);
        } catch (RejectedExecutionException e) {
            releaseHeld();
        }
    }

    /** On the notifier, once the revocation has been delivered: the loop sends what was held. */
    private void releaseFromNotifier() {
        try {
            loop.execute(this::releaseHeld);
        } catch (RejectedExecutionException e) {
            releaseHeld();
        }
    }

    private void releaseHeld() {
        List<Runnable> out = heldEffects;
        heldEffects = null;
        releaseQueued = false;
        if (out != null) {
            // Not subject to halted: a stop may have been handled meanwhile, and the cession must still leave.
            for (Runnable effect : out) {
                try {
                    effect.run();
                } catch (RuntimeException e) {
                    log.warn("group {} node {}: a last message or store request failed", group, self, e);
                }
            }
        }
        heldSent.complete(null);
    }

    private void transmit(NodeId to, ElectorMessage message) {
        try {
            settings.transport().send(group, to, message);
        } catch (RuntimeException e) {
            // Best effort by contract; a transport that throws anyway must not break the elector.
            log.debug("group {} node {}: sending {} to {} failed: {}", group, self, message.type(), to, e.toString());
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
    private static void getUninterruptibly(Future<?> future, long seconds) throws ExecutionException, TimeoutException {
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
        watchdog.shutdown();
        notifier.shutdown(); // queued events are still delivered
        if (storeCaller != null) {
            storeCaller.shutdown(); // queued calls (a stopping leader's release) still go out
            // Nobody will read the answers; cancelling lets clients drop long-polls.
            storeCalls.forEach(f -> f.cancel(false));
        }
    }

    // ---------------------------------------------------------------- the loop

    /** @param what names the event in logs; computed only when something is logged */
    private void post(Supplier<String> what, Runnable event) {
        try {
            loop.execute(new Dispatch(what, event));
        } catch (RejectedExecutionException e) {
            log.trace("group {} node {}: dropping {} after close", group, self, what.get());
        }
    }

    private void dispatch(Supplier<String> what, Runnable event) {
        if (halted) {
            return;
        }
        try {
            event.run();
        } catch (RuntimeException e) {
            if (e != failure) {
                // Dropping the event and carrying on is the lesser evil: a crashed loop would leave a leader that
                // no longer heartbeats but whose users still think it leads until the watchdog fires.
                log.error(
                        "group {} node {}: the elector failed handling {}; the event is dropped",
                        group,
                        self,
                        what.get(),
                        e);
            }
        } finally {
            flush();
        }
    }

    private void flush() {
        publishPending();
        if (heldEffects != null && !releaseQueued) {
            releaseQueued = true;
            queueRelease();
        }
        RuntimeLeadership l = leadership;
        if (validityChanged && l != null) {
            l.arm();
        }
        validityChanged = false;
        hasPendingValidity = false;
    }

    private void publishPending() {
        for (Runnable r : pendingNotifications) {
            notifyListeners(r);
        }
        pendingNotifications.clear();
    }

    private void haltAfterStop() {
        if (halted) {
            return;
        }
        halted = true;
        handedOver.complete(null);
        cancelTimers();
        long now = System.nanoTime();
        RuntimeLeadership l = leadership;
        if (l != null) {
            l.revoke(RevocationReason.RESIGNED);
        }
        if (role != Role.DORMANT) {
            logRoleChange(announced.role(), Role.DORMANT, announced.epoch(), ChangeReason.STOPPED, now);
            publishRole(role, Role.DORMANT, announced.epoch());
        }
        if (leaderView.isPresent()) {
            leaderView = Optional.empty();
            emit(() -> deliverLeaderChanged(Optional.empty()));
        }
        flush();
    }

    private void fail(RuntimeException e) {
        failure = e;
        halted = true;
        handedOver.complete(null);
        cancelTimers();
        RuntimeLeadership l = leadership;
        if (l != null) {
            l.revoke(RevocationReason.STATE_STORE_FAILED);
        }
        log.error(
                "group {} node {}: could not persist its state, so it stops taking part in the election (it must"
                        + " not act on state that is not durable); fix the state store and restart this member",
                group,
                self,
                e);
        if (role != Role.DORMANT) {
            publishRole(role, Role.DORMANT, announced.epoch());
        }
        if (leaderView.isPresent()) {
            leaderView = Optional.empty();
            emit(() -> deliverLeaderChanged(Optional.empty()));
        }
        synchronized (this) {
            phase = Phase.CLOSED;
        }
        // After the current event: unregister and stop the threads (not from inside the event), then report.
        try {
            loop.execute(() -> {
                try {
                    settings.transport().unregister(group, self);
                } finally {
                    try {
                        notifier.execute(() -> closed.completeExceptionally(e));
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

    private void cancelTimers() {
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

    private void onAnnounce(ElectorState state, ChangeReason reason) {
        ElectorState prev = announced;
        announced = state;
        boolean roleChanged = prev.role() != state.role() || prev.epoch() != state.epoch();
        if (roleChanged) {
            // What role() and epoch() read changes before any listener can hear of the change: a new leader's
            // listeners are woken in the middle of this event (below), and one that asks role() from elected() must
            // read LEADER, as isLeader() and leadership() already say.
            role = state.role();
            epoch = state.epoch();
        }
        if (stopping && state.role() == Role.DORMANT) {
            handedOver.complete(null);
        }
        long now = System.nanoTime();
        // Likewise what leader() reads: a new leader's elected() may run before this event ends, and must find
        // leader() naming itself. The listeners hear of the change in their usual order, after elected().
        Optional<LeaderView> before = leaderView;
        Optional<LeaderView> after = state.leader()
                .map(id -> before.filter(v -> v.leader().equals(id) && v.epoch() == state.epoch())
                        .orElseGet(() -> new LeaderView(
                                id, Optional.ofNullable(settings.members().get(id)), state.epoch(), now)));
        boolean leaderChanged = !after.equals(before);
        if (leaderChanged) {
            if (before.isPresent()) {
                leaderlessSinceNanos = now;
                leaderlessSince = "losing the previous leader";
            }
            leaderView = after;
        }

        RuntimeLeadership held = leadership;
        boolean stillLeads = state.role() == Role.LEADER && held != null && held.epoch() == state.epoch();
        if (held != null && !stillLeads) {
            leadership = null;
            if (stopping) {
                holdSends();
            }
            held.revoke(stopping ? RevocationReason.RESIGNED : reason.asRevocation());
        }
        if (state.role() == Role.LEADER && !stillLeads) {
            boolean validityKnown = hasPendingValidity;
            RuntimeLeadership fresh = new RuntimeLeadership(
                    state.epoch(),
                    validityKnown ? pendingValidUntil : now,
                    revocationLeadNanos,
                    watchdog,
                    this::onRevoked);
            hasPendingValidity = false;
            leadership = fresh;
            validityChanged = true;
            emit(() -> deliverElected(fresh));
            if (validityKnown) {
                // Published now, with what this event queued before it, not once the event has been handled: the
                // new leader's first heartbeats, sent next, set the whole group to work, and its own listeners
                // would wait for a core behind that (docs/benchmarks.md). Only when the elector set the validity
                // before announcing (the quorum elector does): one that sets it afterwards, in the same event,
                // must not have its listeners see a leadership that is not valid yet.
                publishPending();
            }
        }

        if (leaderChanged) {
            emit(() -> deliverLeaderChanged(after));
            if (after.isPresent() && state.role() != Role.LEADER) {
                log.debug(
                        "group {} node {}: follows {} at epoch {} ({})",
                        group,
                        self,
                        after.get().leader(),
                        state.epoch(),
                        reason);
            }
        }

        if (prev.role() != state.role()) {
            logRoleChange(prev.role(), state.role(), state.epoch(), reason, now);
        } else {
            log.debug("group {} node {}: {} -> {} ({})", group, self, prev, state, reason);
        }
        if (roleChanged) {
            emit(() -> deliverRoleChanged(prev.role(), state.role(), state.epoch()));
        }
    }

    /** Updates what {@link #role()} and {@link #epoch()} read and tells listeners, in order with other events. */
    private void publishRole(Role previous, Role current, long currentEpoch) {
        role = current;
        epoch = currentEpoch;
        emit(() -> deliverRoleChanged(previous, current, currentEpoch));
    }

    private void logRoleChange(Role from, Role to, long epoch, ChangeReason reason, long now) {
        if (!roleChanges.admit(from, to, epoch, reason, now)) {
            return;
        }
        if (to == Role.LEADER) {
            log.info(
                    "group {} node {}: {} -> {} at epoch {} ({}), elected {} ms after {}",
                    group,
                    self,
                    from,
                    to,
                    epoch,
                    reason,
                    TimeUnit.NANOSECONDS.toMillis(now - leaderlessSinceNanos),
                    leaderlessSince);
        } else {
            log.info("group {} node {}: {} -> {} at epoch {} ({})", group, self, from, to, epoch, reason);
        }
    }

    private void logRepeats(String summary) {
        log.info("group {} node {}: {}", group, self, summary);
    }

    private void onRevoked(RuntimeLeadership l, RevocationReason reason) {
        if (reason == RevocationReason.VALIDITY_EXPIRED) {
            log.warn(
                    "group {} node {}: leadership of epoch {} revoked by the watchdog: its validity was not extended"
                            + " in time",
                    group,
                    self,
                    l.epoch());
        }
        emit(() -> deliverRevoked(l, reason));
        if (heldEffects != null && !releaseQueued && loop.inLoop()) {
            // Right behind the revocation: what else this event tells the listeners (role, leader) can follow
            // the cession.
            releaseQueued = true;
            pendingNotifications.add(this::releaseFromNotifier);
        }
    }

    /** Queues a listener event: after the current elector event when on the loop, else at once. */
    private void emit(Runnable notification) {
        if (loop.inLoop()) {
            pendingNotifications.add(notification);
        } else {
            notifyListeners(notification);
        }
    }

    private void notifyListeners(Runnable notification) {
        try {
            notifier.execute(notification);
        } catch (RejectedExecutionException e) {
            log.trace("group {} node {}: listeners are gone; dropping an event", group, self);
        }
    }

    // ---------------------------------------------------------------- the notifier

    private void deliverElected(RuntimeLeadership l) {
        notifiedLeadership = l;
        for (ElectionListener listener : listeners) {
            call(listener, "elected", () -> listener.elected(l));
        }
    }

    private void deliverRevoked(RuntimeLeadership l, RevocationReason reason) {
        if (notifiedLeadership == l) {
            notifiedLeadership = null;
        }
        for (ElectionListener listener : listeners) {
            call(listener, "revoked", () -> listener.revoked(l, reason));
        }
    }

    private void deliverRoleChanged(Role previous, Role current, long currentEpoch) {
        for (ElectionListener listener : listeners) {
            call(listener, "roleChanged", () -> listener.roleChanged(previous, current, currentEpoch));
        }
    }

    private void deliverLeaderChanged(Optional<LeaderView> view) {
        notifiedLeader = view;
        for (ElectionListener listener : listeners) {
            call(listener, "leaderChanged", () -> listener.leaderChanged(view));
        }
    }

    private void call(ElectionListener listener, String event, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("group {} node {}: listener {} threw from {}", group, self, listener, event, e);
        }
    }

    @Override
    public String toString() {
        return "RuntimeElection{group=" + group + ", self=" + self + ", role=" + role + "}";
    }

    // ---------------------------------------------------------------- inner parts

    /**
     * A loop task that dispatches one event. This and {@link Delivery} are classes rather than lambdas because they
     * are made for every message: the quick (C1) compiler that node daemons run with makes a capturing lambda
     * through a call into the VM, a plain object inline.
     */
    private final class Dispatch implements Runnable {
        private final Supplier<String> what;
        private final Runnable event;

        Dispatch(Supplier<String> what, Runnable event) {
            this.what = what;
            this.event = event;
        }

        @Override
        public void run() {
            dispatch(what, event);
        }
    }

    /** A peer's message for the elector, and its name for the log. */
    private final class Delivery implements Runnable, Supplier<String> {
        private final NodeId from;
        private final ElectorMessage message;

        Delivery(NodeId from, ElectorMessage message) {
            this.from = from;
            this.message = message;
        }

        @Override
        public void run() {
            elector.onMessage(from, message);
        }

        @Override
        public String get() {
            return "message " + message.type() + " from " + from;
        }
    }

    /**
     * A timer the elector set: when it is due, and when the loop will next look at it (never later). It is its own
     * wake-up task and log name, so that a firing allocates nothing (a leader's heartbeat timer fires ten times a
     * second; see {@link Dispatch} on lambdas).
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
            dispatch(this, due);
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
                // Pushed back since it was scheduled (see Context.schedule): sleep again until the new deadline.
                arm(key, this, remaining);
                return;
            }
            timers.remove(key);
            elector.onTimer(key);
        }
    }

    /** What the elector may do; every method runs on the loop. */
    private final class Context implements ElectorContext {
        @Override
        public NodeId self() {
            return self;
        }

        @Override
        public List<NodeId> members() {
            return members;
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public RandomGenerator random() {
            return random;
        }

        @Override
        public void send(NodeId to, ElectorMessage message) {
            if (halted) {
                return;
            }
            if (heldEffects != null) {
                heldEffects.add(() -> transmit(to, message));
                return;
            }
            transmit(to, message);
        }

        @Override
        public void schedule(TimerKey key, long delayNanos) {
            if (halted) {
                return;
            }
            long delay = Math.max(0, delayNanos);
            long deadline = System.nanoTime() + delay;
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

        @Override
        public void cancel(TimerKey key) {
            Timer old = timers.remove(key);
            if (old != null) {
                old.future.cancel(false);
            }
        }

        @Override
        public StoredState storedState() {
            return stored;
        }

        @Override
        public void persist(StoredState state) {
            if (halted) {
                throw new io.bellwether.spi.StateStoreException(
                        "election " + group + "/" + self + " is stopped; not persisting " + state);
            }
            try {
                settings.stateStore().save(group, state);
            } catch (RuntimeException e) {
                fail(e);
                throw e;
            }
            stored = state;
        }

        @Override
        public void announce(ElectorState state, ChangeReason reason) {
            if (halted) {
                return;
            }
            onAnnounce(state, reason);
        }

        @Override
        public void successor(Optional<NodeId> member) {
            if (!halted) {
                successor = member;
            }
        }

        @Override
        public void validUntil(long nanos) {
            if (halted) {
                return;
            }
            RuntimeLeadership l = leadership;
            if (l != null && announced.role() == Role.LEADER && l.epoch() == announced.epoch()) {
                l.validUntil(nanos);
                validityChanged = true;
            } else {
                // Electors may set the validity just before announcing the leadership it belongs to.
                hasPendingValidity = true;
                pendingValidUntil = nanos;
            }
        }

        @Override
        public void storeRequest(StoreRequest request) {
            Objects.requireNonNull(request, "request");
            if (halted) {
                return;
            }
            if (storeClient == null) {
                throw new UnsupportedOperationException(
                        "algorithm " + settings.algorithm().algorithm() + " has no store client");
            }
            if (heldEffects != null) {
                heldEffects.add(() -> startStoreRequest(request));
                return;
            }
            startStoreRequest(request);
        }
    }

    /**
     * Starts one store request off the loop and arranges for exactly one reply to be posted back onto it: the
     * answer, the failure reply for a store error, or the failure reply with a timeout.
     */
    private void startStoreRequest(StoreRequest request) {
        AtomicBoolean answered = new AtomicBoolean();
        AtomicReference<CompletableFuture<StoreReply>> call = new AtomicReference<>();
        java.util.function.Consumer<StoreReply> answer = reply -> {
            if (answered.compareAndSet(false, true)) {
                post(() -> "store reply " + reply.getClass().getSimpleName(), () -> elector.onStoreReply(reply));
            }
        };
        long timeoutNanos = Math.max(0, request.timeoutNanos());
        ScheduledFuture<?> timeout;
        try {
            timeout = loop.schedule(
                    () -> {
                        answer.accept(request.failed(new TimeoutException("the store did not answer within "
                                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms")));
                        CompletableFuture<StoreReply> f = call.get();
                        if (f != null) {
                            f.cancel(false);
                        }
                    },
                    timeoutNanos,
                    TimeUnit.NANOSECONDS);
            storeCaller.execute(() -> {
                CompletableFuture<StoreReply> started;
                try {
                    started = storeClient.execute(request).toCompletableFuture();
                } catch (RuntimeException e) {
                    started = CompletableFuture.failedFuture(e);
                }
                CompletableFuture<StoreReply> f = started;
                call.set(f);
                storeCalls.add(f);
                f.whenComplete((reply, error) -> {
                    storeCalls.remove(f);
                    timeout.cancel(false);
                    if (error == null && reply != null) {
                        answer.accept(reply);
                    } else {
                        Throwable cause = error instanceof CompletionException && error.getCause() != null
                                ? error.getCause()
                                : error;
                        answer.accept(request.failed(
                                cause != null ? cause : new IllegalStateException("the store answered null")));
                    }
                });
                if (answered.get() || loop.isShutdown()) {
                    f.cancel(false); // timed out before it started, or nobody is listening any more
                }
            });
        } catch (RejectedExecutionException e) {
            log.trace("group {} node {}: dropping a store request after close", group, self);
        }
    }

    /** Feeds transport events into the loop. */
    private final class Listener implements TransportListener {
        @Override
        public void onMessage(NodeId from, ElectorMessage message) {
            Delivery d = new Delivery(from, message);
            post(d, d);
        }

        @Override
        public void onPeerConnected(NodeId peer) {
            post(() -> "connection of " + peer, () -> elector.onPeerConnected(peer));
        }

        @Override
        public void onPeerDisconnected(NodeId peer) {
            post(() -> "disconnection of " + peer, () -> elector.onPeerDisconnected(peer));
        }

        @Override
        public void onPeerGone(NodeId peer) {
            post(() -> "departure of " + peer, () -> elector.onPeerGone(peer));
        }
    }

    /** Runs a {@link LeaderTask} on its own thread for each leadership, interrupting it on revocation. */
    private final class TaskRunner implements ElectionListener, AutoCloseable {
        private final LeaderTask task;
        private volatile boolean closed;

        TaskRunner(LeaderTask task) {
            this.task = task;
        }

        @Override
        public void elected(Leadership l) {
            if (closed) {
                return;
            }
            Thread thread = new Thread(() -> run(l), "bellwether-task-" + group + "-" + self + "-" + l.epoch());
            thread.setDaemon(true);
            thread.start();
            // Completes on the watchdog thread, so the interrupt does not wait for the loop or the notifier.
            l.revoked().whenComplete((r, e) -> thread.interrupt());
        }

        private void run(Leadership l) {
            if (!l.isValid()) {
                return;
            }
            try {
                task.run(l);
            } catch (InterruptedException e) {
                log.debug("group {} node {}: leader task of epoch {} interrupted", group, self, l.epoch());
            } catch (Exception e) {
                if (l.isValid()) {
                    log.warn("group {} node {}: leader task of epoch {} failed", group, self, l.epoch(), e);
                } else {
                    log.debug(
                            "group {} node {}: leader task of epoch {} ended after revocation: {}",
                            group,
                            self,
                            l.epoch(),
                            e.toString());
                }
            }
        }

        @Override
        public void close() {
            closed = true;
            removeListener(this);
        }
    }
}
