package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
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
import io.bellwether.spi.StateStoreException;
import io.bellwether.spi.TransportListener;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one {@link Elector} on its election's <b>loop</b>: runs every elector event (start, messages, timers, peer
 * changes, store replies, handover, stop) one at a time and carries out its effects in order, through the {@link
 * ElectorContext} it gives the elector. {@link ElectorContext#persist} to an in-memory store writes on the loop; to
 * a store that {@linkplain io.bellwether.spi.StateStore#blocks() blocks} it saves off the loop and holds every later
 * send, store request and announced leadership until the save has returned. Either way durability precedes them.
 *
 * <p>Every elector event that throws is logged at ERROR and dropped; the loop carries on. A failed {@link
 * ElectorContext#persist} is fatal: the leadership is revoked, the elector gets no more events and none of its
 * further effects are carried out (it must not act on unpersisted state), and the election is told to close.
 *
 * <p>{@code Dispatch}, {@code Delivery} and the timers are classes rather than lambdas because they are made for
 * every message or firing: the quick (C1) compiler that node daemons run with makes a capturing lambda through a
 * call into the VM, a plain object inline.
 */
final class ElectorDriver {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final ElectionSettings settings;
    private final String group;
    private final NodeId self;
    private final List<NodeId> members;
    private final RandomGenerator random;
    private final ElectionLoop loop;
    private final LeadershipTracker tracker;
    private final ListenerBus bus;
    private final HeldSends held;
    /** Null when the algorithm has no {@link StoreClient}. */
    private final StoreBridge store;
    /** Told, on the loop, when persisting failed and the elector was halted: the election closes. */
    private final Consumer<RuntimeException> onFailure;

    private final Context context = new Context();
    private final Listener transportListener = new Listener();
    private final ElectorTimers timers;

    // Loop-confined.
    private Elector elector;
    private StoredState stored = StoredState.EMPTY;

    /**
     * Where saves run when the state store {@linkplain io.bellwether.spi.StateStore#blocks() blocks}: off the loop,
     * this election's in order; null when they run on the loop.
     */
    private final SerialExecutor saves;
    /** Saves handed to {@link #saves} that have not returned yet. Loop-confined. */
    private int savesInFlight;
    /**
     * Whether a leadership's announcement waits for a save, and with it what the elector tells the tracker after
     * it. Loop-confined; cleared when the saves return.
     */
    private boolean trackerHeld;
    /**
     * The validity the elector gave in the current event, if it told the tracker at once (then {@link
     * #validityGivenThisEvent}). A leadership announced later in the same event but held back for a save takes it
     * along. Loop-confined.
     */
    private long validityThisEvent;

    private boolean validityGivenThisEvent;
    /**
     * What the elector sent (or asked its store) after a save that has not returned yet, in order: carried out once
     * every such save has. Loop-confined; null when nothing waits.
     */
    private List<Runnable> afterSaves;
    /** Completed when no save is in flight and what waited for them has been carried out. */
    private volatile CompletableFuture<Void> savesDone = CompletableFuture.completedFuture(null);

    private boolean halted;
    private RuntimeException failure;

    /** Set on the loop when the elector stopped within the handover's event; read after the handover ended. */
    private volatile boolean stoppedInHandover;

    private final CompletableFuture<Void> handoverEventDone = new CompletableFuture<>();

    ElectorDriver(
            ElectionSettings settings,
            RandomGenerator random,
            ElectionLoop loop,
            LeadershipTracker tracker,
            ListenerBus bus,
            HeldSends held,
            Consumer<RuntimeException> onFailure) {
        this.settings = settings;
        this.group = settings.group();
        this.self = settings.self();
        this.members = List.copyOf(settings.members()); // sorted: the settings keep a sorted set
        this.random = random;
        this.loop = loop;
        this.tracker = tracker;
        this.bus = bus;
        this.held = held;
        this.onFailure = onFailure;
        this.timers = new ElectorTimers(loop, this::dispatch, key -> elector.onTimer(key));
        StoreClient client = settings.algorithm().storeClient(group);
        this.store = client == null ? null : new StoreBridge(group, self, client, loop, this::storeReply);
        this.saves = settings.stateStore().blocks()
                ? new SerialExecutor(RuntimeThreads.savePool(), group, self, "state saves")
                : null;
    }

    /**
     * Completes once every save handed off so far has returned and what the elector sent after them has gone out (or
     * been dropped, when a save failed); at once when none is in flight. The closing thread waits for it, so that a
     * stopping member's last messages (a cession) leave before its transport registration ends.
     */
    CompletableFuture<Void> savesDone() {
        return savesDone;
    }

    /** Saves {@code state} off the loop; what the elector sends from now on waits for it. On the loop. */
    private void saveOffLoop(StoredState state) {
        if (savesInFlight++ == 0) {
            savesDone = new CompletableFuture<>();
            afterSaves = new java.util.ArrayList<>();
        }
        CompletableFuture<Void> done = savesDone;
        saves.execute(() -> {
            Throwable thrown = null;
            try {
                settings.stateStore().save(group, state);
            } catch (Throwable t) {
                thrown = t;
            }
            // Whatever happened, the loop hears of it: a save that never reports back would hold every later send.
            RuntimeException failed = thrown == null
                    ? null
                    : thrown instanceof RuntimeException r
                            ? r
                            : new StateStoreException("saving the state of " + group + " failed: " + thrown, thrown);
            try {
                loop.execute(() -> saved(failed));
            } catch (RejectedExecutionException closed) {
                // A close that gave up waiting (a disk slower than its wait) ends up here: what waited is not sent.
                log.warn(
                        "group {} node {}: the election closed before its save of {} returned; what it sent after the"
                                + " save is dropped",
                        group,
                        self,
                        state);
                done.complete(null);
            }
            if (thrown instanceof Error fatal) {
                throw fatal; // to the pool's handler of fatal errors, after the loop has been told
            }
        });
    }

    /** A save handed off has returned ({@code error} null) or failed. On the loop. */
    private void saved(RuntimeException error) {
        savesInFlight--;
        if (error != null && failure == null) {
            afterSaves = null; // nothing that depends on a state that is not durable goes out
            fail(error);
            flush();
        }
        if (savesInFlight > 0) {
            return;
        }
        List<Runnable> effects = afterSaves;
        afterSaves = null;
        trackerHeld = false;
        try {
            if (effects != null && failure == null && !effects.isEmpty()) {
                for (Runnable effect : effects) {
                    try {
                        effect.run();
                    } catch (RuntimeException e) {
                        // As an event's failure in dispatch: logged, and the rest still carried out.
                        log.error("group {} node {}: carrying out what waited for a save failed", group, self, e);
                    }
                }
                flush(); // a hold that took some of them queues its release
            }
        } finally {
            savesDone.complete(null);
        }
    }

    /**
     * Loads the persisted state and creates the elector, on the starting thread before the loop runs anything. An
     * unreadable store fails here, loudly, rather than let this member start from an empty term (it could vote
     * twice in one term).
     */
    void create() {
        StoredState loaded = settings.stateStore().load(group);
        stored = loaded;
        elector = settings.algorithm().create(context);
    }

    /**
     * The start event, on the loop. Registering in the same task as the elector's start means every transport event
     * is queued behind the start, and the registration exists before the elector's first send.
     */
    void start() {
        settings.transport().register(group, self, settings.algorithm().codec(), transportListener);
        dispatch(() -> "start", () -> elector.start());
    }

    /**
     * The handover event, on the loop: lets the elector hand over while it still leads ({@link Elector#beginStop()}).
     * The tracker's handover ends when the elector announces DORMANT, or here when it had nothing to hand over.
     */
    void handOver() {
        dispatch(() -> "hand over", () -> {
            tracker.beginStopping();
            if (!elector.beginStop()) {
                // Nothing to prepare (or a standby that takes over on the cession alone): stop in this same event
                // rather than in a second one, which would cost the closing thread another hand-off to this loop
                // before the revocation.
                stoppedInHandover = true;
                elector.stop();
            }
        });
        if (stoppedInHandover) {
            haltAfterStop();
        }
        if (halted) {
            tracker.handOverEnded();
        }
        handoverEventDone.complete(null);
    }

    /** Whether the handover event stopped the elector itself; then {@link #handoverEventDone} is the stop's end. */
    boolean stoppedInHandover() {
        return stoppedInHandover;
    }

    /** Completes once the handover event, the revocation's end included, has run. */
    Future<?> handoverEventDone() {
        return handoverEventDone;
    }

    /**
     * The resignation event, on the loop: the elector gives up leadership and holds off ({@link Elector#resign}); the
     * tracker revokes the leadership with {@code reason} and completes {@code done} once it has ended.
     */
    void resign(long holdOffNanos, RevocationReason reason, CompletableFuture<Void> done) {
        if (halted) {
            done.complete(null);
            return;
        }
        // The leadership being resigned may be announced only once its save returns: the resignation then follows it
        // there, in order, so that it finds the leadership and holds the cession behind its revocation.
        boolean afterHeldLeadership = trackerHeld;
        dispatch(() -> "resign", () -> {
            if (afterHeldLeadership) {
                afterSaves.add(() -> tracker.beginResigning(reason, done));
                elector.resign(holdOffNanos);
                afterSaves.add(tracker::resignEventDone);
                return;
            }
            tracker.beginResigning(reason, done);
            elector.resign(holdOffNanos);
        });
        if (!afterHeldLeadership) {
            tracker.resignEventDone();
        }
    }

    /**
     * The watchdog revoked the leadership of {@code epoch}: its validity was not extended in time. On the loop. The
     * elector usually steps down on its own at the end of that validity, but late confirmations (or renewals) may
     * extend it after the revocation, and the elector then leads on at an epoch whose leadership its users have been
     * told is over: no task runs, and the others follow a leader that does nothing. Such an elector resigns, with no
     * hold-off, so that the group elects a leader that holds a valid leadership (itself, possibly, at a new epoch);
     * one whose algorithm cannot resign is left to step down on its own, with a warning.
     */
    void validityExpired(long epoch) {
        if (halted || !tracker.announcedLeaderAt(epoch)) {
            return;
        }
        if (settings.algorithm().resignHoldOff().isEmpty()) {
            log.warn(
                    "group {} node {}: still leads at epoch {} after the watchdog revoked its leadership; algorithm {}"
                            + " cannot resign, so it leads on, idle, until it steps down",
                    settings.group(),
                    settings.self(),
                    epoch,
                    settings.algorithm().algorithm());
            return;
        }
        log.warn(
                "group {} node {}: still leads at epoch {} after the watchdog revoked its leadership: resigning, so"
                        + " that the group has a leader with a valid leadership",
                settings.group(),
                settings.self(),
                epoch);
        resign(0, RevocationReason.VALIDITY_EXPIRED, new CompletableFuture<>());
    }

    /** The stop event, on the loop. */
    void stop() {
        dispatch(() -> "stop", () -> {
            tracker.beginStopping();
            elector.stop();
        });
        haltAfterStop();
    }

    /** Stops the store caller, if any: queued calls (a stopping leader's release) still go out. */
    void shutdownStore() {
        if (store != null) {
            store.shutdown();
        }
    }

    // ---------------------------------------------------------------- events

    /** @param what names the event in logs; computed only when something is logged */
    private void post(Supplier<String> what, Runnable event) {
        try {
            loop.execute(new Dispatch(this, what, event));
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
        validityGivenThisEvent = false;
        bus.publishPending();
        held.releaseAfterEvent();
        tracker.afterEvent();
    }

    private void haltAfterStop() {
        if (halted) {
            return;
        }
        halted = true;
        tracker.handOverEnded();
        timers.cancelAll();
        tracker.stopped();
        flush();
    }

    private void fail(RuntimeException e) {
        failure = e;
        halted = true;
        tracker.handOverEnded();
        timers.cancelAll();
        tracker.revoke(RevocationReason.STATE_STORE_FAILED);
        log.error(
                "group {} node {}: could not persist its state, so it stops taking part in the election (it must"
                        + " not act on state that is not durable); fix the state store and restart this member",
                group,
                self,
                e);
        tracker.failed();
        onFailure.accept(e);
    }

    private void transmit(NodeId to, ElectorMessage message) {
        try {
            settings.transport().send(group, to, message);
        } catch (RuntimeException e) {
            // Best effort by contract; a transport that throws anyway must not break the elector.
            log.debug("group {} node {}: sending {} to {} failed: {}", group, self, message.type(), to, e.toString());
        }
    }

    private void storeReply(StoreReply reply) {
        post(() -> "store reply " + reply.getClass().getSimpleName(), () -> elector.onStoreReply(reply));
    }

    /** A loop task that dispatches one event. */
    private record Dispatch(ElectorDriver driver, Supplier<String> what, Runnable event) implements Runnable {
        @Override
        public void run() {
            driver.dispatch(what, event);
        }
    }

    /** A peer's message for the elector, and its name for the log. */
    private record Delivery(ElectorDriver driver, NodeId from, ElectorMessage message)
            implements Runnable, Supplier<String> {
        @Override
        public void run() {
            driver.elector.onMessage(from, message);
        }

        @Override
        public String get() {
            return "message " + message.type() + " from " + from;
        }
    }

    /** Feeds transport events into the loop. */
    private final class Listener implements TransportListener {
        @Override
        public void onMessage(NodeId from, ElectorMessage message) {
            Delivery d = new Delivery(ElectorDriver.this, from, message);
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
            if (savesInFlight > 0) {
                // Sent once the saves before it are durable, through the hold if one is on by then, in order.
                afterSaves.add(() -> sendNow(to, message));
                return;
            }
            sendNow(to, message);
        }

        private void sendNow(NodeId to, ElectorMessage message) {
            if (held.holding()) {
                held.add(() -> transmit(to, message));
                return;
            }
            transmit(to, message);
        }

        @Override
        public void schedule(TimerKey key, long delayNanos) {
            if (halted) {
                return;
            }
            timers.schedule(key, delayNanos);
        }

        @Override
        public void cancel(TimerKey key) {
            timers.cancel(key);
        }

        @Override
        public StoredState storedState() {
            return stored;
        }

        @Override
        public void persist(StoredState state) {
            if (halted) {
                throw new StateStoreException(
                        "election " + group + "/" + self + " is stopped; not persisting " + state);
            }
            if (saves != null) {
                saveOffLoop(state);
                stored = state;
                return;
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
            // A leadership is announced only once the state it rests on is durable: a member that crashed before its
            // save returned must not have led at an epoch its restarted self could win again. What follows a held
            // announcement is held too, so that the tracker hears everything in order.
            boolean newLeadership =
                    state.role() == io.bellwether.Role.LEADER && !tracker.announcedLeaderAt(state.epoch());
            if (savesInFlight > 0 && (newLeadership || trackerHeld)) {
                trackerHeld = true;
                // A validity given just before, in this event, went to the tracker at once (it extended the
                // leadership held then): the held leadership takes it along, as the tracker takes a validity given
                // just before an announcement.
                long validity = validityThisEvent;
                boolean given = validityGivenThisEvent;
                afterDurable(() -> {
                    if (given) {
                        tracker.validUntilOfNext(validity);
                    }
                    tracker.announce(state, reason);
                });
                return;
            }
            tracker.announce(state, reason);
        }

        @Override
        public void successor(Optional<NodeId> member) {
            if (halted) {
                return;
            }
            if (holdForTracker()) {
                afterDurable(() -> tracker.successorReported(member));
                return;
            }
            tracker.successorReported(member);
        }

        @Override
        public void validUntil(long nanos) {
            if (halted) {
                return;
            }
            // The validity of a leadership still held back follows it (electors may set it just before they announce
            // the leadership); an established one (durable when it was announced) is extended at once, whatever else
            // is being saved.
            if (holdForTracker()) {
                afterDurable(() -> tracker.validUntil(nanos));
                return;
            }
            tracker.validUntil(nanos);
            validityThisEvent = nanos;
            validityGivenThisEvent = true;
        }

        /**
         * Whether what the elector tells the tracker now must wait for the saves in flight: something before it waits
         * already, or saves are in flight and no established leadership is what it is about.
         */
        private boolean holdForTracker() {
            if (savesInFlight == 0) {
                return false;
            }
            if (!tracker.leading()) {
                trackerHeld = true;
            }
            return trackerHeld;
        }

        /**
         * Tells the tracker once the saves in flight have returned, in order with the sends; not at all if the election
         * has stopped meanwhile (its tracker has ended everything then).
         */
        private void afterDurable(Runnable effect) {
            afterSaves.add(() -> {
                if (!halted) {
                    effect.run();
                }
            });
        }

        @Override
        public void storeRequest(StoreRequest request) {
            Objects.requireNonNull(request, "request");
            if (halted) {
                return;
            }
            if (store == null) {
                throw new UnsupportedOperationException(
                        "algorithm " + settings.algorithm().algorithm() + " has no store client");
            }
            if (savesInFlight > 0) {
                afterSaves.add(() -> startStoreRequest(request));
                return;
            }
            startStoreRequest(request);
        }

        private void startStoreRequest(StoreRequest request) {
            if (held.holding()) {
                held.add(() -> store.start(request));
                return;
            }
            store.start(request);
        }
    }
}
