package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.Quorums;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.StoreRequest;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.TimerKey;
import io.bellwether.elector.Trait;
import io.bellwether.lease.LeaseReply;
import io.bellwether.lease.LeaseRequest;
import io.bellwether.lease.LeaseStoreClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * The discrete-event core shared by random runs and exhaustive exploration: N nodes, each a real elector
 * behind a simulated {@link ElectorContext}, a virtual clock, a simulated network with TCP-like connections,
 * and hooks for the invariant checkers. Single-threaded and deterministic: everything random comes from the
 * run seed, and nothing iterates a hash-ordered collection on a path that affects behaviour.
 */
final class Engine {
    static final long BASE_LATENCY_MIN = 200_000;
    static final long BASE_LATENCY_SPREAD = 800_000;
    static final long MAX_REORDER_DELAY = 30_000_000;
    static final String STORE_GROUP = "sim";
    /**
     * An election's tail ends when no election message has been sent for this long after convergence: longer
     * than any retransmission timer of the default configurations (the ring's 25 ms hops, invitation's 200 ms
     * Ready). A converged group sends no election messages, so a longer wait would only end the measurement
     * later, not change it.
     */
    static final long ELECTION_QUIET_NANOS = 1_000_000_000L;
    /** How long a node stopped gracefully may hand over before the driver stops it (a runtime's close() bound). */
    static final long HANDOVER_LIMIT_NANOS = 5_000_000_000L;

    final SimulationConfig config;
    final ElectorSpec spec;
    final long seed;
    final int n;
    final NodeId[] ids;
    final List<NodeId> members;
    private final Map<NodeId, Integer> indexOf = new HashMap<>();
    final SimNode[] nodes;
    final EventQueue queue = new EventQueue();
    final Recorder recorder;
    private final Timing timing;
    final Invariants invariants;
    final boolean exhaustive;

    long now;
    private long seq;

    final long[][] connGen;
    /** [at][peer]: {@code at} learns of the last closing of its connection to {@code peer} when it next writes to it. */
    final boolean[][] learnOnWrite;
    /** Exhaustive mode: closings and departures not yet told, until the explorer chooses to tell them. */
    final List<Event> pendingNotices = new ArrayList<>();

    final int[][] blocked;
    final SplittableRandom netRng;
    final SplittableRandom faultRng;
    double lossRate;
    double dupRate;
    long reorderNanos;

    // The lease store (lease runs only; null otherwise).
    final boolean lease;
    final SimLeaseStore leaseStore;
    private final LeaseStoreClient leaseClient;
    /** Store randomness: latencies, lost replies, leader writes. Split off only in lease runs. */
    final SplittableRandom storeRng;
    /** Whether this run's store pushes releases to waiting contenders (drawn per run). */
    final boolean storePushes;

    int storeOutages;
    long storeSlowNanos;
    double lostReplyRate;
    private final List<StoreCall> releaseWaiters = new ArrayList<>();
    final FencedResource fenced;

    /** One store request in flight: answered exactly once (by the store or by its timeout). */
    static final class StoreCall {
        final SimNode node;
        final int incarnation;
        final StoreRequest request;
        boolean answered;

        StoreCall(SimNode node, int incarnation, StoreRequest request) {
            this.node = node;
            this.incarnation = incarnation;
            this.request = request;
        }
    }

    /** Exhaustive mode: messages wait here until the explorer chooses to deliver or drop them. */
    final List<Pending> pending = new ArrayList<>();

    long events;
    long totalMessages;
    long electionMessages;
    int elections;
    final List<FailoverSample> failovers = new ArrayList<>();
    private FaultKind failoverCause;
    private long failoverStart;
    /** The leader the open failover sample's fault hit. */
    private int failoverLeader = -1;

    private long failoverMessages;
    private long failoverEpoch;

    /** Split-brain measurement: total time with two or more acting leaders, and how many such periods. */
    long twoLeaderNanos;

    int twoLeaderEpisodes;
    private long twoLeadersSince = -1;

    /** The election being measured (see {@link ElectionSample}), or null. */
    private ElectionWindow window;

    final List<ElectionSample> electionSamples = new ArrayList<>();

    Violation violation;
    /** Extra words for a violation message (the exhaustive path). */
    String violationSuffix = "";
    /** The replay command of a violation, when the run is not one that {@code simulate} replays; or null. */
    String replayOverride;

    record Pending(int from, int to, ElectorMessage message, long gen) {}

    /** The last message any node sent: what a forged frame ({@link ByzantinePeer}) is built on. */
    ElectorMessage lastSent;

