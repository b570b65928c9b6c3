package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.TimerKey;
import io.bellwether.elector.Trait;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The discrete-event core shared by random runs and exhaustive exploration: N nodes, each a real elector
 * behind a simulated {@link ElectorContext}, a virtual clock, a simulated network with TCP-like connections,
 * and hooks for the invariant checkers. Single-threaded and deterministic: everything random comes from the
 * run seed, and nothing iterates a hash-ordered collection on a path that affects behaviour.
 *
 * <p>The engine owns the clock, the event queue and the run's outcome, and hands each event to its part: the
 * {@link Network}, the {@link StoreLink} of a lease run, the {@link NodeDriver} (processes, timers, contexts);
 * the {@link ElectionAccounting} measures, the {@link Invariants} and {@link FencedResource} check.
 */
final class Engine {
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
    final boolean exhaustive;

    final Network net;
    final NodeDriver driver;
    final ElectionAccounting accounting;
    /** The lease store's side (lease runs only; null otherwise). */
    final StoreLink store;
    /** The lease runs' fenced resource (null otherwise). */
    final FencedResource fenced;

    final Invariants invariants;
    final SplittableRandom faultRng;
    /**
     * How late each coalesced timer fires ({@link TimerKey#coalesced()}), as the runtime's grid
     * may make it: a generator of its own, so that every other draw of a run is what it was without.
     */
    private final SplittableRandom coalescingRng;

    long now;
    private long seq;
    long events;

    Violation violation;
    /** Extra words for a violation message (the exhaustive path). */
    String violationSuffix = "";
    /** The replay command of a violation, when the run is not one that {@code simulate} replays; or null. */
    String replayOverride;

    /**
     * How late to fire a coalesced timer of {@code delayNanos}: uniform within what the runtime may add ({@link
     * TimerKey#coalescingNanos}); none in exhaustive runs, whose orders the explorer chooses.
     */
    long coalescingLateness(long delayNanos) {
        long bound = TimerKey.coalescingNanos(delayNanos);
        return exhaustive || bound == 0 ? 0 : coalescingRng.nextLong(bound);
    }

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
        NodeId[] sorted = ids.clone();
        java.util.Arrays.sort(sorted);
        this.members = List.of(sorted);
        this.recorder = new Recorder(names, keepHistory, ringCapacity);
        SplittableRandom master = new SplittableRandom(seed);
        this.net = new Network(this, master.split());
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
        // Priorities come from a generator of their own, so that every other draw of a run is what it was without.
        SplittableRandom priorityRng = new SplittableRandom(seed ^ 0x7072696f72697479L);
        this.coalescingRng = new SplittableRandom(seed ^ 0x636f616c65736365L);
        Map<NodeId, Integer> priorities = new HashMap<>();
        for (SimNode node : nodes) {
            node.priority =
                    config.priorities() ? priorityRng.nextInt(SimulationConfig.PRIORITY_LEVELS) : spec.priority();
            priorities.put(node.id, node.priority);
        }
        for (SimNode node : nodes) {
            node.spec = config.priorities() ? prioritised(spec, priorities, node.id, seed) : spec;
        }
        this.driver = new NodeDriver(this);
        this.accounting = new ElectionAccounting(this);
        if (config.variant().has(Trait.USES_STORE)) {
            // Split last, so that runs of the other algorithms draw exactly what they drew before.
            this.store = new StoreLink(this, master.split());
            this.fenced = new FencedResource(this);
        } else {
            this.store = null;
            this.fenced = null;
        }
        this.invariants = new Invariants(this, config.variant());
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

    /**
     * How far behind a starved node may fall ({@link FaultKind#STARVE}): a process whose host is saturated runs late,
     * but its peers' connections and its own bounded queues stop the backlog from growing for ever; a second is
     * several election timeouts of every algorithm's defaults.
     */
    static final long STARVE_MAX_LAG_NANOS = 1_000_000_000L;

    void dispatch(Event e) {
        if (e.node >= 0 && e.type != Event.ACTION && !e.served && nodes[e.node].slow(now)) {
            // A message has crossed the network when it arrives (a partition that begins while it waits in the
            // receiver's buffer does not take it back): the network's checks apply now, the handling later.
            if (e.type != Event.DELIVER || net.arrives(e)) {
                serveLater(e);
            }
            return;
        }
        try {
            switch (e.type) {
                case Event.ACTION -> e.action.run();
                case Event.DELIVER -> net.deliver(e);
                case Event.TIMER -> driver.fireTimer(e);
                case Event.DISCONNECT, Event.CONNECT, Event.GONE -> net.notifyPeer(e);
                case Event.STORE_REPLY -> store.deliverReply(e);
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

    /**
     * A starved node's event ({@link FaultKind#STARVE}): it is handled once the node has handled everything it took
     * before it and spent this event's own service time on it (a random part of the node's bound, at least 1 ns, so
     * the node's events keep their order). Once the starvation ends, events only wait for the backlog. A node falls
     * at most {@link #STARVE_MAX_LAG_NANOS} behind: past it, it serves events as fast as they come, that far behind.
     */
    private void serveLater(Event e) {
        SimNode node = nodes[e.node];
        long cost = node.starveCostNanos > 0 ? 1 + faultRng.nextLong(node.starveCostNanos) : 1;
        long start = Math.max(now, node.busyUntil);
        e.time = Math.max(start + 1, Math.min(start + cost, now + STARVE_MAX_LAG_NANOS));
        e.seq = seq++;
        e.served = true;
        if (e.type == Event.DELIVER) {
            e.incarnation = node.incarnation; // the process that buffered it; a restarted one never reads it
        }
        node.busyUntil = e.time;
        queue.add(e);
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

    void topologyChanged() {
        invariants.topologyChanged();
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

    /**
     * {@code spec} with the run's priorities, as {@code self} gets them. On even seeds the whole group's (as
     * {@code ElectionBuilder.spreadLeaders} gives them: a quorum member then also ranks its backoff by them); on odd
     * seeds only its own where the algorithm takes one alone (as a configuration file's {@code priority} gives it),
     * so both ways are explored.
     */
    static ElectorSpec prioritised(ElectorSpec spec, Map<NodeId, Integer> all, NodeId self, long seed) {
        if (seed % 2 != 0 && takesOwnPriority(spec)) {
            return spec.withPriority(all.getOrDefault(self, 0));
        }
        return spec.withPriorities(all, self);
    }

    /**
     * Whether the algorithm takes a member's own priority alone; one that takes only the group's whole order
     * (bully) refuses it. Probed with a priority that is not 0, the same for every node: a 0 would be taken by both.
     */
    private static boolean takesOwnPriority(ElectorSpec spec) {
        try {
            spec.withPriority(1);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
