package io.bellwether.sim;

import io.bellwether.Role;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.lease.LeaseConfig;

/**
 * The lease runs' model of a resource protected by fencing tokens, and the lease checkers that need it.
 *
 * <p>Each leader "writes" to the resource now and then (every 20–200 ms) while it believes it is valid by its
 * own clock: the check happens at the node, then the write travels to the resource. When pauses are among the
 * faults, one write in ten stalls on the way for up to two lease durations, like a process that checked its
 * leadership and then stopped (GC, VM stall) before acting. The resource accepts a write only if its token is
 * at least the highest it has seen, so stale writes are rejected; they are counted, not violations.
 *
 * <p>Checked here:
 *
 * <ul>
 *   <li>{@code validity-within-lease}: a leader's validity, in true time, never extends past the latest expiry
 *       the store gave its token (the store's clock is true time);
 *   <li>{@code action-after-lease-expiry}: no leader passes its validity check after its lease expired on the
 *       store;
 *   <li>{@code fenced-resource-accepted-stale-write}: the resource never accepts a write from one leadership
 *       with the token another leadership already wrote with (tokens must identify leaderships; lower tokens
 *       are rejected by construction).
 * </ul>
 */
final class FencedResource {
    private static final long MS = 1_000_000L;
    /** Timers fire up to a nanosecond or two late after clock-rate rounding; a millisecond covers it. */
    private static final long OUTLIVE_SLACK_NANOS = MS;

    private final Engine e;
    private final long durationNanos;
    private final boolean stalls;
    private final long[] scheduled;
    private long highestToken = Long.MIN_VALUE;
    private long highestWriter;
    long accepted;
    long staleRejected;

    FencedResource(Engine engine) {
        this.e = engine;
        ElectorSpec s = engine.spec;
        while (s instanceof DelegatingSpec d) {
            s = d.delegate();
        }
        this.durationNanos = s instanceof LeaseConfig l ? l.duration().toNanos() : 3_000 * MS;
        this.stalls = engine.config.faults().contains(FaultKind.PAUSE);
        this.scheduled = new long[engine.n];
        java.util.Arrays.fill(scheduled, -1);
    }

    /** Identifies one leadership: node, incarnation and token. */
    private static long key(SimNode node) {
        return (node.announced.epoch() << 24) | ((long) (node.incarnation & 0xFFFFF) << 4) | node.index;
    }

    void afterNodeEvent(SimNode node) {
        if (node.announced.role() != Role.LEADER) {
            return;
        }
        long token = node.announced.epoch();
        long bound = e.store.leaseStore.maxExpiryNanos(token);
        if (node.validUntilTrue > bound) {
            e.violate(
                    "validity-within-lease",
                    node.name + " (LEADER at token " + token + ") is valid until " + e.timeText(node.validUntilTrue)
                            + " but the store never let token " + token + " live past "
                            + (bound == Long.MIN_VALUE ? "its grant" : e.timeText(bound)),
                    new int[] {node.index});
            return;
        }
        long key = key(node);
        if (scheduled[node.index] != key) {
            scheduled[node.index] = key;
            int i = node.index;
            e.at(e.now + nextGap(), () -> attempt(i, key));
        }
    }

    private long nextGap() {
        return 20 * MS + e.store.rng.nextLong(180 * MS);
    }

    private void attempt(int i, long key) {
        if (scheduled[i] != key || e.violation != null) {
            return;
        }
        SimNode node = e.nodes[i];
        if (!node.live() || node.announced.role() != Role.LEADER || key(node) != key) {
            scheduled[i] = -1;
            return;
        }
        long token = node.announced.epoch();
        long local = node.localNanos(e.now);
        // A paused node cannot step down, a starved one steps down late (its backlog first): the check waits for it.
        if (!node.paused && !node.slow(e.now) && local > node.validUntilLocal + OUTLIVE_SLACK_NANOS) {
            e.violate(
                    "leader-outlives-validity",
                    node.name + " is still LEADER at token " + token + " " + e.timeText(local - node.validUntilLocal)
                            + " (its own clock) after its validity ended",
                    new int[] {i});
            return;
        }
        boolean believesValid = !node.paused && local < node.validUntilLocal;
        if (believesValid) {
            if (e.now >= e.store.leaseStore.maxExpiryNanos(token)) {
                e.violate(
                        "action-after-lease-expiry",
                        node.name + " passed its validity check at token " + token + " after its lease expired on"
                                + " the store at " + e.timeText(e.store.leaseStore.maxExpiryNanos(token)),
                        new int[] {i});
                return;
            }
            long delay = Network.BASE_LATENCY_MIN + e.store.rng.nextLong(Network.BASE_LATENCY_SPREAD + 1);
            if (stalls && e.store.rng.nextInt(10) == 0) {
                delay += e.store.rng.nextLong(2 * durationNanos);
            }
            e.at(e.now + delay, () -> arrive(token, key, i));
        }
        e.at(e.now + nextGap(), () -> attempt(i, key));
    }

    private void arrive(long token, long writer, int node) {
        if (token < highestToken) {
            staleRejected++;
            e.recorder.add(e.now, node, "fenced-reject", token, -1, "stale token " + token + " < " + highestToken);
            return;
        }
        if (token == highestToken && writer != highestWriter) {
            e.violate(
                    "fenced-resource-accepted-stale-write",
                    "the fenced resource accepted a write with token " + token + " from " + e.ids[node]
                            + " although another leadership (" + e.ids[(int) (highestWriter & 0xF)]
                            + ") already wrote with that token",
                    new int[] {node, (int) (highestWriter & 0xF)});
            return;
        }
        accepted++;
        highestToken = token;
        highestWriter = writer;
    }
}