    Engine(SimulationConfig config, long seed, boolean keepHistory, boolean exhaustive, int ringCapacity) {
        this.config = config;
        this.spec = config.spec();
        this.seed = seed;
        this.n = config.nodes();
        this.exhaustive = exhaustive;
        this.timing = Timing.of(spec);
        this.ids = new NodeId[n];
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = NodeId.of("n" + (i + 1));
            names[i] = ids[i].value();
            indexOf.put(ids[i], i);
        }
        this.members = List.of(sortedIds());
        this.recorder = new Recorder(names, keepHistory, ringCapacity);
        SplittableRandom master = new SplittableRandom(seed);
        this.netRng = master.split();
        this.faultRng = master.split();
        boolean drift = config.faults().contains(FaultKind.DRIFT);
        this.nodes = new SimNode[n];
        for (int i = 0; i < n; i++) {
            SplittableRandom nodeRandom = master.split();
            // Offsets are large and arbitrary so that electors relying on absolute clock values show up.
            long offset = exhaustive ? 1_000_000_000L : 1_000_000_000L + master.nextLong(1L << 40);
            double rate = 1.0 + (master.nextDouble() * 2 - 1) * timing.maxDrift() / 2;
            nodes[i] = new SimNode(i, ids[i], new CountingRandom(nodeRandom), drift ? rate : 1.0, offset);
        }
        this.connGen = new long[n][n];
        this.learnOnWrite = new boolean[n][n];
        this.blocked = new int[n][n];
        this.lease = config.variant().has(Trait.USES_STORE);
        if (lease) {
            // Split last, so that runs of the other algorithms draw exactly what they drew before.
            this.storeRng = master.split();
            this.storePushes = storeRng.nextBoolean();
            this.leaseStore = new SimLeaseStore(() -> now);
            this.leaseClient = new LeaseStoreClient(leaseStore, STORE_GROUP);
            this.fenced = new FencedResource(this);
        } else {
            this.storeRng = null;
            this.storePushes = false;
            this.leaseStore = null;
            this.leaseClient = null;
            this.fenced = null;
        }
        this.invariants = new Invariants(this, config.variant());
    }

    private NodeId[] sortedIds() {
        NodeId[] sorted = ids.clone();
        java.util.Arrays.sort(sorted);
        return sorted;
    }

    int indexOf(NodeId id) {
        Integer i = indexOf.get(id);
        if (i == null) {
            throw new IllegalArgumentException("unknown node " + id + ": members are " + members);
        }
        return i;
    }

    // ---------------------------------------------------------------- scheduling

    Event newEvent(long time, int type) {
        Event e = new Event();
        e.time = time;
        e.seq = seq++;
        e.type = type;
        return e;
    }

    void at(long time, Runnable action) {
        Event e = newEvent(time, Event.ACTION);
        e.node = -1;
        e.action = action;
        queue.add(e);
    }

    /** Runs events up to and including {@code end}, or until the first violation. */
    void runUntil(long end) {
        while (violation == null) {
            Event e = queue.peek();
            if (e == null || e.time > end) {
                break;
            }
            queue.poll();
            now = e.time;
            events++;
            dispatch(e);
        }
        if (violation == null && now < end) {
            now = end;
        }
    }

    void dispatch(Event e) {
        try {
            switch (e.type) {
                case Event.ACTION -> e.action.run();
                case Event.DELIVER -> deliver(e);
                case Event.TIMER -> fireTimer(e);
                case Event.DISCONNECT, Event.CONNECT, Event.GONE -> notifyPeer(e);
                case Event.STORE_REPLY -> deliverStoreReply(e);
                default -> throw new IllegalStateException("event type " + e.type);
            }
        } catch (RuntimeException ex) {
            int node = e.node;
            violate(
                    "no-exceptions",
                    "an exception escaped while handling " + describe(e) + ": " + ex,
                    node >= 0 ? new int[] {node} : new int[0]);
        }
    }

    private String describe(Event e) {
        String at = e.node >= 0 ? " at " + ids[e.node] : "";
        return switch (e.type) {
            case Event.DELIVER -> "delivery of " + e.payload + " from " + ids[e.from] + at;
            case Event.TIMER -> "timer " + e.payload + at;
            case Event.STORE_REPLY -> "store reply " + e.payload + at;
            default -> "event" + at;
        };
    }

    // ---------------------------------------------------------------- nodes

    /** Starts every node at time 0 and connects every pair. */
    void startAll() {
        for (SimNode node : nodes) {
            boot(node);
            if (violation != null) {
                return;
            }
        }
        for (SimNode a : nodes) {
            for (SimNode b : nodes) {
                if (a != b) {
                    a.elector.onPeerConnected(b.id);
                }
            }
            afterEvent(a);
        }
    }

    private void boot(SimNode node) {
        node.up = true;
        node.stopped = false;
        node.handingOver = false;
        node.paused = false;
        node.incarnation++;
        Arrays.fill(learnOnWrite[node.index], false);
        node.timers.clear();
        node.deferred.clear();
        node.announced = ElectorState.DORMANT;
        node.validUntilTrue = Long.MIN_VALUE;
        node.validUntilLocal = Long.MIN_VALUE;
        invariants.onIncarnation(node);
        Context ctx = new Context(node, node.incarnation);
        node.elector = Objects.requireNonNull(spec.create(ctx), "spec.create returned null");
        node.elector.start();
        afterEvent(node);
    }

    void afterEvent(SimNode node) {
        trackLeaderOverlap();
        if (!node.live()) {
            return;
        }
        if (node.handingOver && node.elector.state().role() == Role.DORMANT) {
            // The handover is over; the stop completes as its own event, as a runtime's close() goes on.
            node.handingOver = false;
            int incarnation = node.incarnation;
            at(now, () -> {
                if (node.incarnation == incarnation) {
                    finishStop(node);
                }
            });
        }
        ElectorState st = node.elector.state();
        // Convergence is a property of the nodes' states: only a state change can reach it.
        boolean check = window != null && window.convergedAt < 0 && !st.equals(node.state);
        node.state = st;
        invariants.afterNodeEvent(node, st);
        if (fenced != null && violation == null) {
            fenced.afterNodeEvent(node);
        }
        if (check) {
            checkConverged();
        }
    }

    void crash(SimNode node, boolean silent) {
        recorder.add(now, node.index, silent ? "silent-crash" : "crash", node.state.epoch(), -1, null);
        takeDown(node);
        if (!silent) {
            for (SimNode peer : nodes) {
                if (peer != node) {
                    bump(node.index, peer.index);
                    // The dead end's kernel closes every socket at once and the live ends, reading, learn at once;
                    // the skew between two live ends is what resets model (see tellClosed).
                    if (exhaustive) {
                        tellClosed(peer, node.index);
                    } else {
                        notifyLater(peer, node.index, Event.DISCONNECT);
                    }
                }
            }
        }
        topologyChanged();
    }

    private void takeDown(SimNode node) {
        node.up = false;
        node.handingOver = false;
        node.elector = null;
        node.incarnation++;
        Arrays.fill(learnOnWrite[node.index], false);
        node.timers.clear();
        node.deferred.clear();
        node.paused = false;
        node.announced = ElectorState.DORMANT;
        node.validUntilTrue = Long.MIN_VALUE;
        node.validUntilLocal = Long.MIN_VALUE;
        invariants.onDown(node);
        trackLeaderOverlap();
    }

    /**
     * Gracefully stops a node, as a runtime does: an elector that starts a handover ({@link Elector#beginStop})
     * keeps running until it announces DORMANT (at the latest {@link #HANDOVER_LIMIT_NANOS} later); then, or at
     * once, its {@link Elector#stop()} may send a last word (a cession), and it handles nothing more.
     */
    void stop(SimNode node) {
        recorder.add(now, node.index, "stop", node.state.epoch(), -1, null);
        boolean handingOver = node.elector.beginStop();
        afterEvent(node);
        if (handingOver && node.live() && node.announced.role() != Role.DORMANT) {
            node.handingOver = true;
            int incarnation = node.incarnation;
            at(now + HANDOVER_LIMIT_NANOS, () -> {
                if (node.incarnation == incarnation && node.handingOver) {
                    finishStop(node);
                }
            });
            return;
        }
        finishStop(node);
    }

    /** The end of a graceful stop: the elector's {@link Elector#stop()}, then the node is down. */
    void finishStop(SimNode node) {
        node.handingOver = false;
        if (!node.live()) {
            return;
        }
        node.elector.stop();
        afterEvent(node);
        node.stopped = true;
        node.incarnation++;
        Arrays.fill(learnOnWrite[node.index], false);
        node.timers.clear();
        node.deferred.clear();
        node.announced = ElectorState.DORMANT;
        node.validUntilTrue = Long.MIN_VALUE;
        node.validUntilLocal = Long.MIN_VALUE;
        invariants.onDown(node);
        trackLeaderOverlap();
        topologyChanged();
    }

    /** Starts a crashed or stopped node again: a fresh elector over the same durable store. */
    void restart(SimNode node) {
        recorder.add(now, node.index, "restart", node.state.epoch(), -1, node.store.state);
        for (SimNode peer : nodes) {
            if (peer != node) {
                // The old process's connections are gone; whatever was in flight on them is lost.
                bump(node.index, peer.index);
            }
        }
        boot(node);
        if (violation != null) {
            return;
        }
        for (SimNode peer : nodes) {
            if (peer != node && peer.live()) {
                node.elector.onPeerConnected(peer.id);
                if (learnOnWrite[peer.index][node.index]) {
                    // The half-open end learns of the old connection's end when the new one arrives.
                    notifyLater(peer, node.index, Event.DISCONNECT);
                }
                notifyLater(peer, node.index, Event.CONNECT);
            }
        }
        afterEvent(node);
        topologyChanged();
    }

    void pause(SimNode node) {
        recorder.add(now, node.index, "pause", node.state.epoch(), -1, null);
        node.paused = true;
        trackLeaderOverlap();
        invariants.onPause(node);
        topologyChanged();
    }

    void resume(SimNode node) {
        recorder.add(now, node.index, "resume", node.state.epoch(), -1, node.deferred.size() + " queued events");
        node.paused = false;
        trackLeaderOverlap();
        topologyChanged();
        while (!node.deferred.isEmpty() && node.live() && !node.paused && violation == null) {
            dispatch(node.deferred.poll());
        }
        if (violation == null && node.live() && !node.paused) {
            invariants.afterResume(node);
        }
    }

    /** Resets the connection between a and b: each end is told on its own schedule; in-flight messages are lost. */
    void reset(int a, int b) {
        recorder.add(now, Recorder.NETWORK, "reset", 0, -1, ids[a] + "<->" + ids[b]);
        bump(a, b);
        tellClosed(nodes[a], b);
        tellClosed(nodes[b], a);
    }

    /** The longest a random run makes one end of a closed connection wait before it is told (past a heartbeat). */
    static final long MAX_NOTICE_DELAY = 150_000_000;

    /**
     * Tells {@code at} that its connection to {@code peer} closed, on a schedule of its own: the two ends of a
     * TCP connection learn of its end separately (the end that writes next first, a half-open end only when it
     * writes again, a middlebox's reset at one end only). A random run draws at once, within 5 ms, within {@link
     * #MAX_NOTICE_DELAY}, or at its next write to the peer; the exhaustive explorer chooses when, if ever.
     */
    private void tellClosed(SimNode at, int peer) {
        if (!at.live()) {
            return;
        }
        if (exhaustive) {
            pendingNotices.add(notice(at, peer, Event.DISCONNECT));
            return;
        }
        switch (netRng.nextInt(5)) {
            case 0, 1 -> notifyLater(at, peer, Event.DISCONNECT);
            case 2 -> notifyAfter(at, peer, netRng.nextLong(5_000_001));
            case 3 -> notifyAfter(at, peer, netRng.nextLong(MAX_NOTICE_DELAY + 1));
            default -> learnOnWrite[at.index][peer] = true;
        }
    }

    private void notifyAfter(SimNode at, int peer, long delay) {
        int incarnation = at.incarnation;
        at(now + delay, () -> {
            if (at.incarnation == incarnation) {
                notifyLater(at, peer, Event.DISCONNECT);
            }
        });
    }

    /**
     * After {@code at} was told of a closing, its transport probes the peer's address: a refusal (the peer is down,
     * no process listens) is reported as the peer's departure; a paused or partitioned peer's is not refused.
     */
    private void probeDeparture(SimNode at, int peer) {
        if (exhaustive) {
            pendingNotices.add(notice(at, peer, Event.GONE));
            return;
        }
        int incarnation = at.incarnation;
        at(now + BASE_LATENCY_MIN + netRng.nextLong(BASE_LATENCY_SPREAD + 1), () -> {
            if (at.incarnation == incarnation && !nodes[peer].live()) {
                notifyLater(at, peer, Event.GONE);
            }
        });
    }

    private Event notice(SimNode at, int peer, int type) {
        Event e = newEvent(now, type);
        e.node = at.index;
        e.from = peer;
        e.incarnation = at.incarnation;
        return e;
    }

    /** Exhaustive mode: tells the chosen pending notice now (a departure only if the peer is still down). */
    void tellNotice(int i) {
        Event e = pendingNotices.remove(i);
        if (e.type == Event.GONE && nodes[e.from].live()) {
            return; // the probe now finds a listener: no proof
        }
        notifyLater(nodes[e.node], e.from, e.type, e.incarnation);
    }

    private void bump(int a, int b) {
        connGen[a][b]++;
        connGen[b][a]++;
    }

    /** Tells {@code at} about a peer's connection now, or when it resumes if it is paused. */
    private void notifyLater(SimNode at, int peer, int type) {
        notifyLater(at, peer, type, at.incarnation);
    }

    private void notifyLater(SimNode at, int peer, int type, int incarnation) {
        if (!at.live() || at.incarnation != incarnation) {
            return;
        }
        if (type == Event.DISCONNECT) {
            learnOnWrite[at.index][peer] = false;
        }
        Event e = newEvent(now, type);
        e.node = at.index;
        e.from = peer;
        e.incarnation = at.incarnation;
        if (at.paused) {
            at.deferred.add(e);
        } else {
            notifyPeer(e);
        }
    }

    private void notifyPeer(Event e) {
        SimNode at = nodes[e.node];
        if (!at.live() || at.incarnation != e.incarnation) {
            return;
        }
        if (at.paused) {
            at.deferred.add(e);
            return;
        }
        boolean disconnect = e.type == Event.DISCONNECT;
        String what = disconnect ? "disconnected" : e.type == Event.GONE ? "gone" : "connected";
        recorder.add(now, at.index, what, at.state.epoch(), e.from, null);
        if (disconnect) {
            at.elector.onPeerDisconnected(ids[e.from]);
        } else if (e.type == Event.GONE) {
            at.elector.onPeerGone(ids[e.from]);
        } else {
            at.elector.onPeerConnected(ids[e.from]);
        }
        afterEvent(at);
        if (disconnect && at.live() && at.incarnation == e.incarnation) {
            probeDeparture(at, e.from);
        }
    }

    /**
     * Measures split brain: two or more running, unpaused nodes that announced LEADER. A paused node takes no
     * action, so it does not count while paused.
     */
    private void trackLeaderOverlap() {
        int acting = 0;
        for (SimNode node : nodes) {
            if (node.live() && !node.paused && node.announced.role() == Role.LEADER) {
                acting++;
            }
        }
        if (acting >= 2 && twoLeadersSince < 0) {
            twoLeadersSince = now;
            twoLeaderEpisodes++;
        } else if (acting < 2 && twoLeadersSince >= 0) {
            twoLeaderNanos += now - twoLeadersSince;
            twoLeadersSince = -1;
        }
    }

    /** Ends the split-brain measurement at the end of the run. */
    void closeLeaderOverlap() {
        if (twoLeadersSince >= 0) {
            twoLeaderNanos += now - twoLeadersSince;
            twoLeadersSince = -1;
        }
    }

    // ---------------------------------------------------------------- network

    void send(SimNode from, int to, ElectorMessage message) {
        totalMessages++;
        boolean election = isElectionMessage(message);
        if (election) {
            electionMessages++;
        }
        if (window != null) {
            countInWindow(election);
        }
        recorder.add(now, from.index, "send", from.elector.state().epoch(), to, message);
        if (learnOnWrite[from.index][to]) {
            // A half-open connection: the write meets the reset. Told as its own event, never inside the send.
            learnOnWrite[from.index][to] = false;
            int incarnation = from.incarnation;
            at(now, () -> notifyLater(from, to, Event.DISCONNECT, incarnation));
        }
        invariants.onSend(from, to, message);
        lastSent = message;
        long gen = connGen[from.index][to];
        if (exhaustive) {
            pending.add(new Pending(from.index, to, message, gen));
            return;
        }
        if (lossRate > 0 && netRng.nextDouble() < lossRate) {
            recorder.add(now, to, "drop-loss", nodes[to].state.epoch(), from.index, message);
            return;
        }
        scheduleDelivery(from.index, to, message, gen);
        if (dupRate > 0 && netRng.nextDouble() < dupRate) {
            scheduleDelivery(from.index, to, message, gen);
        }
    }

    private void scheduleDelivery(int from, int to, ElectorMessage message, long gen) {
        long latency = BASE_LATENCY_MIN + netRng.nextLong(BASE_LATENCY_SPREAD + 1);
        if (reorderNanos > 0) {
            latency += netRng.nextLong(reorderNanos + 1);
        }
        Event e = newEvent(now + latency, Event.DELIVER);
        e.node = to;
        e.from = from;
        e.payload = message;
        e.gen = gen;
        queue.add(e);
    }

    /** Delivers {@code message} now, on the current connection (a fault's forged frame that decoded). */
    void deliverNow(int from, int to, ElectorMessage message) {
        Event e = newEvent(now, Event.DELIVER);
        e.node = to;
        e.from = from;
        e.payload = message;
        e.gen = connGen[from][to];
        dispatch(e);
    }

    /** The longest a message can travel in a random run. */
    static long maxMessageDelay() {
        return BASE_LATENCY_MIN + BASE_LATENCY_SPREAD + MAX_REORDER_DELAY;
    }

    void deliver(Event e) {
        SimNode to = nodes[e.node];
        ElectorMessage m = (ElectorMessage) e.payload;
        if (!to.live()) {
            recorder.add(now, to.index, "drop-down", to.state.epoch(), e.from, m);
            return;
        }
        if (e.gen != connGen[e.from][e.node]) {
            recorder.add(now, to.index, "drop-reset", to.state.epoch(), e.from, m);
            return;
        }
        if (blocked[e.from][e.node] > 0) {
            recorder.add(now, to.index, "drop-cut", to.state.epoch(), e.from, m);
            return;
        }
        if (to.paused) {
            to.deferred.add(e);
            return;
        }
        recorder.add(now, to.index, "recv", to.state.epoch(), e.from, m);
        invariants.beforeDeliver(to, e.from, m);
        to.elector.onMessage(ids[e.from], m);
        invariants.afterDeliver(to, e.from, m);
        afterEvent(to);
    }

    /** Whether {@code m} counts as election traffic: every message but the algorithm's keep-alives. */
    private boolean isElectionMessage(ElectorMessage m) {
        return !config.descriptor().isKeepAlive(m);
    }

    // ---------------------------------------------------------------- one election's messages

    /** The election being measured: see {@link ElectionSample} for what it counts. */
    private static final class ElectionWindow {
        final FaultKind cause;
        final long start;
        final int fromLeader;
        final long fromEpoch;
        long convergedAt = -1;
        long messages;
        long heartbeats;
        long storeRequests;
        int leaderships;
        /** When the last election message of this window was sent. */
        long lastElectionMessage;

        ElectionWindow(FaultKind cause, long start, int fromLeader, long fromEpoch) {
            this.cause = cause;
            this.start = start;
            this.fromLeader = fromLeader;
            this.fromEpoch = fromEpoch;
        }
    }

    /**
     * A fault is about to hit the leader: starts measuring the election it causes if the group is converged on
     * that leader and nothing is being measured. Call before the fault acts, so that the reactions it causes at
     * once (a disconnect noticed by every peer) count.
     */
    void openElectionWindow(FaultKind cause) {
        if (exhaustive || window != null) {
            return;
        }
        int leader = convergedLeader();
        if (leader >= 0) {
            window = new ElectionWindow(cause, now, leader, nodes[leader].state.epoch());
        }
    }

    /** Whether an election is being measured (it started and its tail has not ended). */
    boolean measuringElection() {
        return window != null;
    }

    /**
     * Another fault starts or heals: an election still under way is no longer caused by one fault alone and
     * is discarded; a converged one whose tail is still in flight is recorded as it stands (incomplete).
     */
    void faultEvent() {
        if (window == null) {
            return;
        }
        if (window.convergedAt < 0) {
            window = null;
        } else {
            finishElection(false);
        }
    }

    /** The run ends: records a converged election whose tail is still in flight; drops an unfinished one. */
    void endElectionWindow() {
        faultEvent();
    }

    /** Counts a message sent now: every election message, and monitoring ones until convergence. */
    private void countInWindow(boolean election) {
        ElectionWindow w = window;
        if (election) {
            w.messages++;
            w.lastElectionMessage = now;
        } else if (w.convergedAt < 0) {
            w.heartbeats++;
        }
    }

    /** Ends the tail once no election message has been sent for {@link #ELECTION_QUIET_NANOS}. */
    private void checkQuietAfterElection(ElectionWindow w) {
        if (window != w) {
            return;
        }
        long quietAt = Math.max(w.convergedAt, w.lastElectionMessage) + ELECTION_QUIET_NANOS;
        if (now >= quietAt) {
            finishElection(true);
        } else {
            at(quietAt, () -> checkQuietAfterElection(w));
        }
    }

    /** The live node every live node names as leader at its epoch, that node being LEADER; or -1. */
    int convergedLeader() {
        int leader = -1;
        for (SimNode node : nodes) {
            if (node.live() && node.state.role() == Role.LEADER) {
                if (leader >= 0) {
                    return -1;
                }
                leader = node.index;
            }
        }
        if (leader < 0) {
            return -1;
        }
        long epoch = nodes[leader].state.epoch();
        NodeId id = ids[leader];
        for (SimNode node : nodes) {
            if (node.live()
                    && (node.state.epoch() != epoch
                            || !id.equals(node.state.leader().orElse(null)))) {
                return -1;
            }
        }
        return leader;
    }

    private void checkConverged() {
        int leader = convergedLeader();
        if (leader < 0 || (leader == window.fromLeader && nodes[leader].state.epoch() == window.fromEpoch)) {
            return;
        }
        window.convergedAt = now;
        checkQuietAfterElection(window);
    }

    private void finishElection(boolean complete) {
        ElectionWindow w = window;
        window = null;
        electionSamples.add(new ElectionSample(
                w.cause, w.convergedAt - w.start, w.messages, w.heartbeats, w.storeRequests, w.leaderships, complete));
    }

    // ---------------------------------------------------------------- timers

    private void arm(SimNode node, TimerKey key, long localDelay) {
        long delay = Math.max(0, localDelay);
        Event e = newEvent(now + node.trueDelay(delay), Event.TIMER);
        e.node = node.index;
        e.payload = key;
        e.incarnation = node.incarnation;
        e.localDeadline = node.localNanos(now) + delay;
        node.timers.put(key, e);
        queue.add(e);
    }

    boolean timerIsLive(Event e) {
        SimNode node = nodes[e.node];
        return node.live() && node.incarnation == e.incarnation && node.timers.get((TimerKey) e.payload) == e;
    }

    void fireTimer(Event e) {
        if (!timerIsLive(e)) {
            return;
        }
        SimNode node = nodes[e.node];
        if (node.paused) {
            node.deferred.add(e);
            return;
        }
        TimerKey key = (TimerKey) e.payload;
        node.timers.remove(key);
        recorder.add(now, node.index, "timer", node.state.epoch(), -1, key.name());
        node.elector.onTimer(key);
        afterEvent(node);
    }

    // ---------------------------------------------------------------- the lease store

    /**
     * A node's store request: it reaches the store after a latency (unless the store is down then, when it is
     * neither applied nor answered), is applied on the store's clock, and its reply travels back after another
     * latency unless it is lost. The node's driver gives up after the request's timeout on the node's own
     * clock and delivers the failure reply instead; whichever comes first is the only answer.
     */
    void storeRequest(SimNode node, StoreRequest request) {
        if (leaseStore == null) {
            throw new UnsupportedOperationException("a " + config.algorithm() + " run has no store");
        }
        totalMessages++;
        if (window != null && window.convergedAt < 0) {
            window.storeRequests++;
        }
        recorder.add(now, node.index, "store-send", node.state.epoch(), -1, request);
        StoreCall call = new StoreCall(node, node.incarnation, request);
        long timeout = node.trueDelay(Math.max(0, request.timeoutNanos()));
        at(now + timeout, () -> answer(call, request.failed(new TimeoutException("simulated store timeout"))));
        if (request instanceof LeaseRequest.AwaitRelease) {
            if (storePushes) {
                releaseWaiters.add(call);
            }
            return;
        }
        at(now + storeLatency(), () -> applyAtStore(call));
    }

    private long storeLatency() {
        long latency = BASE_LATENCY_MIN + storeRng.nextLong(BASE_LATENCY_SPREAD + 1);
        if (storeSlowNanos > 0) {
            latency += storeRng.nextLong(storeSlowNanos + 1);
        }
        return latency;
    }

    private void applyAtStore(StoreCall call) {
        if (storeOutages > 0) {
            recorder.add(now, call.node.index, "store-down", 0, -1, call.request);
            return;
        }
        StoreReply reply;
        try {
            reply = leaseClient.execute(call.request).toCompletableFuture().join();
        } catch (RuntimeException ex) {
            reply = call.request.failed(ex);
        }
        recorder.add(now, call.node.index, "store-apply", 0, -1, reply);
        if (reply instanceof LeaseReply.Released r && r.released()) {
            List<StoreCall> waiters = new ArrayList<>(releaseWaiters);
            releaseWaiters.clear();
            for (StoreCall w : waiters) {
                if (!w.answered) {
                    StoreReply note = new LeaseReply.ReleasedNotification(((LeaseRequest) w.request).id());
                    at(now + storeLatency(), () -> answer(w, note));
                }
            }
        }
        if (lostReplyRate > 0 && storeRng.nextDouble() < lostReplyRate) {
            recorder.add(now, call.node.index, "store-reply-lost", 0, -1, reply);
            return;
        }
        StoreReply answer = reply;
        at(now + storeLatency(), () -> answer(call, answer));
    }

    /** The first answer to a call goes to its node (queued while the node is paused); later ones are dropped. */
    private void answer(StoreCall call, StoreReply reply) {
        if (call.answered) {
            return;
        }
        call.answered = true;
        releaseWaiters.remove(call);
        Event e = newEvent(now, Event.STORE_REPLY);
        e.node = call.node.index;
        e.incarnation = call.incarnation;
        e.payload = reply;
        deliverStoreReply(e);
    }

    private void deliverStoreReply(Event e) {
        SimNode node = nodes[e.node];
        if (!node.live() || node.incarnation != e.incarnation) {
            return;
        }
        if (node.paused) {
            node.deferred.add(e);
            return;
        }
        recorder.add(now, node.index, "store-reply", node.state.epoch(), -1, e.payload);
        node.elector.onStoreReply((StoreReply) e.payload);
        afterEvent(node);
    }

    // ---------------------------------------------------------------- announcements

    private void onAnnounce(SimNode node, ElectorState st, ChangeReason reason) {
        ElectorState prev = node.announced;
        node.announced = st;
        recorder.add(now, node.index, "role", st.epoch(), -1, new Announcement(st, reason));
        if (st.role() != Role.LEADER) {
            node.validUntilTrue = Long.MIN_VALUE;
            node.validUntilLocal = Long.MIN_VALUE;
        }
        boolean newLeadership = st.role() == Role.LEADER && (prev.role() != Role.LEADER || prev.epoch() != st.epoch());
        if (failoverCause == FaultKind.STOP
                && node.index == failoverLeader
                && prev.role() == Role.LEADER
                && st.role() != Role.LEADER) {
            // A stopped leader leads until it revokes (after its handover is prepared): the group is without a
            // leader from then on.
            failoverStart = now;
        }
        if (newLeadership) {
            elections++;
            node.leaderSince = now;
            if (window != null && window.convergedAt < 0) {
                window.leaderships++;
            }
            if (failoverCause != null && st.epoch() > failoverEpoch) {
                failovers.add(new FailoverSample(failoverCause, now - failoverStart, totalMessages - failoverMessages));
                failoverCause = null;
            }
        }
        invariants.onAnnounce(node, prev, st, newLeadership);
    }

    private void onValidUntil(SimNode node, long localNanos) {
        node.validUntilLocal = localNanos;
        // Long.MIN_VALUE is "no longer valid" (support lost): converted, it would wrap around to the far future.
        node.validUntilTrue = localNanos == Long.MIN_VALUE ? Long.MIN_VALUE : node.trueNanos(localNanos);
        recorder.add(now, node.index, "valid", node.announced.epoch(), -1, new Validity(node.validUntilTrue, now));
        invariants.onValidUntil(node);
    }

    record Announcement(ElectorState state, ChangeReason reason) {
        @Override
        public String toString() {
            return state + " (" + reason + ")";
        }
    }

    record Validity(long untilTrue, long at) {
        @Override
        public String toString() {
            return String.format("until %.3fms (+%.3fms)", untilTrue / 1e6, (untilTrue - at) / 1e6);
        }
    }

    // ---------------------------------------------------------------- observers for faults and checkers

    /** The live node that announced LEADER at the highest epoch, or -1. */
    int currentLeader() {
        int best = -1;
        for (SimNode node : nodes) {
            if (node.live()
                    && node.announced.role() == Role.LEADER
                    && (best < 0 || node.announced.epoch() > nodes[best].announced.epoch())) {
                best = node.index;
            }
        }
        return best;
    }

    /** Whether {@code x} cannot exchange messages both ways with a majority, counting itself. */
    boolean isCutOff(int x) {
        int count = 0;
        for (SimNode y : nodes) {
            if (reaches(x, y)) {
                count++;
            }
        }
        return !Quorums.isMajority(count, n);
    }

    /** Whether {@code x} can exchange messages with {@code y} both ways right now; a node always reaches itself. */
    private boolean reaches(int x, SimNode y) {
        return y.index == x || (y.live() && !y.paused && blocked[x][y.index] == 0 && blocked[y.index][x] == 0);
    }

    /** Longs needed for a bit set of every node: one bit per node, 64 to a word. */
    static int reachableWords(int nodes) {
        return (nodes + 63) >>> 6;
    }

    /**
     * Writes the nodes {@code x} can exchange messages with both ways right now, itself included, into {@code
     * words} as a bit set: node {@code i} is bit {@code i & 63} of {@code words[i >>> 6]}. Words, not one
     * {@code long}, so that groups above 64 nodes keep node 64 apart from node 0 (a shift by 64 is a shift by 0).
     *
     * @param words at least {@link #reachableWords}{@code (n)} longs; overwritten
     */
    void reachable(int x, long[] words) {
        Arrays.fill(words, 0L);
        for (SimNode y : nodes) {
            if (reaches(x, y)) {
                words[y.index >>> 6] |= 1L << (y.index & 63);
            }
        }
    }

    void topologyChanged() {
        invariants.topologyChanged();
    }

    /** A fault hit the current leader: start a failover sample unless one is already open. */
    void leaderHit(FaultKind cause) {
        int leader = currentLeader();
        if (leader < 0) {
            return;
        }
        openElectionWindow(cause);
        if (failoverCause != null) {
            return;
        }
        failoverCause = cause;
        failoverStart = now;
        failoverLeader = leader;
        failoverMessages = totalMessages;
        failoverEpoch = nodes[leader].announced.epoch();
    }

    void violate(String invariant, String message, int[] involved) {
        if (violation != null) {
            return;
        }
        String text = String.format("%s (at %.3fms)%s", message, now / 1e6, violationSuffix);
        violation = new Violation(invariant, seed, text, recorder.excerpt(involved), replayCommand());
    }

    String replayCommand() {
        if (replayOverride != null) {
            return replayOverride;
        }
        return exhaustive
                ? "./bellwether simulate --algorithm " + config.algorithm() + " --seeds 1"
                : config.replayCommand(seed);
    }

    Timing timing() {
        return timing;
    }

    String timeText(long t) {
        return String.format("%.3fms", t / 1e6);
    }

    // ---------------------------------------------------------------- the context

    /** The simulated {@link ElectorContext} of one incarnation of one node. */
    final class Context implements ElectorContext {
        private final SimNode node;
        private final int incarnation;

        Context(SimNode node, int incarnation) {
            this.node = node;
            this.incarnation = incarnation;
        }

        private boolean current() {
            return node.incarnation == incarnation && node.up;
        }

        @Override
        public NodeId self() {
            return node.id;
        }

        @Override
        public List<NodeId> members() {
            return members;
        }

        @Override
        public long nanoTime() {
            return node.localNanos(now);
        }

        @Override
        public RandomGenerator random() {
            return node.random;
        }

        @Override
        public void send(NodeId to, ElectorMessage message) {
            Objects.requireNonNull(message, "message");
            if (current()) {
                Engine.this.send(node, indexOf(to), message);
            }
        }

        @Override
        public void schedule(TimerKey key, long delayNanos) {
            Objects.requireNonNull(key, "key");
            if (current()) {
                arm(node, key, delayNanos);
            }
        }

        @Override
        public void cancel(TimerKey key) {
            if (current()) {
                node.timers.remove(key);
            }
        }

        @Override
        public StoredState storedState() {
            return node.store.load(STORE_GROUP);
        }

        @Override
        public void persist(StoredState state) {
            Objects.requireNonNull(state, "state");
            if (current()) {
                invariants.onPersist(node, state);
                node.store.save(STORE_GROUP, state);
                recorder.add(now, node.index, "persist", node.state.epoch(), -1, state);
            }
        }

        @Override
        public void announce(ElectorState state, ChangeReason reason) {
            if (current()) {
                onAnnounce(node, state, reason);
            }
        }

        @Override
        public void validUntil(long nanos) {
            if (current()) {
                onValidUntil(node, nanos);
            }
        }

        @Override
        public void storeRequest(StoreRequest request) {
            Objects.requireNonNull(request, "request");
            if (current()) {
                Engine.this.storeRequest(node, request);
            }
        }
    }

    /** For tests and the explorer: the elector of a node (null when down). */
    Elector elector(int node) {
        return nodes[node].elector;
    }
}
