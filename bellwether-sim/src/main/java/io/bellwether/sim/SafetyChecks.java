package io.bellwether.sim;

import io.bellwether.Role;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoredState;
import java.util.HashMap;
import java.util.Map;

/**
 * The checks every run makes: values-in-range (announced epochs and persisted values), term-monotonic (a node's
 * epoch never decreases), and, for runs that allow one leadership at a time, leader-epoch-increases (each new
 * leadership's epoch is above every earlier one) and, for quorum, one-leader-per-term.
 */
final class SafetyChecks {
    private final Engine e;
    /** Lease runs: terms restart with each incarnation (the store, not the node, keeps the token). */
    private final boolean lease;
    /** Whether two leaderships at one term are a violation (quorum). */
    private final boolean oneLeaderPerTerm;
    /** How many low bits of an epoch rank its minter (see {@link io.bellwether.elector.Algorithm#epochRankBits}). */
    private final int rankBits;

    // term-monotonic (kept across restarts)
    private final long[] highestEpoch;
    // leader-epoch-increases
    private long maxLeaderEpoch = Long.MIN_VALUE;
    // one-leader-per-term
    private final HashMap<Long, Integer> leaderOfEpoch = new HashMap<>();

    SafetyChecks(Engine engine, boolean lease, boolean oneLeaderPerTerm) {
        this.e = engine;
        this.lease = lease;
        this.oneLeaderPerTerm = oneLeaderPerTerm;
        this.rankBits = engine.config.descriptor().epochRankBits();
        this.highestEpoch = new long[engine.n];
    }

    void onIncarnation(SimNode node) {
        if (lease) {
            // A lease elector keeps nothing across restarts; it learns the token anew from the store. Within one
            // incarnation its epoch must still never decrease.
            highestEpoch[node.index] = 0;
        }
    }

    /** values-in-range for the state a node is in; false when violated. */
    boolean checkRange(SimNode node, ElectorState st) {
        if (!epochInRange(st.epoch())) {
            e.violate(
                    "values-in-range",
                    node.name + " is at epoch " + st.epoch() + ", whose counter is out of range: " + Counters.allowed(),
                    new int[] {node.index});
            return false;
        }
        return true;
    }

    /** term-monotonic: an active node's epoch never goes below one it was at; false when violated. */
    boolean checkTermMonotonic(SimNode node, ElectorState st) {
        int i = node.index;
        if (st.role() != Role.DORMANT) {
            if (st.epoch() < highestEpoch[i]) {
                e.violate(
                        "term-monotonic",
                        node.name + " is at epoch " + st.epoch() + " after having been at epoch " + highestEpoch[i],
                        new int[] {i});
                return false;
            }
            highestEpoch[i] = st.epoch();
        }
        return true;
    }

    /**
     * values-in-range: no node persists a term, counter, epoch or token out of {@link Counters}' range (its
     * successor could overflow, and the value would outlive restarts). Called before the state is saved.
     */
    void onPersist(SimNode node, StoredState state) {
        for (Map.Entry<String, Long> v : state.values().entrySet()) {
            if (!Counters.storedInRange(v.getKey(), v.getValue())) {
                e.violate(
                        "values-in-range",
                        node.name + " persisted " + v.getKey() + "=" + v.getValue() + ", out of range: "
                                + Counters.allowed(),
                        new int[] {node.index});
                return;
            }
        }
    }

    /** Whether an announced epoch's counter is in range: the epoch is the counter (quorum, lease) or packs it. */
    private boolean epochInRange(long epoch) {
        return epoch >= 0 && Counters.inRange(epoch >>> rankBits);
    }

    /** A node announced a new leadership: one-leader-per-term, leader-epoch-increases; false when violated. */
    boolean onNewLeadership(SimNode node, ElectorState st) {
        int i = node.index;
        Integer other = leaderOfEpoch.putIfAbsent(st.epoch(), i);
        if (oneLeaderPerTerm && other != null && other != i) {
            e.violate(
                    "one-leader-per-term",
                    node.name + " and " + e.ids[other] + " both announced LEADER at term " + st.epoch(),
                    new int[] {i, other});
            return false;
        }
        if (st.epoch() <= maxLeaderEpoch) {
            e.violate(
                    "leader-epoch-increases",
                    node.name + " announced LEADER at epoch " + st.epoch()
                            + ", not above the highest earlier leadership epoch " + maxLeaderEpoch,
                    leadersOf(i, maxLeaderEpoch));
            return false;
        }
        maxLeaderEpoch = st.epoch();
        return true;
    }

    private int[] leadersOf(int node, long epoch) {
        Integer other = leaderOfEpoch.get(epoch);
        return other == null || other == node ? new int[] {node} : new int[] {node, other};
    }
}
