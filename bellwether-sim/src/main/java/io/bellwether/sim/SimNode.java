package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.TimerKey;
import io.bellwether.spi.StateStore;
import java.util.ArrayDeque;
import java.util.HashMap;

/** One simulated member: its process (elector, timers, pause), its clock and its durable store. */
final class SimNode {
    final int index;
    final NodeId id;
    final String name;
    final CountingRandom random;
    /** Local clock rate relative to true time: 1 + drift. */
    final double rate;

    final long offset;
    final SimStateStore store = new SimStateStore();
    /** Its priority, and the spec its electors are created from (the run's, with that priority). */
    int priority;

    ElectorSpec spec;

    Elector elector;
    /** Effects of a context are honoured only while its incarnation is the node's current one. */
    int incarnation;

    boolean up;
    boolean stopped;
    /** Stopped gracefully and still running its handover ({@link io.bellwether.elector.Elector#beginStop}). */
    boolean handingOver;

    boolean paused;
    /**
     * While a {@link FaultKind#STARVE} lasts, the most one event may cost this node (true nanoseconds); 0 when it is
     * not starved.
     */
    long starveCostNanos;
    /** The true time until which this node is busy with events it took while starved (its backlog's end). */
    long busyUntil;

    final ArrayDeque<Event> deferred = new ArrayDeque<>();
    /** Armed timers; no iteration on the hot path, only sorted iteration for state hashing. */
    final HashMap<TimerKey, Event> timers = new HashMap<>();

    /** The elector's state after its last handled event. */
    ElectorState state = ElectorState.DORMANT;
    /** The last state it announced. */
    ElectorState announced = ElectorState.DORMANT;
    /** The announced validity, converted to true time; {@code Long.MIN_VALUE} when none. */
    long validUntilTrue = Long.MIN_VALUE;
    /** The announced validity on the node's own clock. */
    long validUntilLocal = Long.MIN_VALUE;

    long leaderSince = Long.MIN_VALUE;
    /** Until this instant of its own clock the node resigned and must not lead; {@code Long.MIN_VALUE} when none. */
    long resignedUntilLocal = Long.MIN_VALUE;

    SimNode(int index, NodeId id, CountingRandom random, double rate, long offset) {
        this.index = index;
        this.id = id;
        this.name = id.value();
        this.random = random;
        this.rate = rate;
        this.offset = offset;
    }

    boolean live() {
        return up && !stopped;
    }

    /**
     * Whether {@code ev}, addressed to this node, is to be handled now. An event of an earlier incarnation, or
     * for a node that is down, is dropped; a paused node's is queued until it resumes.
     */
    boolean takes(Event ev) {
        if (!live() || incarnation != ev.incarnation) {
            return false;
        }
        if (paused) {
            deferred.add(ev);
            return false;
        }
        return true;
    }

    /** Whether this node is starved now or still working through what it took while starved. */
    boolean slow(long now) {
        return starveCostNanos > 0 || busyUntil > now;
    }

    long localNanos(long trueNanos) {
        return offset + (rate == 1.0 ? trueNanos : (long) Math.floor(trueNanos * rate));
    }

    /** The true time at which the local clock shows {@code local} (rounded down). */
    long trueNanos(long local) {
        long delta = local - offset;
        return rate == 1.0 ? delta : (long) Math.floor(delta / rate);
    }

    /** The true delay after which the local clock has advanced by at least {@code localDelay}. */
    long trueDelay(long localDelay) {
        return rate == 1.0 ? localDelay : (long) Math.ceil(localDelay / rate) + 1;
    }

    /** The simulated durable store: survives crashes of the node. */
    static final class SimStateStore implements StateStore {
        StoredState state = StoredState.EMPTY;

        @Override
        public StoredState load(String group) {
            return state;
        }

        @Override
        public void save(String group, StoredState value) {
            state = value;
        }
    }
}
