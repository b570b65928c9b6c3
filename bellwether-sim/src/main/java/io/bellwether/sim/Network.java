package io.bellwether.sim;

import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.Quorums;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulated network of an {@link Engine}: TCP-like connections between every pair of nodes (a generation
 * per connection, so that a reset loses what was in flight), latency, loss, duplication, reordering and
 * partitions, and the closing and departure notices each end of a connection gets on its own schedule.
 */
final class Network {
    static final long BASE_LATENCY_MIN = 200_000;
    static final long BASE_LATENCY_SPREAD = 800_000;
    static final long MAX_REORDER_DELAY = 30_000_000;

    /** The longest a random run makes one end of a closed connection wait before it is told (past a heartbeat). */
    static final long MAX_NOTICE_DELAY = 150_000_000;

    private final Engine e;
    final long[][] connGen;
    /** [at][peer]: {@code at} learns of the last closing of its connection to {@code peer} when it next writes to it. */
    final boolean[][] learnOnWrite;
    /** Exhaustive mode: closings and departures not yet told, until the explorer chooses to tell them. */
    final List<Event> pendingNotices = new ArrayList<>();

    final int[][] blocked;
    final SplittableRandom rng;
    double lossRate;
    double dupRate;
    long reorderNanos;

    /** Exhaustive mode: messages wait here until the explorer chooses to deliver or drop them. */
    final List<Pending> pending = new ArrayList<>();

    record Pending(int from, int to, ElectorMessage message, long gen) {}

    /** The last message any node sent: what a forged frame ({@link ByzantinePeer}) is built on. */
    ElectorMessage lastSent;

    Network(Engine engine, SplittableRandom rng) {
        this.e = engine;
        this.rng = rng;
        int n = engine.n;
        this.connGen = new long[n][n];
        this.learnOnWrite = new boolean[n][n];
        this.blocked = new int[n][n];
    }

    // ---------------------------------------------------------------- messages

    void send(SimNode from, int to, ElectorMessage message) {
        e.accounting.countSend(message);
        e.recorder.add(e.now, from.index, "send", from.elector.state().epoch(), to, message);
        if (learnOnWrite[from.index][to]) {
            // A half-open connection: the write meets the reset. Told as its own event, never inside the send.
            learnOnWrite[from.index][to] = false;
            int incarnation = from.incarnation;
            e.at(e.now, () -> notifyLater(from, to, Event.DISCONNECT, incarnation));
        }
        e.invariants.onSend(from, to, message);
        lastSent = message;
        long gen = connGen[from.index][to];
        if (e.exhaustive) {
            pending.add(new Pending(from.index, to, message, gen));
            return;
        }
        if (lossRate > 0 && rng.nextDouble() < lossRate) {
            e.recorder.add(e.now, to, "drop-loss", e.nodes[to].state.epoch(), from.index, message);
            return;
        }
        scheduleDelivery(from.index, to, message, gen);
        if (dupRate > 0 && rng.nextDouble() < dupRate) {
            scheduleDelivery(from.index, to, message, gen);
        }
    }

    private void scheduleDelivery(int from, int to, ElectorMessage message, long gen) {
        long latency = BASE_LATENCY_MIN + rng.nextLong(BASE_LATENCY_SPREAD + 1);
        if (reorderNanos > 0) {
            latency += rng.nextLong(reorderNanos + 1);
        }
        e.queue.add(delivery(e.now + latency, from, to, message, gen));
    }

    /** A delivery event of {@code message} at {@code time} on connection generation {@code gen}. */
    Event delivery(long time, int from, int to, ElectorMessage message, long gen) {
        Event ev = e.newEvent(time, Event.DELIVER);
        ev.node = to;
        ev.from = from;
        ev.payload = message;
        ev.gen = gen;
        return ev;
    }

    /** Delivers {@code message} now, on the current connection (a fault's forged frame that decoded). */
    void deliverNow(int from, int to, ElectorMessage message) {
        e.dispatch(delivery(e.now, from, to, message, connGen[from][to]));
    }

