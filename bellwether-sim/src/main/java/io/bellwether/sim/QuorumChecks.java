package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.quorum.QuorumMessage;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * The quorum elector's checks ({@code quorum} in a variant's checks), read from the messages the engine carries
 * and the states nodes announce: one-vote-per-term (a vote, or a pledge, goes to one candidate per term, across
 * restarts), lsn-monotonic (the heartbeat LSNs a node accepts increase within an incarnation),
 * scouting-changes-no-state, leader-steps-down-when-cut-off (within the timing's bound) and
 * isolated-return-keeps-leader.
 */
final class QuorumChecks {
    private final Engine e;

    // one-vote-per-term: per node, term -> candidate (kept across restarts)
    private final List<HashMap<Long, Integer>> votes;
    // lsn-monotonic, per incarnation
    private final long[] lsnTerm;
    private final long[] lsnSeq;
    // scouting-changes-no-state and lsn tracking of the delivery in progress
    private ElectorState stateBeforeScouting;
    /** The heartbeat being delivered, until the first response to it is sent or its delivery ends; or null. */
    private DeliveredHeartbeat delivering;
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

    /** A heartbeat from {@code from} being delivered to {@code to}: its LSN is accepted if {@code to} answers it. */
    private record DeliveredHeartbeat(int to, int from, long term, long sequence) {
        boolean answeredBy(SimNode responder, int addressee, QuorumMessage.HeartbeatResponse r) {
            return responder.index == to && addressee == from && r.term() == term && r.sequence() == sequence;
        }
    }

    QuorumChecks(Engine engine) {
        this.e = engine;
        int n = engine.n;
        this.votes = Invariants.perNode(engine, HashMap::new);
        this.lsnTerm = new long[n];
        this.lsnSeq = new long[n];
        this.cutOffSince = new long[n];
        this.cutOffToken = new long[n];
        this.reachable = new long[n][Network.reachableWords(n)];
        this.reachableNow = new long[Network.reachableWords(n)];
        Arrays.fill(cutOffSince, -1);
    }

    void onIncarnation(SimNode node) {
        lsnTerm[node.index] = Long.MIN_VALUE;
        lsnSeq[node.index] = Long.MIN_VALUE;
    }

    /**
     * The node is down, paused or starved: a paused leader cannot step down, a starved one steps down late; the bound
     * restarts when it resumes (or has caught up).
     */
    void stopCutOffClock(SimNode node) {
        cutOffSince[node.index] = -1;
        cutOffToken[node.index]++;
    }

    void afterNodeEvent(SimNode node, ElectorState st) {
        if (watchLeader >= 0) {
            checkIsolationWatch(node, st);
        }
    }

    void onAnnounce(SimNode node, ElectorState prev, ElectorState st) {
        int i = node.index;
        if (st.role() == Role.CANDIDATE && (prev.role() != Role.CANDIDATE || prev.epoch() != st.epoch())) {
            vote(i, st.epoch(), i);
        }
        cutOffCheckNow(i);
    }

    // ---------------------------------------------------------------- messages

    void onSend(SimNode from, int to, ElectorMessage m) {
        if (!(m instanceof QuorumMessage)) {
            return;
        }
        if (m instanceof QuorumMessage.ElectionResponse r) {
            vote(from.index, r.term(), to);
        } else if (m instanceof QuorumMessage.StandbyConfirm c) {
            vote(from.index, c.pledgeTerm(), to); // a pledge is a vote given in advance (rule 10)
        } else if (m instanceof QuorumMessage.HeartbeatResponse r
                && delivering != null
                && delivering.answeredBy(from, to, r)) {
            long term = delivering.term();
            long seq = delivering.sequence();
            delivering = null;
            int i = from.index;
            boolean above = term > lsnTerm[i] || (term == lsnTerm[i] && seq > lsnSeq[i]);
            if (!above) {
                e.violate(
                        "lsn-monotonic",
                        from.name + " accepted heartbeat LSN (" + term + "," + seq + ") from " + e.ids[to]
                                + " after already accepting (" + lsnTerm[i] + "," + lsnSeq[i] + ")",
                        new int[] {i, to});
                return;
            }
            lsnTerm[i] = term;
            lsnSeq[i] = seq;
        }
    }

    private void vote(int voter, long term, int candidate) {
        Integer earlier = votes.get(voter).putIfAbsent(term, candidate);
        if (earlier != null && earlier != candidate) {
            e.violate(
                    "one-vote-per-term",
                    e.ids[voter] + " voted for " + e.ids[earlier] + " and for " + e.ids[candidate] + " in term " + term,
                    new int[] {voter, earlier, candidate});
        }
    }

    void beforeDeliver(SimNode to, int from, ElectorMessage m) {
        if (m instanceof QuorumMessage.ScoutingRequest) {
            stateBeforeScouting = to.elector.state();
        } else if (m instanceof QuorumMessage.Heartbeat h) {
            delivering = new DeliveredHeartbeat(to.index, from, h.term(), h.sequence());
        }
    }

    void afterDeliver(SimNode to, int from, ElectorMessage m) {
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
            delivering = null;
        }
    }

    // ---------------------------------------------------------------- leader-steps-down-when-cut-off

    void topologyChanged() {
        if (!e.timing().known() || e.exhaustive) {
            return;
        }
        for (SimNode node : e.nodes) {
            int i = node.index;
            boolean cut = node.live() && !node.paused && !node.slow(e.now) && e.net.isCutOff(i);
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
        if (e.now >= since + bound
                && node.live()
                && !node.paused
                && !node.slow(e.now)
                && node.announced.role() == Role.LEADER) {
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
     * other live node exists (and no node is ahead of its term, and none has a higher priority, to which the leader
     * hands over by rule 11), it must keep leading at the same term for two election timeouts.
     */
    void onIsolateEnded(int isolated, boolean othersQuiet) {
        if (!othersQuiet || !e.timing().known()) {
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
        for (SimNode node : e.nodes) {
            if (node.live() && node.priority > l.priority) {
                return; // a hand-over to a member of higher priority is due (rule 11): not a deposition
            }
        }
        long epoch = l.state.epoch();
        Optional<NodeId> expected = Optional.of(l.id);
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
}
