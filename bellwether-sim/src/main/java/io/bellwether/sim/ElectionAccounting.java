package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run measures about its elections: messages sent, leaderships won, failover samples (a fault hit the
 * leader; how long until a new one), the time with two acting leaders, and the elections measured message by
 * message ({@link ElectionSample}). It observes; it never changes what the nodes see.
 */
final class ElectionAccounting {
    /**
     * An election's tail ends when no election message has been sent for this long after convergence: longer
     * than any retransmission timer of the default configurations (the ring's 25 ms hops, invitation's 200 ms
     * Ready). A converged group sends no election messages, so a longer wait would only end the measurement
     * later, not change it.
     */
    static final long ELECTION_QUIET_NANOS = 1_000_000_000L;

    private final Engine e;

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

    ElectionAccounting(Engine engine) {
        this.e = engine;
    }

    // ---------------------------------------------------------------- messages and leaderships

    /** Counts a message a node sends now. */
    void countSend(ElectorMessage message) {
        totalMessages++;
        boolean election = isElectionMessage(message);
        if (election) {
            electionMessages++;
        }
        if (window != null) {
            countInWindow(election);
        }
    }

    /** Counts a store request a node sends now. */
    void countStoreRequest() {
        totalMessages++;
        if (window != null && window.convergedAt < 0) {
            window.storeRequests++;
        }
    }

    /** Whether {@code m} counts as election traffic: every message but the algorithm's keep-alives. */
    private boolean isElectionMessage(ElectorMessage m) {
        return !e.config.descriptor().isKeepAlive(m);
    }

    /** {@code node} announced {@code st} after {@code prev}: closes a failover sample its leadership ends. */
    void onAnnounce(SimNode node, ElectorState prev, ElectorState st, boolean newLeadership) {
        if (failoverCause == FaultKind.STOP
                && node.index == failoverLeader
                && prev.role() == Role.LEADER
                && st.role() != Role.LEADER) {
            // A stopped leader leads until it revokes (after its handover is prepared): the group is without a
            // leader from then on.
            failoverStart = e.now;
        }
        if (newLeadership) {
            elections++;
            node.leaderSince = e.now;
            if (window != null && window.convergedAt < 0) {
                window.leaderships++;
            }
            if (failoverCause != null && st.epoch() > failoverEpoch) {
                failovers.add(
                        new FailoverSample(failoverCause, e.now - failoverStart, totalMessages - failoverMessages));
                failoverCause = null;
            }
        }
    }

    /**
     * A pause (of one node or of all) or a starvation ended: if it opened the failover sample and its leader resumed still leading at
     * that epoch, there was no failover, and the sample is dropped, so that it does not take in a later fault's
     * failover, timed from the pause.
     */
    void pauseEnded() {
        if ((failoverCause == FaultKind.PAUSE
                        || failoverCause == FaultKind.PAUSE_ALL
                        || failoverCause == FaultKind.STARVE)
                && e.currentLeader() == failoverLeader
                && e.nodes[failoverLeader].announced.epoch() == failoverEpoch) {
            failoverCause = null;
        }
    }

    /** A fault hit the current leader: start a failover sample unless one is already open. */
    void leaderHit(FaultKind cause) {
        int leader = e.currentLeader();
        if (leader < 0) {
            return;
        }
        openElectionWindow(cause);
        if (failoverCause != null) {
            return;
        }
        failoverCause = cause;
        failoverStart = e.now;
        failoverLeader = leader;
        failoverMessages = totalMessages;
        failoverEpoch = e.nodes[leader].announced.epoch();
    }

    // ---------------------------------------------------------------- split brain

    /**
     * Measures split brain: two or more running, unpaused nodes that announced LEADER. A paused node takes no
     * action, so it does not count while paused.
     */
    void trackLeaderOverlap() {
        int acting = 0;
        for (SimNode node : e.nodes) {
            if (node.live() && !node.paused && node.announced.role() == Role.LEADER) {
                acting++;
            }
        }
        if (acting >= 2 && twoLeadersSince < 0) {
            twoLeadersSince = e.now;
            twoLeaderEpisodes++;
        } else if (acting < 2 && twoLeadersSince >= 0) {
            twoLeaderNanos += e.now - twoLeadersSince;
            twoLeadersSince = -1;
        }
    }

    /** Ends the split-brain measurement at the end of the run. */
    void closeLeaderOverlap() {
        if (twoLeadersSince >= 0) {
            twoLeaderNanos += e.now - twoLeadersSince;
            twoLeadersSince = -1;
        }
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
        if (e.exhaustive || window != null) {
            return;
        }
        int leader = convergedLeader();
        if (leader >= 0) {
            window = new ElectionWindow(cause, e.now, leader, e.nodes[leader].state.epoch());
        }
    }

    /** Whether an election is being measured (it started and its tail has not ended). */
    boolean measuringElection() {
        return window != null;
    }

    /** Whether a node's change of state may complete the election being measured (its convergence is open). */
    boolean awaitingConvergence() {
        return window != null && window.convergedAt < 0;
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
            w.lastElectionMessage = e.now;
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
        if (e.now >= quietAt) {
            finishElection(true);
        } else {
            e.at(quietAt, () -> checkQuietAfterElection(w));
        }
    }

    /** The live node every live node names as leader at its epoch, that node being LEADER; or -1. */
    int convergedLeader() {
        int leader = -1;
        for (SimNode node : e.nodes) {
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
        long epoch = e.nodes[leader].state.epoch();
        NodeId id = e.ids[leader];
        for (SimNode node : e.nodes) {
            if (node.live()
                    && (node.state.epoch() != epoch
                            || !id.equals(node.state.leader().orElse(null)))) {
                return -1;
            }
        }
        return leader;
    }

    /** A node's state changed while the measured election had not converged: has it now? */
    void checkConverged() {
        int leader = convergedLeader();
        if (leader < 0 || (leader == window.fromLeader && e.nodes[leader].state.epoch() == window.fromEpoch)) {
            return;
        }
        window.convergedAt = e.now;
        checkQuietAfterElection(window);
    }

    private void finishElection(boolean complete) {
        ElectionWindow w = window;
        window = null;
        electionSamples.add(new ElectionSample(
                w.cause, w.convergedAt - w.start, w.messages, w.heartbeats, w.storeRequests, w.leaderships, complete));
    }
}