    /** The longest a message can travel in a random run. */
    static long maxMessageDelay() {
        return BASE_LATENCY_MIN + BASE_LATENCY_SPREAD + MAX_REORDER_DELAY;
    }

    /**
     * Whether a message reaching a starved node now gets into its buffer: the checks of {@link #deliver} on arrival
     * (its node up, its connection not reset, not cut), each drop recorded as {@code deliver} records it. It is
     * handled later; {@link #deliver} then checks only what can still lose it (the node down, the connection reset).
     */
    boolean arrives(Event ev) {
        SimNode to = e.nodes[ev.node];
        ElectorMessage m = (ElectorMessage) ev.payload;
        if (!to.live()) {
            e.recorder.add(e.now, to.index, "drop-down", to.state.epoch(), ev.from, m);
            return false;
        }
        if (ev.gen != connGen[ev.from][ev.node]) {
            e.recorder.add(e.now, to.index, "drop-reset", to.state.epoch(), ev.from, m);
            return false;
        }
        if (blocked[ev.from][ev.node] > 0) {
            e.recorder.add(e.now, to.index, "drop-cut", to.state.epoch(), ev.from, m);
            return false;
        }
        return true;
    }

    void deliver(Event ev) {
        SimNode to = e.nodes[ev.node];
        ElectorMessage m = (ElectorMessage) ev.payload;
        if (!to.live()) {
            e.recorder.add(e.now, to.index, "drop-down", to.state.epoch(), ev.from, m);
            return;
        }
        if (ev.gen != connGen[ev.from][ev.node]) {
            e.recorder.add(e.now, to.index, "drop-reset", to.state.epoch(), ev.from, m);
            return;
        }
        if (ev.served && ev.incarnation != to.incarnation) {
            e.recorder.add(e.now, to.index, "drop-down", to.state.epoch(), ev.from, m);
            return;
        }
        if (blocked[ev.from][ev.node] > 0 && !ev.served) {
            e.recorder.add(e.now, to.index, "drop-cut", to.state.epoch(), ev.from, m);
            return;
        }
        if (to.paused) {
            to.deferred.add(ev);
            return;
        }
        e.recorder.add(e.now, to.index, "recv", to.state.epoch(), ev.from, m);
        e.invariants.beforeDeliver(to, ev.from, m);
        to.elector.onMessage(e.ids[ev.from], m);
        e.invariants.afterDeliver(to, ev.from, m);
        e.driver.afterEvent(to);
    }

    // ---------------------------------------------------------------- connections

    /** Resets the connection between a and b: each end is told on its own schedule; in-flight messages are lost. */
    void reset(int a, int b) {
        e.recorder.add(e.now, Recorder.NETWORK, "reset", 0, -1, e.ids[a] + "<->" + e.ids[b]);
        bump(a, b);
        tellClosed(e.nodes[a], b);
        tellClosed(e.nodes[b], a);
    }

    /** {@code node} crashed: every connection of it closes, and each live end learns at once. */
    void crashed(SimNode node) {
        for (SimNode peer : e.nodes) {
            if (peer != node) {
                bump(node.index, peer.index);
                // The dead end's kernel closes every socket at once and the live ends, reading, learn at once;
                // the skew between two live ends is what resets model (see tellClosed).
                if (e.exhaustive) {
                    tellClosed(peer, node.index);
                } else {
                    notifyLater(peer, node.index, Event.DISCONNECT);
                }
            }
        }
    }

    /** {@code node} restarts: the old process's connections are gone; whatever was in flight on them is lost. */
    void dropConnectionsOf(SimNode node) {
        for (SimNode peer : e.nodes) {
            if (peer != node) {
                bump(node.index, peer.index);
            }
        }
    }

