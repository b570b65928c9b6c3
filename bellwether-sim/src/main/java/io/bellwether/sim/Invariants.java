package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import io.bellwether.invitation.GroupNumber;
import io.bellwether.invitation.InvitationElector;
import io.bellwether.invitation.InvitationElector.GroupView;
import io.bellwether.invitation.InvitationElector.Phase;
import io.bellwether.quorum.QuorumMessage;
import io.bellwether.ring.RingConfig;
import io.bellwether.ring.RingMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The online invariant checkers. Each hook is called by the {@link Engine} at the moment the fact it checks
 * becomes observable, so a violation is reported at the first event that shows it. Generic checks run for
 * every algorithm; the quorum checks only when the run's algorithm is {@code quorum}; no-overlapping-validity
 * runs for quorum and lease. The lease runs' store and fencing checks live in {@link FencedResource}.
 *
 * <p>The classic algorithms ({@link #SPLIT_BRAIN_ALGORITHMS}: bully, ring) keep working on every side of a
 * partition, so two coordinators, and leaderships whose epochs do not increase across sides, are not violations
 * for them (the engine measures the time with two leaders instead). What must hold for them: every node's
 * adopted epochs strictly increase (adopted-epochs-increase), each epoch names one coordinator
 * (one-coordinator-per-epoch), and after the faults stop every live node names the same coordinator, the highest
 * live id (single-leader-after-quiet, highest-live-id-leads). Ring runs also check every COORDINATOR a node sends
 * (ring-coordinator-names-max) and that each node forwards an election id at most once per message kind
 * (ring-forward-once; per incarnation: what a node forwarded is volatile state, and a restarted process has
 * forgotten it, which is harmless because every other node still drops the id). Strict bully runs ({@code
 * bully-strict}) add the checks of {@link StrictBullyChecks}.
 *
 * <p>Invitation runs ({@code invitation}, {@code invitation-gated}) read every node's {@link
 * InvitationElector#group()} view after each of its events and announcements: within one group number every
 * node in the normal state reports the same member list, containing itself and the coordinator, and a node
 * names (and acts as) no coordinator but its group's (one-group-view-per-number); each node's group numbers
 * strictly increase, across restarts too, so no number is ever entered twice (group-numbers-increase); and
 * after the faults stop, every live node is in one normal group whose members are exactly the live nodes,
 * coordinated by the one LEADER that every other node names (single-leader-after-quiet, within {@link
 * #INVITATION_CONVERGENCE_BOUND_NANOS}, or {@link #GATED_INVITATION_CONVERGENCE_BOUND_NANOS} with the gate).
 * Ungated invitation is a split-brain algorithm: two coordinators under a partition are measured, and the epoch
 * checks that assume one leadership at a time (one leader per epoch, leader epochs increase, one coordinator per
 * epoch; two singleton groups with the same counter share an epoch) are off. With the majority gate ({@code invitation-gated}) no-overlapping-validity and
 * leader-epoch-increases apply as for quorum.
 */
final class Invariants {
    /** How long after the quiet phase starts a single, universally known leader must exist. */
    static final long QUIET_CONVERGENCE_BOUND_NANOS = 5_000_000_000L;

    /**
     * Runs that may elect a coordinator on each side of a partition ({@link Trait#SPLITS_UNDER_PARTITION}): bully,
     * ring and invitation without its majority gate ({@code invitation-gated} is not here).
     */
    static final Set<String> SPLIT_BRAIN_ALGORITHMS = Algorithms.variants().stream()
            .filter(v -> v.has(Trait.SPLITS_UNDER_PARTITION))
            .map(Variant::name)
            .collect(Collectors.toUnmodifiableSet());

    /** The algorithm-specific checkers a {@link Variant#checks()} may name. */
    static final List<String> CHECKS = List.of("quorum", "ring", "strict-bully", "invitation");

    /**
     * Classic invitation runs: how long after the quiet phase starts one group of every live node must have
     * formed. Measured over 4000 seeds of 5-node runs with every fault kind: p50 0.29 s, p99 0.69 s, max 1.03 s.
     */
    static final long INVITATION_CONVERGENCE_BOUND_NANOS = 2_000_000_000L;

    /**
     * Gated invitation runs: the same bound with the majority gate on. Measured over 4000 seeds of 5-node runs
     * with every fault kind: p50 0.33 s, p99 2.4 s, max 5.7 s; the tail is the gated elector re-forming its group
     * repeatedly while members' fences (one lease each) and lost-member re-forms chase each other after a heal.
     */
    static final long GATED_INVITATION_CONVERGENCE_BOUND_NANOS = 8_000_000_000L;

    private final Engine e;
    private final boolean quorum;
    /** Lease runs: terms restart with each incarnation (the store, not the node, keeps the token). */
    private final boolean lease;
    /** Whether no two nodes may hold valid leaderships at once (quorum and lease). */
    private final boolean exclusive;
    /** How many low bits of an epoch rank its minter (see {@link io.bellwether.elector.Algorithm#epochRankBits}). */
    private final int rankBits;

    private final int n;

    /** Bully and ring: see the class comment. */
    private final boolean splitBrainAllowed;
    /** Whether the quiet phase must end with the highest live id leading (bully with pre-emption, ring). */
    private final boolean highestWins;

    private final boolean ring;
    /** Strict bully runs: the strict-mode checks; null otherwise. */
    private final StrictBullyChecks strictBully;

    /** Invitation runs (gated or not): the group-view checks. */
    private final boolean invitation;
    // one-group-view-per-number: the member list first reported for each number
    private final HashMap<GroupNumber, List<NodeId>> membersOfGroup = new HashMap<>();
    // group-numbers-increase (kept across restarts: the counter is persisted)
    private final GroupNumber[] lastGroup;
    private final boolean[] newIncarnation;
    // adopted-epochs-increase (kept across restarts: the adopted epoch is persisted)
    private final long[] adoptedEpoch;
    private final NodeId[] adoptedLeader;
    // one-coordinator-per-epoch
    private final HashMap<Long, NodeId> coordinatorOfEpoch = new HashMap<>();
    // ring-forward-once, per node incarnation: (kind, election id) -> the message id it was forwarded under
    private final HashMap<Object, Long>[] forwarded;

    // generic
    private long maxLeaderEpoch = Long.MIN_VALUE;

    // one-leader-per-term
    private final HashMap<Long, Integer> leaderOfEpoch = new HashMap<>();
    // one-vote-per-term: per node, term -> candidate (kept across restarts)
    private final HashMap<Long, Integer>[] votes;
    // term-monotonic (kept across restarts)
    private final long[] highestEpoch;
    // lsn-monotonic, per incarnation
    private final long[] lsnTerm;
    private final long[] lsnSeq;
    // scouting-changes-no-state and lsn tracking of the delivery in progress
    private ElectorState stateBeforeScouting;
    private int heartbeatTo = -1;
    private int heartbeatFrom = -1;
    private long heartbeatTerm;
    private long heartbeatSeq;
    private boolean heartbeatAccepted;
    // leader-steps-down-when-cut-off
    private final long[] cutOffSince;
    private final long[] cutOffToken;
    /** Per node, the bit set of nodes it reached at the last topology change ({@link Network#reachable}). */
    private final long[][] reachable;

    private final long[] reachableNow;
    // isolated-return-keeps-leader
    private int watchLeader = -1;
    private long watchEpoch;
    private long watchUntil;
    private int watchIsolated;
    private long watchFrom;
    // single-leader-after-quiet
    private long quietStart = -1;
    private long quietDeadline;
    private long convergedSince = -1;
    private final long convergenceBoundNanos;
    private boolean pastDeadline;

    @SuppressWarnings("unchecked")
    Invariants(Engine engine, Variant run) {
        this.e = engine;
        for (String check : run.checks()) {
            if (!CHECKS.contains(check)) {
                throw new IllegalArgumentException("check '" + check + "' of " + run.name()
                        + " is unknown to the simulator: allowed " + String.join(", ", CHECKS));
            }
        }
        this.quorum = run.checks().contains("quorum");
        this.lease = run.has(Trait.USES_STORE);
        this.invitation = run.checks().contains("invitation");
        this.exclusive = run.has(Trait.EXCLUSIVE);
        this.rankBits = engine.config.descriptor().epochRankBits();
        this.convergenceBoundNanos = !invitation
                ? QUIET_CONVERGENCE_BOUND_NANOS
                : exclusive ? GATED_INVITATION_CONVERGENCE_BOUND_NANOS : INVITATION_CONVERGENCE_BOUND_NANOS;
        this.splitBrainAllowed = run.has(Trait.SPLITS_UNDER_PARTITION);
        this.highestWins = highestWins(engine.spec);
        this.ring = run.checks().contains("ring");
        this.strictBully = run.checks().contains("strict-bully") ? new StrictBullyChecks(engine) : null;
        this.n = engine.n;
        this.adoptedEpoch = new long[n];
        this.adoptedLeader = new NodeId[n];
        this.lastGroup = new GroupNumber[n];
        this.newIncarnation = new boolean[n];
        this.forwarded = new HashMap[n];
        for (int i = 0; i < n; i++) {
            forwarded[i] = new HashMap<>();
        }
        this.votes = new HashMap[n];
        for (int i = 0; i < n; i++) {
            votes[i] = new HashMap<>();
        }
        this.highestEpoch = new long[n];
        this.lsnTerm = new long[n];
        this.lsnSeq = new long[n];
        this.cutOffSince = new long[n];
        this.cutOffToken = new long[n];
        this.reachable = new long[n][Network.reachableWords(n)];
        this.reachableNow = new long[Network.reachableWords(n)];
        java.util.Arrays.fill(cutOffSince, -1);
    }

    // ---------------------------------------------------------------- lifecycle

    /** Whether the spec promises that the highest live id ends up leading once faults stop. */
    static boolean highestWins(ElectorSpec spec) {
        ElectorSpec s = spec;
        while (s instanceof DelegatingSpec d) {
            s = d.delegate();
        }
        return (s instanceof BullyConfig b && b.preemption()) || s instanceof RingConfig;
    }

    void onIncarnation(SimNode node) {
        if (strictBully != null) {
            strictBully.onIncarnation(node);
        }
        forwarded[node.index].clear();
        newIncarnation[node.index] = true;
        if (lease) {
            // A lease elector keeps nothing across restarts; it learns the token anew from the store. Within one
            // incarnation its epoch must still never decrease.
            highestEpoch[node.index] = 0;
        }
        lsnTerm[node.index] = Long.MIN_VALUE;
        lsnSeq[node.index] = Long.MIN_VALUE;
    }

    void onDown(SimNode node) {
        cutOffSince[node.index] = -1;
        cutOffToken[node.index]++;
    }

    void onPause(SimNode node) {
        // A paused leader cannot step down; the bound restarts from when it resumes, if still cut off.
        cutOffSince[node.index] = -1;
        cutOffToken[node.index]++;
    }

    // ---------------------------------------------------------------- per event

    void afterNodeEvent(SimNode node, ElectorState st) {
        int i = node.index;
        if (!epochInRange(st.epoch())) {
            e.violate(
                    "values-in-range",
                    node.name + " is at epoch " + st.epoch() + ", whose counter is out of range: " + Counters.allowed(),
                    new int[] {i});
            return;
        }
        if (invitation && !checkGroup(node)) {
            return;
        }
        if (st.role() != Role.DORMANT) {
            if (st.epoch() < highestEpoch[i]) {
                e.violate(
                        "term-monotonic",
                        node.name + " is at epoch " + st.epoch() + " after having been at epoch " + highestEpoch[i],
                        new int[] {i});
                return;
            }
            highestEpoch[i] = st.epoch();
        }
        if (watchLeader >= 0) {
            checkIsolationWatch(node, st);
        }
        if (quietStart >= 0) {
            checkQuiet();
        }
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

    void onAnnounce(SimNode node, ElectorState prev, ElectorState st, boolean newLeadership) {
        int i = node.index;
        if (invitation && !checkGroup(node)) {
            return;
        }
        if (splitBrainAllowed) {
            if (!invitation) {
                checkAdoption(node, st);
            }
            if (strictBully != null) {
                strictBully.onAnnounce(node, prev, st);
            }
            return;
        }
        if (newLeadership) {
            Integer other = leaderOfEpoch.putIfAbsent(st.epoch(), i);
            if (quorum && other != null && other != i) {
                e.violate(
                        "one-leader-per-term",
                        node.name + " and " + e.ids[other] + " both announced LEADER at term " + st.epoch(),
                        new int[] {i, other});
                return;
            }
            if (st.epoch() <= maxLeaderEpoch) {
                e.violate(
                        "leader-epoch-increases",
                        node.name + " announced LEADER at epoch " + st.epoch()
                                + ", not above the highest earlier leadership epoch " + maxLeaderEpoch,
                        leadersOf(i, maxLeaderEpoch));
                return;
            }
            maxLeaderEpoch = st.epoch();
            if (exclusive) {
                checkOverlap(node);
            }
        }
        if (quorum && st.role() == Role.CANDIDATE && (prev.role() != Role.CANDIDATE || prev.epoch() != st.epoch())) {
            vote(i, st.epoch(), i);
        }
        if (quorum) {
            cutOffCheckNow(i);
        }
    }

    /** Bully and ring: a node names a coordinator only at an epoch above every one it named before. */
    private void checkAdoption(SimNode node, ElectorState st) {
        if (st.leader().isEmpty()) {
            return;
        }
        int i = node.index;
        NodeId coordinator = st.leader().get();
        NodeId known = coordinatorOfEpoch.putIfAbsent(st.epoch(), coordinator);
        if (known != null && !known.equals(coordinator)) {
            e.violate(
                    "one-coordinator-per-epoch",
                    node.name + " names " + coordinator + " as coordinator of epoch " + st.epoch() + ", which " + known
                            + " coordinates",
                    new int[] {i, e.indexOf(known), e.indexOf(coordinator)});
            return;
        }
        long before = adoptedEpoch[i];
        NodeId beforeLeader = adoptedLeader[i];
        if (st.epoch() < before || (st.epoch() == before && !coordinator.equals(beforeLeader))) {
            e.violate(
                    "adopted-epochs-increase",
                    node.name + " adopted " + coordinator + " at epoch " + st.epoch() + " after having adopted "
                            + beforeLeader + " at epoch " + before,
                    new int[] {i});
            return;
        }
        adoptedEpoch[i] = st.epoch();
        adoptedLeader[i] = coordinator;
    }

    /** The node's group view; empty when it is down or its elector is not an invitation elector. */
    private static Optional<GroupView> groupOf(SimNode node) {
        return node.elector instanceof InvitationElector ie ? ie.group() : Optional.empty();
    }

    /** Invitation: the group-view checks of the class comment; false when one was violated. */
    private boolean checkGroup(SimNode node) {
        Optional<GroupView> view = groupOf(node);
        if (view.isEmpty()) {
            return true;
        }
        GroupView g = view.get();
        int i = node.index;
        GroupNumber last = lastGroup[i];
        if (newIncarnation[i] || !g.number().equals(last)) {
            if (last != null && !g.number().isAbove(last)) {
                e.violate(
                        "group-numbers-increase",
                        node.name + " is in group " + g.number() + " (" + g.phase() + ")"
                                + (newIncarnation[i] ? " after restarting" : "") + " after having been in group "
                                + last,
                        new int[] {i});
                return false;
            }
            lastGroup[i] = g.number();
            newIncarnation[i] = false;
        }
        if (g.phase() != Phase.NORMAL) {
            return true;
        }
        int coordinator = e.indexOf(g.coordinator());
        if (!g.members().contains(node.id) || !g.members().contains(g.coordinator())) {
            e.violate(
                    "one-group-view-per-number",
                    node.name + " reports group " + g.number() + " with members " + g.members()
                            + ", which lack it or the coordinator",
                    new int[] {i, coordinator});
            return false;
        }
        List<NodeId> known = membersOfGroup.putIfAbsent(g.number(), g.members());
        if (known != null && !known.equals(g.members())) {
            e.violate(
                    "one-group-view-per-number",
                    node.name + " reports group " + g.number() + " with members " + g.members()
                            + ", another member reported " + known,
                    new int[] {i, coordinator});
            return false;
        }
        Optional<NodeId> named = node.elector.state().leader();
        boolean wrongLeader = named.isPresent() && !named.get().equals(g.coordinator());
        if (wrongLeader || (g.acting() && !g.coordinator().equals(node.id))) {
            e.violate(
                    "one-group-view-per-number",
                    node.name + " is in group " + g.number() + " coordinated by " + g.coordinator() + " but "
                            + (wrongLeader ? "names " + named.get() + " as leader" : "acts as its coordinator"),
                    new int[] {i, coordinator});
            return false;
        }
        return true;
    }

    private int[] leadersOf(int node, long epoch) {
        Integer other = leaderOfEpoch.get(epoch);
        return other == null || other == node ? new int[] {node} : new int[] {node, other};
    }

    void onValidUntil(SimNode node) {
        if (exclusive) {
            checkOverlap(node);
        }
    }

    void onSend(SimNode from, int to, ElectorMessage m) {
        if (strictBully != null) {
            strictBully.onSend(from, to, m);
            return;
        }
        if (ring && m instanceof RingMessage r) {
            checkRingSend(from, r);
            return;
        }
        if (!quorum || !(m instanceof QuorumMessage)) {
            return;
        }
        if (m instanceof QuorumMessage.ElectionResponse r) {
            vote(from.index, r.term(), to);
        } else if (m instanceof QuorumMessage.StandbyConfirm c) {
            vote(from.index, c.pledgeTerm(), to); // a pledge is a vote given in advance (rule 10)
        } else if (m instanceof QuorumMessage.HeartbeatResponse r
                && from.index == heartbeatTo
                && to == heartbeatFrom
                && !heartbeatAccepted
                && r.term() == heartbeatTerm
                && r.sequence() == heartbeatSeq) {
            heartbeatAccepted = true;
            int i = from.index;
            boolean above = heartbeatTerm > lsnTerm[i] || (heartbeatTerm == lsnTerm[i] && heartbeatSeq > lsnSeq[i]);
            if (!above) {
                e.violate(
                        "lsn-monotonic",
                        from.name + " accepted heartbeat LSN (" + heartbeatTerm + "," + heartbeatSeq + ") from "
                                + e.ids[to] + " after already accepting (" + lsnTerm[i] + "," + lsnSeq[i] + ")",
                        new int[] {i, to});
                return;
            }
            lsnTerm[i] = heartbeatTerm;
            lsnSeq[i] = heartbeatSeq;
        }
    }

    private record Forward(String kind, RingMessage.ElectionId election) {}

    private void checkRingSend(SimNode from, RingMessage m) {
        Forward key;
        if (m instanceof RingMessage.Election el) {
            key = new Forward("ELECTION", el.election());
        } else if (m instanceof RingMessage.Coordinator c) {
            key = new Forward("COORDINATOR", c.election());
            NodeId max = Collections.max(c.ids());
            if (!c.leader().equals(max)) {
                e.violate(
                        "ring-coordinator-names-max",
                        from.name + " sent COORDINATOR of election " + c.election() + " naming " + c.leader()
                                + ", not the greatest of its ids " + c.ids(),
                        new int[] {from.index});
                return;
            }
        } else {
            return;
        }
        // Retransmissions and skips to a further successor keep the message id: the same forward.
        Long earlier = forwarded[from.index].putIfAbsent(key, m.messageId());
        if (earlier != null && earlier != m.messageId()) {
            e.violate(
                    "ring-forward-once",
                    from.name + " forwarded " + key.kind() + " of election " + key.election() + " twice (message ids "
                            + earlier + " and " + m.messageId() + ")",
                    new int[] {from.index});
        }
    }

    private void vote(int voter, long term, int candidate) {
        Integer earlier = votes[voter].putIfAbsent(term, candidate);
        if (earlier != null && earlier != candidate) {
            e.violate(
                    "one-vote-per-term",
                    e.ids[voter] + " voted for " + e.ids[earlier] + " and for " + e.ids[candidate] + " in term " + term,
                    new int[] {voter, earlier, candidate});
        }
    }

    void beforeDeliver(SimNode to, int from, ElectorMessage m) {
        if (strictBully != null) {
            strictBully.beforeDeliver(to, from, m);
            return;
        }
        if (!quorum) {
            return;
        }
        if (m instanceof QuorumMessage.ScoutingRequest) {
            stateBeforeScouting = to.elector.state();
        } else if (m instanceof QuorumMessage.Heartbeat h) {
            heartbeatTo = to.index;
            heartbeatFrom = from;
            heartbeatTerm = h.term();
            heartbeatSeq = h.sequence();
            heartbeatAccepted = false;
        }
    }

    void afterDeliver(SimNode to, int from, ElectorMessage m) {
        if (!quorum) {
            return;
        }
        if (m instanceof QuorumMessage.ScoutingRequest s) {
            ElectorState after = to.elector.state();
            ElectorState before = stateBeforeScouting;
            stateBeforeScouting = null;
            if (before != null && !before.equals(after)) {
                e.violate(
                        "scouting-changes-no-state",
                        "delivering ScoutingRequest(term " + s.term() + ") from " + e.ids[from] + " changed " + to.name
                                + " from " + before + " to " + after,
                        new int[] {to.index, from});
            }
        } else if (m instanceof QuorumMessage.Heartbeat) {
            heartbeatTo = -1;
            heartbeatFrom = -1;
        }
    }

    // ---------------------------------------------------------------- no-overlapping-validity

    /**
     * A paused process takes no action, so a paused node holds no leadership while the pause lasts; the
     * events it missed (a peer's disconnect, say) are handled the instant it resumes, and {@link
     * #afterResume} checks again then. This is the "no pause longer than the margin" condition of the
     * invariant made precise: what a leader does in the gap between resuming and handling its queued events is
     * the application's pause-between-check-and-act risk, which fencing tokens cover.
     */
    void afterResume(SimNode node) {
        if (exclusive) {
            checkOverlap(node);
        }
    }

    private void checkOverlap(SimNode x) {
        long now = e.now;
        if (!x.up || x.paused || x.announced.role() != Role.LEADER || x.validUntilTrue <= now) {
            return;
        }
        for (SimNode y : e.nodes) {
            if (y != x && y.up && !y.paused && y.announced.role() == Role.LEADER && y.validUntilTrue > now) {
                e.violate(
                        "no-overlapping-validity",
                        x.name + " (LEADER at epoch " + x.announced.epoch() + ", valid until "
                                + e.timeText(x.validUntilTrue) + ") and " + y.name + " (LEADER at epoch "
                                + y.announced.epoch() + ", valid until " + e.timeText(y.validUntilTrue)
                                + ") are both valid leaders",
                        new int[] {x.index, y.index});
                return;
            }
        }
    }

    // ---------------------------------------------------------------- leader-steps-down-when-cut-off

    void topologyChanged() {
        if (!quorum || !e.timing().known() || e.exhaustive) {
            return;
        }
        for (SimNode node : e.nodes) {
            int i = node.index;
            boolean cut = node.live() && !node.paused && e.net.isCutOff(i);
            e.net.reachable(i, reachableNow);
            // A peer that becomes reachable again may complete a majority together with peers that answered
            // earlier, so the window restarts whenever the leader gains a peer, even if it stays cut off.
            long[] before = reachable[i];
            boolean gained = false;
            for (int w = 0; w < before.length; w++) {
                gained |= (reachableNow[w] & ~before[w]) != 0;
                before[w] = reachableNow[w];
            }
            if (cut && (cutOffSince[i] < 0 || gained)) {
                cutOffSince[i] = e.now;
                long token = ++cutOffToken[i];
                long deadline = e.now + e.timing().stepDownBoundNanos();
                e.at(deadline, () -> {
                    if (cutOffToken[i] == token) {
                        cutOffCheckNow(i);
                    }
                });
            } else if (!cut && cutOffSince[i] >= 0) {
                cutOffSince[i] = -1;
                cutOffToken[i]++;
            }
        }
    }

    private void cutOffCheckNow(int i) {
        long since = cutOffSince[i];
        if (since < 0 || e.exhaustive) {
            return;
        }
        SimNode node = e.nodes[i];
        long bound = e.timing().stepDownBoundNanos();
        if (e.now >= since + bound && node.live() && !node.paused && node.announced.role() == Role.LEADER) {
            e.violate(
                    "leader-steps-down-when-cut-off",
                    node.name + " is still LEADER at epoch " + node.announced.epoch()
                            + " although it has been unable to exchange messages with a majority since "
                            + e.timeText(since) + " (bound " + e.timeText(bound) + ")",
                    new int[] {i});
        }
    }

    // ---------------------------------------------------------------- isolated-return-keeps-leader

    /**
     * An isolation of {@code isolated} ended. When nothing else is going on and a stable leader known by every
     * other live node exists (and no node is ahead of its term), it must keep leading at the same term for two
     * election timeouts.
     */
    void onIsolateEnded(int isolated, boolean othersQuiet) {
        if (!quorum || !othersQuiet || !e.timing().known()) {
            return;
        }
        long et = e.timing().electionTimeoutNanos();
        int leader = -1;
        for (SimNode node : e.nodes) {
            if (node.index != isolated && node.live() && node.state.role() == Role.LEADER) {
                if (leader >= 0) {
                    return;
                }
                leader = node.index;
            }
        }
        if (leader < 0) {
            return;
        }
        SimNode l = e.nodes[leader];
        if (l.announced.role() != Role.LEADER || l.leaderSince > e.now - et) {
            return;
        }
        long epoch = l.state.epoch();
        Optional<io.bellwether.NodeId> expected = Optional.of(l.id);
        for (SimNode node : e.nodes) {
            if (!node.live() || node.paused) {
                return;
            }
            if (node.state.epoch() > epoch) {
                return;
            }
            if (node.index != isolated && (!node.state.leader().equals(expected) || node.state.epoch() != epoch)) {
                return;
            }
        }
        watchLeader = leader;
        watchEpoch = epoch;
        watchIsolated = isolated;
        watchFrom = e.now;
        watchUntil = e.now + 2 * et;
    }

    /** Another fault began: the isolation check no longer isolates the isolation's effect. */
    void onFaultStarted() {
        watchLeader = -1;
    }

    private void checkIsolationWatch(SimNode node, ElectorState st) {
        if (e.now > watchUntil) {
            watchLeader = -1;
            return;
        }
        boolean changed = (node.index == watchLeader && (st.role() != Role.LEADER || st.epoch() != watchEpoch))
                || (node.index != watchLeader && (st.role() == Role.LEADER || st.epoch() > watchEpoch));
        if (changed) {
            int leader = watchLeader;
            watchLeader = -1;
            e.violate(
                    "isolated-return-keeps-leader",
                    e.ids[watchIsolated] + " rejoined at " + e.timeText(watchFrom) + " while " + e.ids[leader]
                            + " led stably at term " + watchEpoch + "; then " + node.name + " became " + st,
                    new int[] {leader, watchIsolated, node.index});
        }
    }

    // ---------------------------------------------------------------- single-leader-after-quiet

    void onQuietStart(long quietPhaseNanos) {
        quietStart = e.now;
        quietDeadline = e.now + Math.min(convergenceBoundNanos, quietPhaseNanos);
        e.at(quietDeadline, () -> {
            pastDeadline = true;
            checkQuiet();
        });
        checkQuiet();
    }

    /** Checks convergence at the end of the run too. */
    void onRunEnd() {
        if (quietStart >= 0) {
            pastDeadline = true;
            checkQuiet();
        }
    }

    long convergenceNanos() {
        return convergedSince < 0 ? -1 : convergedSince - quietStart;
    }

    private void checkQuiet() {
        String problem = convergenceProblem();
        if (problem == null) {
            if (convergedSince < 0) {
                convergedSince = e.now;
            }
            return;
        }
        boolean wasConverged = convergedSince >= 0;
        convergedSince = -1;
        if (pastDeadline) {
            e.violate(
                    "single-leader-after-quiet",
                    (wasConverged
                                    ? "leadership changed after convergence: "
                                    : "no single known leader " + e.timeText(convergenceBoundNanos)
                                            + " after the quiet phase began: ")
                            + problem,
                    all());
        }
    }

    private int[] all() {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    /** Invitation: every live node is in the normal state of one group, whose members are the live nodes. */
    private String oneGroupProblem(SimNode leader) {
        List<NodeId> live = new ArrayList<>();
        for (SimNode node : e.nodes) {
            if (node.live()) {
                live.add(node.id);
            }
        }
        Collections.sort(live);
        GroupView lg = groupOf(leader).orElse(null);
        if (lg == null || lg.phase() != Phase.NORMAL || !lg.members().equals(live)) {
            return leader.name + " leads group " + (lg == null ? "?" : lg.number() + " with members " + lg.members())
                    + ", not one group of the live nodes " + live;
        }
        for (SimNode node : e.nodes) {
            if (!node.live()) {
                continue;
            }
            GroupView g = groupOf(node).orElse(null);
            if (g == null || g.phase() != Phase.NORMAL || !g.number().equals(lg.number())) {
                return node.name + " is in " + (g == null ? "no group" : g.phase() + " of group " + g.number())
                        + " while " + leader.name + " leads group " + lg.number();
            }
        }
        return null;
    }

    private String convergenceProblem() {
        int leader = -1;
        for (SimNode node : e.nodes) {
            if (node.live() && node.state.role() == Role.LEADER) {
                if (leader >= 0) {
                    return "both " + e.ids[leader] + " and " + node.name + " are LEADER";
                }
                leader = node.index;
            }
        }
        if (leader < 0) {
            return "no node is LEADER";
        }
        SimNode l = e.nodes[leader];
        if (invitation) {
            String problem = oneGroupProblem(l);
            if (problem != null) {
                return problem;
            }
        }
        if (highestWins) {
            NodeId highest = null;
            for (SimNode node : e.nodes) {
                if (node.live() && (highest == null || node.id.compareTo(highest) > 0)) {
                    highest = node.id;
                }
            }
            if (!l.id.equals(highest)) {
                return l.name + " leads at epoch " + l.state.epoch() + " but " + highest
                        + " is the highest live id (highest-live-id-leads)";
            }
        }
        for (SimNode node : e.nodes) {
            if (!node.live()) {
                continue;
            }
            if (node.state.epoch() != l.state.epoch() || !node.state.leader().equals(Optional.of(l.id))) {
                return node.name + " is " + node.state + " while " + l.name + " leads at epoch " + l.state.epoch();
            }
        }
        return null;
    }
}
