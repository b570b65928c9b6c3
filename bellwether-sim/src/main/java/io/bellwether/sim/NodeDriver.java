package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoreRequest;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.TimerKey;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Runs the nodes of an {@link Engine} as a runtime would: starts, crashes, stops (with a handover), restarts,
 * pauses and resumes their processes, fires their timers, and gives each incarnation of an elector its
 * simulated {@link ElectorContext}. After every event a node handles, the checkers and measurements look at it.
 */
final class NodeDriver {
    /** How long a node stopped gracefully may hand over before the driver stops it (a runtime's close() bound). */
    static final long HANDOVER_LIMIT_NANOS = 5_000_000_000L;

    private final Engine e;

    NodeDriver(Engine engine) {
        this.e = engine;
    }

    // ---------------------------------------------------------------- processes

    /** Starts every node at time 0 and connects every pair. */
    void startAll() {
        for (SimNode node : e.nodes) {
            boot(node);
            if (e.violation != null) {
                return;
            }
        }
        for (SimNode a : e.nodes) {
            for (SimNode b : e.nodes) {
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
        forget(node);
        e.invariants.onIncarnation(node);
        Context ctx = new Context(node, node.incarnation);
        node.elector = Objects.requireNonNull(node.spec.create(ctx), "spec.create returned null");
        node.elector.start();
        afterEvent(node);
    }

    /** What a process kept in memory is gone: its half-open connections, timers, queued events, announcements. */
    private void forget(SimNode node) {
        e.net.forgetClosings(node);
        node.timers.clear();
        node.deferred.clear();
        node.announced = ElectorState.DORMANT;
        node.validUntilTrue = Long.MIN_VALUE;
        node.validUntilLocal = Long.MIN_VALUE;
        node.resignedUntilLocal = Long.MIN_VALUE; // a hold-off is volatile: a restarted process has none
    }

    void afterEvent(SimNode node) {
        e.accounting.trackLeaderOverlap();
        if (!node.live()) {
            return;
        }
        if (node.handingOver && node.elector.state().role() == Role.DORMANT) {
            // The handover is over; the stop completes as its own event, as a runtime's close() goes on.
            node.handingOver = false;
            int incarnation = node.incarnation;
            e.at(e.now, () -> {
                if (node.incarnation == incarnation) {
                    finishStop(node);
                }
            });
        }
        ElectorState st = node.elector.state();
        // Convergence is a property of the nodes' states: only a state change can reach it.
        boolean check = e.accounting.awaitingConvergence() && !st.equals(node.state);
        node.state = st;
        e.invariants.afterNodeEvent(node, st);
        if (e.fenced != null && e.violation == null) {
            e.fenced.afterNodeEvent(node);
        }
        if (check) {
            e.accounting.checkConverged();
        }
    }

    void crash(SimNode node, boolean silent) {
        e.recorder.add(e.now, node.index, silent ? "silent-crash" : "crash", node.state.epoch(), -1, null);
        node.up = false;
        node.handingOver = false;
        node.elector = null;
        node.incarnation++;
        node.paused = false;
        node.busyUntil = 0; // what the process had not handled yet dies with it
        forget(node);
        e.invariants.onDown(node);
        e.accounting.trackLeaderOverlap();
        if (!silent) {
            e.net.crashed(node);
        }
        e.topologyChanged();
    }

    /**
     * Gracefully stops a node, as a runtime does: an elector that starts a handover ({@link Elector#beginStop})
     * keeps running until it announces DORMANT (at the latest {@link #HANDOVER_LIMIT_NANOS} later); then, or at
     * once, its {@link Elector#stop()} may send a last word (a cession), and it handles nothing more.
     */
    void stop(SimNode node) {
        e.recorder.add(e.now, node.index, "stop", node.state.epoch(), -1, null);
        boolean handingOver = node.elector.beginStop();
        afterEvent(node);
        if (handingOver && node.live() && node.announced.role() != Role.DORMANT) {
            node.handingOver = true;
            int incarnation = node.incarnation;
            e.at(e.now + HANDOVER_LIMIT_NANOS, () -> {
                if (node.incarnation == incarnation && node.handingOver) {
                    finishStop(node);
                }
            });
            return;
        }
        finishStop(node);
    }

    /**
     * The node resigns and stays a member ({@link Elector#resign}) for {@code holdOffNanos} of its own clock; the
     * checks hold it to that.
     */
    void resign(SimNode node, long holdOffNanos) {
        e.recorder.add(
                e.now, node.index, "resign", node.state.epoch(), -1, "hold-off " + holdOffNanos / 1_000_000 + "ms");
        node.resignedUntilLocal = node.localNanos(e.now) + holdOffNanos;
        node.elector.resign(holdOffNanos);
        afterEvent(node);
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
        forget(node);
        e.invariants.onDown(node);
        e.accounting.trackLeaderOverlap();
        e.topologyChanged();
    }

    /** Starts a crashed or stopped node again: a fresh elector over the same durable store. */
    void restart(SimNode node) {
        e.recorder.add(e.now, node.index, "restart", node.state.epoch(), -1, node.store.state);
        e.net.dropConnectionsOf(node);
        boot(node);
        if (e.violation != null) {
            return;
        }
        e.net.reconnect(node);
        afterEvent(node);
        e.topologyChanged();
    }

    void pause(SimNode node) {
        e.recorder.add(e.now, node.index, "pause", node.state.epoch(), -1, null);
        node.paused = true;
        e.accounting.trackLeaderOverlap();
        e.invariants.onPause(node);
        e.topologyChanged();
    }

    void resume(SimNode node) {
        e.recorder.add(e.now, node.index, "resume", node.state.epoch(), -1, node.deferred.size() + " queued events");
        node.paused = false;
        e.accounting.trackLeaderOverlap();
        e.topologyChanged();
        while (!node.deferred.isEmpty() && node.live() && !node.paused && e.violation == null) {
            e.dispatch(node.deferred.poll());
        }
        if (e.violation == null && node.live() && !node.paused) {
            e.invariants.afterResume(node);
        }
    }

    // ---------------------------------------------------------------- timers

    private void arm(SimNode node, TimerKey key, long localDelay) {
        long delay = Math.max(0, localDelay);
        if (key.coalesced()) {
            delay += e.coalescingLateness(delay); // as the runtime's coalescing grid may fire it
        }
        Event ev = e.newEvent(e.now + node.trueDelay(delay), Event.TIMER);
        ev.node = node.index;
        ev.payload = key;
        ev.incarnation = node.incarnation;
        ev.localDeadline = node.localNanos(e.now) + delay;
        node.timers.put(key, ev);
        e.queue.add(ev);
    }

    boolean timerIsLive(Event ev) {
        SimNode node = e.nodes[ev.node];
        return node.live() && node.incarnation == ev.incarnation && node.timers.get((TimerKey) ev.payload) == ev;
    }

    void fireTimer(Event ev) {
        SimNode node = e.nodes[ev.node];
        if (!timerIsLive(ev) || !node.takes(ev)) {
            return;
        }
        TimerKey key = (TimerKey) ev.payload;
        node.timers.remove(key);
        e.recorder.add(e.now, node.index, "timer", node.state.epoch(), -1, key.name());
        node.elector.onTimer(key);
        afterEvent(node);
    }

    // ---------------------------------------------------------------- announcements

    private void onAnnounce(SimNode node, ElectorState st, ChangeReason reason) {
        ElectorState prev = node.announced;
        node.announced = st;
        e.recorder.add(e.now, node.index, "role", st.epoch(), -1, new Announcement(st, reason));
        if (st.role() != Role.LEADER) {
            node.validUntilTrue = Long.MIN_VALUE;
            node.validUntilLocal = Long.MIN_VALUE;
        }
        boolean newLeadership = st.role() == Role.LEADER && (prev.role() != Role.LEADER || prev.epoch() != st.epoch());
        e.accounting.onAnnounce(node, prev, st, newLeadership);
        e.invariants.onAnnounce(node, prev, st, newLeadership);
    }

    private void onValidUntil(SimNode node, long localNanos) {
        node.validUntilLocal = localNanos;
        // Long.MIN_VALUE is "no longer valid" (support lost): converted, it would wrap around to the far future.
        node.validUntilTrue = localNanos == Long.MIN_VALUE ? Long.MIN_VALUE : node.trueNanos(localNanos);
        e.recorder.add(
                e.now, node.index, "valid", node.announced.epoch(), -1, new Validity(node.validUntilTrue, e.now));
        e.invariants.onValidUntil(node);
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

    // ---------------------------------------------------------------- the context

    /** The simulated {@link ElectorContext} of one incarnation of one node. */
    private final class Context implements ElectorContext {
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
            return e.members;
        }

        @Override
        public long nanoTime() {
            return node.localNanos(e.now);
        }

        @Override
        public RandomGenerator random() {
            return node.random;
        }

        @Override
        public void send(NodeId to, ElectorMessage message) {
            Objects.requireNonNull(message, "message");
            if (current()) {
                e.net.send(node, e.indexOf(to), message);
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
            return node.store.load(StoreLink.STORE_GROUP);
        }

        @Override
        public void persist(StoredState state) {
            Objects.requireNonNull(state, "state");
            if (current()) {
                e.invariants.onPersist(node, state);
                node.store.save(StoreLink.STORE_GROUP, state);
                e.recorder.add(e.now, node.index, "persist", node.state.epoch(), -1, state);
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
                if (e.store == null) {
                    throw new UnsupportedOperationException("a " + e.config.algorithm() + " run has no store");
                }
                e.store.request(node, request);
            }
        }
    }
}