    /** The restarted {@code node} connects to every live peer, which hears of it on its own schedule. */
    void reconnect(SimNode node) {
        for (SimNode peer : e.nodes) {
            if (peer != node && peer.live()) {
                node.elector.onPeerConnected(peer.id);
                if (learnOnWrite[peer.index][node.index]) {
                    // The half-open end learns of the old connection's end when the new one arrives.
                    notifyLater(peer, node.index, Event.DISCONNECT);
                }
                notifyLater(peer, node.index, Event.CONNECT);
            }
        }
    }

    /** A new process at {@code node}: it has no half-open connection to learn about. */
    void forgetClosings(SimNode node) {
        Arrays.fill(learnOnWrite[node.index], false);
    }

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
        if (e.exhaustive) {
            pendingNotices.add(notice(at, peer, Event.DISCONNECT));
            return;
        }
        switch (rng.nextInt(5)) {
            case 0, 1 -> notifyLater(at, peer, Event.DISCONNECT);
            case 2 -> notifyAfter(at, peer, rng.nextLong(5_000_001));
            case 3 -> notifyAfter(at, peer, rng.nextLong(MAX_NOTICE_DELAY + 1));
            default -> learnOnWrite[at.index][peer] = true;
        }
    }

    private void notifyAfter(SimNode at, int peer, long delay) {
        int incarnation = at.incarnation;
        e.at(e.now + delay, () -> {
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
        if (e.exhaustive) {
            pendingNotices.add(notice(at, peer, Event.GONE));
            return;
        }
        int incarnation = at.incarnation;
        e.at(e.now + BASE_LATENCY_MIN + rng.nextLong(BASE_LATENCY_SPREAD + 1), () -> {
            if (at.incarnation == incarnation && !e.nodes[peer].live()) {
                notifyLater(at, peer, Event.GONE);
            }
        });
    }

    private Event notice(SimNode at, int peer, int type) {
        Event ev = e.newEvent(e.now, type);
        ev.node = at.index;
        ev.from = peer;
        ev.incarnation = at.incarnation;
        return ev;
    }

    /** Exhaustive mode: tells the chosen pending notice now (a departure only if the peer is still down). */
    void tellNotice(int i) {
        Event ev = pendingNotices.remove(i);
        if (ev.type == Event.GONE && e.nodes[ev.from].live()) {
            return; // the probe now finds a listener: no proof
        }
        notifyLater(e.nodes[ev.node], ev.from, ev.type, ev.incarnation);
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
        Event ev = notice(at, peer, type);
        if (at.paused) {
            at.deferred.add(ev);
        } else {
            notifyPeer(ev);
        }
    }

    void notifyPeer(Event ev) {
        SimNode at = e.nodes[ev.node];
        if (!at.takes(ev)) {
            return;
        }
        boolean disconnect = ev.type == Event.DISCONNECT;
        String what = disconnect ? "disconnected" : ev.type == Event.GONE ? "gone" : "connected";
        e.recorder.add(e.now, at.index, what, at.state.epoch(), ev.from, null);
        if (disconnect) {
            at.elector.onPeerDisconnected(e.ids[ev.from]);
        } else if (ev.type == Event.GONE) {
            at.elector.onPeerGone(e.ids[ev.from]);
        } else {
            at.elector.onPeerConnected(e.ids[ev.from]);
        }
        e.driver.afterEvent(at);
        if (disconnect && at.live() && at.incarnation == ev.incarnation) {
            probeDeparture(at, ev.from);
        }
    }

    // ---------------------------------------------------------------- reachability

    /** Whether {@code x} cannot exchange messages both ways with a majority, counting itself. */
    boolean isCutOff(int x) {
        int count = 0;
        for (SimNode y : e.nodes) {
            if (reaches(x, y)) {
                count++;
            }
        }
        return !Quorums.isMajority(count, e.n);
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
        for (SimNode y : e.nodes) {
            if (reaches(x, y)) {
                words[y.index >>> 6] |= 1L << (y.index & 63);
            }
        }
    }
}
