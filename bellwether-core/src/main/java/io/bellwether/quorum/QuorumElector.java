package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.Quorums;
import io.bellwether.elector.TimerKey;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
import io.bellwether.quorum.QuorumMessage.HandoverReady;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.bellwether.quorum.QuorumMessage.StandbyConfirm;
import io.bellwether.quorum.QuorumMessage.StandbyReady;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import io.bellwether.quorum.QuorumMessage.StandbyRound;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum elector: a Raft-style election without a log, with pre-vote ("scouting"), check-quorum,
 * sticky leaders, graceful cession and a leader validity that ends before any successor can be elected.
 * See {@code docs/quorum.md} for the rules and the safety argument; the rule numbers in comments refer to
 * {@code shared/research/quorum-electors.md}.
 *
 * <p>Persisted: the current term (StoredState key {@code term}), written before any message that depends on
 * it leaves. Voting only for a term strictly higher than one's own means a member votes at most once per term
 * without remembering whom it voted for.
 *
 * <p>Not thread-safe; driven by one thread (see {@link Elector}).
 */
public final class QuorumElector implements Elector {
    private static final Logger log = LoggerFactory.getLogger(QuorumElector.class);

    /** Key of the persisted term in {@link io.bellwether.elector.StoredState}. */
    public static final String TERM_KEY = "term";

    /**
     * Key of the highest term this member has pledged its vote for in advance, to a standby (rule 10); it
     * votes in no term up to this one by any other means.
     */
    public static final String PLEDGE_KEY = "pledge";

    /** How many recent heartbeat rounds the leader remembers to match acknowledgements to send times. */
    private static final int ROUND_MEMORY = 64;

    enum Timer implements TimerKey {
        /** Leader: time to send the next heartbeat round. */
        HEARTBEAT,
        /** Follower: the leader has been silent for an election timeout. */
        LEADER_TIMEOUT,
        /** Follower without a leader: the random wait before scouting is over. */
        BACKOFF,
        /** Scout or candidate: the round took too long. */
        ROUND,
        /** Leader: validity may have run out (check-quorum). */
        VALIDITY,
        /** Leader handing over: the successor did not report a majority in time; cede anyway. */
        HANDOVER,
        /** Standby: time for the next round of pledges. */
        STANDBY
    }

    private final QuorumConfig config;
    private final ElectorContext ctx;
    private final NodeId self;
    private final List<NodeId> members;
    private final Map<NodeId, Integer> index = new HashMap<>();
    private final int selfIndex;
    private final long electionTimeoutNanos;
    private final long heartbeatNanos;

    // Persisted.
    private long term;
    /** The highest term pledged to a standby (rule 10); votes go only to terms above it. */
    private long pledgeTerm;

    /** Whom {@link #pledgeTerm} went to, while this process remembers; it may confirm that standby again. */
    private NodeId pledgedTo;
    /** Until this instant this member supports no candidate but {@link #pledgeFenceFor}. */
    private long pledgeFenceUntil = Long.MIN_VALUE;

    private NodeId pledgeFenceFor;

    // Volatile, every role.
    private boolean running;
    /** Per member: a closing was reported and no connection since; only then may {@link #onPeerGone} act. */
    private final boolean[] closedSinceConnected;

    private Role role = Role.DORMANT;
    private NodeId leader;
    private ElectorState announced = ElectorState.DORMANT;
    /** Until this instant this member supports no candidate (rule: no vote within an election timeout of a heartbeat). */
    private long supportFenceUntil;
    /** Whose heartbeat or proposal set the fence; null for the start-up fence, which no one can lift. */
    private NodeId fenceSource;
    /** Last accepted Leader Sequence Number. */
    private long lsnTerm;

    private long lsnSequence;
    /** The leader this member lost last; it sits out the backoff ranking (see {@link #backoff()}). */
    private NodeId lastLostLeader;
    /** A leader that lost its quorum does not campaign before this instant. */
    private long holdDownUntil = Long.MIN_VALUE;

    // Scout.
    private long scoutTerm;
    private final boolean[] scoutYes;
    private final boolean[] scoutNo;

    /** When the current scouting or election round times out. */
    private long roundDeadlineNanos;

    // Candidate.
    private final boolean[] votes;
    private long proposalSentNanos;

    // Leader.
    private long sequence;
    private final long[] roundSequence = new long[ROUND_MEMORY];
    private final long[] roundSentNanos = new long[ROUND_MEMORY];
    /** Per member: the send time of the latest round (or proposal) it confirmed; MIN_VALUE if none. */
    private final long[] confirmedNanos;

    private long validUntilNanos;

    /** Leader that was asked to stop: the successor gathering votes while this member still leads; else null. */
    private NodeId handoverTo;

    // Successor in a prepared handover.
    /** The leader that asked this candidate to take over; it leads only once that leader's cession arrives. */
    private NodeId awaitingCessionFrom;

    private boolean readySent;

    private long awaitingCessionTerm;

    // Standby (rule 10): a follower the leader named to take over on its cession alone.
    /** The leader that named this member its standby; null when it is none. */
    private NodeId standbyFor;

    private long standbyTerm;
    private long standbyPledge;
    private long standbySequence;
    private boolean standbyReadySent;
    /** Whether the leader lost last had named this member its standby: it then scouts first. */
    private boolean lostAsStandby;

    private final long standbyIntervalNanos;

    // Leader: its standby.
    private NodeId standby;

    private long standbyPledgeTerm;
    private long nextPledgeTerm;
    private long standbyAskedAt;
    private boolean standbyReady;
    /** The successor last given to {@link ElectorContext#successor}, null for none. */
    private NodeId reportedSuccessor;

    QuorumElector(QuorumConfig config, ElectorContext context) {
        this.config = config;
        this.ctx = context;
        this.self = context.self();
        this.members = List.copyOf(context.members());
        for (int i = 0; i < members.size(); i++) {
            index.put(members.get(i), i);
        }
        Integer me = index.get(self);
        if (me == null) {
            throw new IllegalArgumentException("this member " + self + " is not among the members " + members);
        }
        this.selfIndex = me;
        this.electionTimeoutNanos = config.electionTimeout().toNanos();
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.scoutYes = new boolean[members.size()];
        this.scoutNo = new boolean[members.size()];
        this.votes = new boolean[members.size()];
        this.confirmedNanos = new long[members.size()];
        this.closedSinceConnected = new boolean[members.size()];
        // Two thirds of the validity (250 ms with the defaults): a standby's confirmations then always leave it
        // at least a third of a validity when the cession comes, at the lowest cost in idle traffic.
        this.standbyIntervalNanos = Math.max(1_000_000L, config.validityNanos() * 2 / 3);
    }

    @Override
    public void start() {
        if (running) {
            return;
        }
        running = true;
        term = Counters.checked("stored " + TERM_KEY, ctx.storedState().get(TERM_KEY, 0));
        pledgeTerm = Counters.checked("stored " + PLEDGE_KEY, ctx.storedState().get(PLEDGE_KEY, 0));
        pledgedTo = null;
        long now = ctx.nanoTime();
        // A restarted member may have acknowledged a leader's heartbeat just before it crashed and has
        // forgotten when: it supports no candidate for one election timeout, so that leader's validity,
        // which counted that acknowledgement, has ended before this member's support can elect a successor.
        supportFenceUntil = now + electionTimeoutNanos;
        fenceSource = null;
        transition(Role.FOLLOWER, null, ChangeReason.STARTED);
        ctx.schedule(Timer.BACKOFF, electionTimeoutNanos + backoff());
    }

    /**
     * A leader asks the peer that confirmed most recently to gather votes for the next term while it still
     * leads (a prepared handover, rule 9 in {@code docs/quorum.md}); it cedes when that successor reports a
     * majority, so that the group is without a leader only while the cession travels. It stops heartbeating
     * meanwhile: a voter that moved to the next term would answer a heartbeat with it.
     */
    @Override
    public boolean beginStop() {
        if (!running || role != Role.LEADER) {
            return false;
        }
        if (handoverTo != null) {
            return true;
        }
        if (standbyCanTakeOver()) {
            return false; // stop() cedes to the standby at once: it leads on the cession alone (rule 10)
        }
        Optional<NodeId> successor = standby != null ? Optional.of(standby) : bestSuccessor();
        if (successor.isEmpty() || !Quorums.isMajority(members.size() - 1, members.size())) {
            return false; // no one to prepare, or the others could not elect anyone without this member
        }
        handoverTo = successor.get();
        ctx.cancel(Timer.HEARTBEAT);
        ctx.schedule(Timer.HANDOVER, config.proposalTimeout().toNanos());
        ctx.send(handoverTo, new HandoverRequest(term));
        return true;
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        if (role == Role.LEADER) {
            // Revoke first, then tell the others: by the time they can act on the cession, this member has
            // stopped acting as leader. The successor hears first: in a prepared handover it leads on receipt.
            Optional<NodeId> successor = handoverTo != null
                    ? Optional.of(handoverTo)
                    : standby != null ? Optional.of(standby) : bestSuccessor();
            // A ready standby takes over on the cession alone, and its first heartbeats tell the others: they need
            // no cession of their own, and handling one at the same moment would take the machine's cores from the
            // standby (rule 10). Should the standby not take over after all, its proposal names this member as
            // ceded, which voters still following this member take as the cession, and this member's connections
            // close when it exits.
            boolean standbyAlone = handoverTo == null && standbyCanTakeOver();
            transition(Role.DORMANT, null, ChangeReason.STOPPED);
            LeadershipCession cession = new LeadershipCession(term, successor);
            successor.ifPresent(s -> ctx.send(s, cession));
            for (NodeId member : members) {
                if (!standbyAlone
                        && !member.equals(self)
                        && !successor.filter(member::equals).isPresent()) {
                    ctx.send(member, cession);
                }
            }
        } else {
            transition(Role.DORMANT, null, ChangeReason.STOPPED);
        }
        for (Timer t : Timer.values()) {
            ctx.cancel(t);
        }
        running = false;
    }

    @Override
    public ElectorState state() {
        return announced;
    }

    /** The persisted term; for tests and observers. */
    public long term() {
        return term;
    }

    @Override
    public void onTimer(TimerKey key) {
        if (!running || !(key instanceof Timer timer)) {
            return;
        }
        switch (timer) {
            case HEARTBEAT -> {
                if (role == Role.LEADER) {
                    sendHeartbeatRound();
                }
            }
            case LEADER_TIMEOUT -> {
                if (role == Role.FOLLOWER && leader != null) {
                    loseLeader(ChangeReason.LEADER_TIMEOUT);
                }
            }
            case BACKOFF -> {
                if (role == Role.FOLLOWER && leader == null) {
                    tryScouting();
                }
            }
            case ROUND -> {
                if (role == Role.SCOUT || role == Role.CANDIDATE) {
                    // Rule 6: a failed round leads back to scouting after a backoff, never to a term bump.
                    backToFollowing(ChangeReason.ROUND_FAILED);
                }
            }
            case VALIDITY -> {
                if (role == Role.LEADER) {
                    checkQuorum();
                }
            }
            case HANDOVER -> {
                if (role == Role.LEADER && handoverTo != null) {
                    log.debug("{}: {} did not gather a majority in time; ceding anyway", self, handoverTo);
                    stop();
                }
            }
            case STANDBY -> {
                if (standbyFor != null) {
                    sendStandbyRound();
                }
            }
        }
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        if (!running || !(message instanceof QuorumMessage m) || from.equals(self)) {
            return;
        }
        Integer fromIndex = index.get(from);
        if (fromIndex == null) {
            log.debug("ignoring {} from {}: not a member", message, from);
            return;
        }
        if (!QuorumCodec.countersInRange(m)) {
            // Codecs refuse these already; this covers drivers that pass messages without encoding them. A term
            // out of range adopted once would be persisted, and its successor would overflow.
            log.warn(
                    "{}: ignoring {} from {}: a term or sequence out of range ({})", self, m, from, Counters.allowed());
            return;
        }
        if (m instanceof ScoutingRequest r) {
            onScoutingRequest(from, r);
        } else if (m instanceof ScoutingResponse r) {
            onScoutingResponse(fromIndex, r);
        } else if (m instanceof ElectionProposal p) {
            onElectionProposal(from, p);
        } else if (m instanceof ElectionResponse r) {
            onElectionResponse(fromIndex, r);
        } else if (m instanceof Heartbeat h) {
            onHeartbeat(from, h);
        } else if (m instanceof HeartbeatResponse r) {
            onHeartbeatResponse(fromIndex, r);
        } else if (m instanceof LeadershipCession c) {
            onCession(from, c);
        } else if (m instanceof HandoverRequest r) {
            onHandoverRequest(from, r);
        } else if (m instanceof HandoverReady r) {
            if (role == Role.LEADER && from.equals(handoverTo) && r.term() == term) {
                stop();
            }
        } else if (m instanceof StandbyRequest r) {
            onStandbyRequest(from, r);
        } else if (m instanceof StandbyRound r) {
            onStandbyRound(from, r);
        } else if (m instanceof StandbyConfirm c) {
            onStandbyConfirm(fromIndex, c);
        } else if (m instanceof StandbyReady r) {
            if (role == Role.LEADER
                    && from.equals(standby)
                    && r.term() == term
                    && r.pledgeTerm() == standbyPledgeTerm) {
                standbyReady = true;
                reportSuccessor();
            }
        }
    }

    @Override
    public void onPeerConnected(NodeId peer) {
        Integer peerIndex = index.get(peer);
        if (peerIndex != null) {
            closedSinceConnected[peerIndex] = false;
        }
    }

    /**
     * A closed connection is not proof that the peer knows of the closing: the two ends of a TCP connection learn
     * of its end at different times (the writer first, a half-open end only when it writes again). So a closing
     * lifts no fence and costs no leader (rule 2); {@link #onPeerGone} is the proof that does. Nor does it
     * cost the peer's confirmations: they stay protected by the peer's fence, which the closing does not lift, so
     * a connection that closes and is replaced at once (a dial tie) changes nothing.
     */
    @Override
    public void onPeerDisconnected(NodeId peer) {
        Integer peerIndex = index.get(peer);
        if (!running || peerIndex == null || peer.equals(self)) {
            return;
        }
        closedSinceConnected[peerIndex] = true;
        if (role == Role.LEADER) {
            if (peer.equals(handoverTo)) {
                // The successor may not hear the cession soon: cede now, naming another. Ceding early is safe.
                confirmedNanos[peerIndex] = Long.MIN_VALUE;
                handoverTo = null;
                setStandby(null);
                stop();
                return;
            }
            if (peer.equals(standby)) {
                setStandby(null); // another is named with the next round
            }
        }
    }

    /**
     * The peer's process is gone (after its connection closed, a new connection to its address was refused: no
     * process listens there), so no leadership of it is valid any more: the fence it set, as leader, candidate
     * or standby, has nothing left to protect (rule 2), a follower has lost its leader at once (rule 3) and a
     * successor takes it as the cession it awaits (rule 9). Ignored unless a closing was reported and no
     * connection since: a refusal from before the peer (re)started proves nothing about it.
     */
    @Override
    public void onPeerGone(NodeId peer) {
        Integer peerIndex = index.get(peer);
        if (!running || peerIndex == null || peer.equals(self) || !closedSinceConnected[peerIndex]) {
            return;
        }
        if (peer.equals(fenceSource)) {
            liftFence();
        }
        if (peer.equals(pledgeFenceFor)) {
            pledgeFenceUntil = Long.MIN_VALUE;
            pledgeFenceFor = null;
        }
        // Its confirmations no longer stand for a member that will confirm again (a restart raises the start-up
        // fence, so counting them would be safe): a leader without a live majority steps down now, not later.
        if (standbyFor != null) {
            confirmedNanos[peerIndex] = Long.MIN_VALUE;
        }
        switch (role) {
            case LEADER -> {
                confirmedNanos[peerIndex] = Long.MIN_VALUE;
                updateValidity();
            }
            case CANDIDATE -> {
                votes[peerIndex] = false;
                confirmedNanos[peerIndex] = Long.MIN_VALUE;
                if (peer.equals(awaitingCessionFrom)) {
                    // The leader that asked us to take over is gone: its leadership ended with its process.
                    awaitingCessionFrom = null;
                    if (Quorums.isMajority(count(votes), members.size()) && !abandonIfRoundExpired()) {
                        becomeLeader();
                    }
                }
            }
            case FOLLOWER -> {
                if (peer.equals(standbyFor) && term == standbyTerm && proposeAsStandby(peer)) {
                    return;
                }
                if (peer.equals(leader)) {
                    loseLeader(ChangeReason.LEADER_DISCONNECTED);
                }
            }
            default -> {}
        }
    }

    // ---- scouting (pre-vote) ----

    private void tryScouting() {
        long now = ctx.nanoTime();
        long notBefore = Math.max(Math.max(supportFenceUntil, holdDownUntil), pledgeFenceUntil);
        if (now < notBefore) {
            ctx.schedule(Timer.BACKOFF, notBefore - now + backoff());
            return;
        }
        if (!Counters.inRange(nextTerm())) {
            termsExhausted();
            ctx.schedule(Timer.BACKOFF, electionTimeoutNanos + backoff());
            return;
        }
        scoutTerm = nextTerm();
        Arrays.fill(scoutYes, false);
        Arrays.fill(scoutNo, false);
        scoutYes[selfIndex] = true;
        transition(Role.SCOUT, null, ChangeReason.SCOUTING);
        if (Quorums.isMajority(count(scoutYes), members.size())) {
            campaign(Optional.empty());
            return;
        }
        armRound(config.scoutingTimeout().toNanos());
        ctx.broadcast(new ScoutingRequest(scoutTerm));
    }

    private void onScoutingRequest(NodeId from, ScoutingRequest request) {
        // Rule 4: answer without changing anything. A member that still hears a leader, or leads, says no
        // (stickiness); a scout that is behind gets our term so that it catches up.
        boolean willVote = request.term() > term && canSupportCandidate(from, request.term(), ctx.nanoTime());
        ctx.send(from, new ScoutingResponse(request.term(), willVote, term));
    }

    private void onScoutingResponse(int fromIndex, ScoutingResponse response) {
        if (response.responderTerm() > term) {
            adoptHigherTerm(response.responderTerm());
            return;
        }
        if (role != Role.SCOUT || response.term() != scoutTerm || abandonIfRoundExpired()) {
            return;
        }
        if (response.willVote()) {
            scoutYes[fromIndex] = true;
            scoutNo[fromIndex] = false;
            if (Quorums.isMajority(count(scoutYes), members.size())) {
                campaign(Optional.empty());
            }
        } else if (!scoutYes[fromIndex]) {
            scoutNo[fromIndex] = true;
            if (!Quorums.isMajority(members.size() - count(scoutNo), members.size())) {
                backToFollowing(ChangeReason.ROUND_FAILED);
            }
        }
    }

    // ---- election ----

    private void campaign(Optional<NodeId> transferFrom) {
        // The proposal leaves before this member's own term is durable, so that the write overlaps the round
        // trip instead of preceding it (one disk write less on the failover path). Safe: the term is persisted
        // before this member counts its own vote, becomes a candidate or leads; a member that crashes in
        // between never led in that term, restarts at its old term and may vote for another candidate in it,
        // and the votes it collected die with it. Replies still wait for durability (Rule 5). The time is read
        // before the send: the voters' fences start after it, so the leadership's validity counts from it.
        proposalSentNanos = ctx.nanoTime();
        ctx.broadcast(new ElectionProposal(scoutTerm, transferFrom));
        persistTerm(scoutTerm);
        Arrays.fill(votes, false);
        Arrays.fill(confirmedNanos, Long.MIN_VALUE);
        votes[selfIndex] = true;
        confirmedNanos[selfIndex] = proposalSentNanos;
        transition(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        armRound(config.proposalTimeout().toNanos());
        if (Quorums.isMajority(count(votes), members.size())) {
            onMajority();
        }
    }

    /**
     * A majority voted: lead, or, in a prepared handover, tell the ceding leader and wait for its cession. The
     * wait may outlast the proposal timeout (the leader's listeners hear of its revocation before the cession
     * leaves, and may be slow): it lasts as long as the votes can still make a valid leadership, which
     * {@link #becomeLeader()} checks again.
     */
    private void onMajority() {
        if (awaitingCessionFrom == null) {
            becomeLeader();
        } else if (!readySent) {
            readySent = true;
            long votesValidUntil = proposalSentNanos + config.validityNanos();
            if (votesValidUntil > roundDeadlineNanos) {
                roundDeadlineNanos = votesValidUntil;
                ctx.schedule(Timer.ROUND, votesValidUntil - ctx.nanoTime());
            }
            ctx.send(awaitingCessionFrom, new HandoverReady(awaitingCessionTerm));
        }
    }

    private void onElectionProposal(NodeId from, ElectionProposal proposal) {
        Optional<NodeId> ceded = proposal.transferFrom();
        // A candidate named by the leader this member's fence protects: it was asked to take over by that leader
        // (rule 9), which cedes before the candidate may lead. The fence does not stop this vote.
        boolean handover = false;
        if (ceded.isPresent() && proposal.term() > term) {
            NodeId old = ceded.get();
            handover = old.equals(fenceSource);
            if (role == Role.FOLLOWER && old.equals(leader)) {
                loseLeader(ChangeReason.LEADER_CEDED);
            }
        }
        long now = ctx.nanoTime();
        boolean canSupport = role != Role.LEADER
                && leader == null
                && (handover || now >= supportFenceUntil)
                && pledgeAllows(from, proposal.term(), now);
        if (proposal.term() <= term || !canSupport) {
            // Rule 2: a member that still hears a leader ignores even a higher-term proposal, without
            // adopting its term, so that a returning node cannot depose a healthy leader.
            return;
        }
        // Rule 5: persist the term before the vote leaves.
        persistTerm(proposal.term());
        // Supporting a candidate is a promise like acknowledging a heartbeat: no other candidate gets our
        // support within an election timeout, so the candidate's validity can count this vote. After a
        // handover vote the old leader may still be valid on this member's earlier confirmation, so nobody's
        // disconnection lifts this fence: only time does (or a heartbeat of the new leader replaces it).
        setFence(now, handover ? null : from);
        transition(Role.FOLLOWER, null, ChangeReason.HIGHER_EPOCH);
        ctx.cancel(Timer.ROUND);
        ctx.schedule(Timer.BACKOFF, electionTimeoutNanos + backoff());
        ctx.send(from, new ElectionResponse(proposal.term()));
    }

    private void onElectionResponse(int fromIndex, ElectionResponse response) {
        if (role != Role.CANDIDATE || response.term() != term || abandonIfRoundExpired()) {
            return;
        }
        votes[fromIndex] = true;
        confirmedNanos[fromIndex] = proposalSentNanos;
        if (Quorums.isMajority(count(votes), members.size())) {
            onMajority();
        }
    }

    private void becomeLeader() {
        // The votes count as confirmations of a round sent when the proposal was.
        long validity = validityFromConfirmations();
        if (ctx.nanoTime() >= validity) {
            // Won too late (this member was paused with the votes queued): the voters' fences, and with them
            // this leadership, have already run out, and a later term may lead by now. Never lead invalidly.
            backToFollowing(ChangeReason.ROUND_FAILED);
            return;
        }
        ctx.cancel(Timer.ROUND);
        ctx.cancel(Timer.BACKOFF);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        sequence = 0;
        Arrays.fill(roundSequence, 0);
        setStandby(null);
        nextPledgeTerm = nextTerm();
        validUntilNanos = validity;
        ctx.validUntil(validUntilNanos);
        transition(Role.LEADER, self, ChangeReason.ELECTED);
        sendHeartbeatRound();
    }

    // ---- leading ----

    private void sendHeartbeatRound() {
        long now = ctx.nanoTime();
        if (now >= validUntilNanos) {
            // Late (a pause, a stalled thread): do not make followers fence for a leadership that is over.
            checkQuorum();
            return;
        }
        sequence++;
        recordRound(sequence, now);
        ctx.schedule(Timer.HEARTBEAT, heartbeatNanos);
        ctx.broadcast(new Heartbeat(term, sequence));
        updateValidity();
        if (role == Role.LEADER) {
            nameStandby(now);
        }
    }

    private void onHeartbeatResponse(int fromIndex, HeartbeatResponse response) {
        if (response.term() > term) {
            adoptHigherTerm(response.term());
            return;
        }
        if (role != Role.LEADER || response.term() != term) {
            return;
        }
        if (confirmRound(fromIndex, response.sequence())) {
            updateValidity();
        }
    }

    /**
     * Validity = the send time of the latest round a majority confirmed + election timeout × (1 − drift) −
     * margin. It moves back when a confirming peer is gone; when it has run out the leader steps down.
     */
    private void updateValidity() {
        long next = validityFromConfirmations();
        if (next != validUntilNanos) {
            validUntilNanos = next;
            ctx.validUntil(next);
        }
        checkQuorum();
    }

    /**
     * Records that round {@code seq} (a leader's heartbeats or a standby's pledge round) was sent at {@code now};
     * sending it counts as this member's own confirmation.
     */
    private void recordRound(long seq, long now) {
        int slot = (int) (seq % ROUND_MEMORY);
        roundSequence[slot] = seq;
        roundSentNanos[slot] = now;
        confirmedNanos[selfIndex] = now;
    }

    /**
     * A peer confirmed round {@code seq}: its confirmation now counts from that round's send time. False when the
     * round is too old to match to a send time, or was never sent.
     */
    private boolean confirmRound(int fromIndex, long seq) {
        int slot = (int) (seq % ROUND_MEMORY);
        if (roundSequence[slot] != seq || seq <= 0) {
            return false;
        }
        confirmedNanos[fromIndex] = Math.max(confirmedNanos[fromIndex], roundSentNanos[slot]);
        return true;
    }

    /** The send time of the latest round a majority confirmed, plus the validity; MIN_VALUE without a majority. */
    private long validityFromConfirmations() {
        long majorityConfirmed = Quorums.majorityValue(confirmedNanos);
        return majorityConfirmed == Long.MIN_VALUE ? Long.MIN_VALUE : majorityConfirmed + config.validityNanos();
    }

    private void checkQuorum() {
        long now = ctx.nanoTime();
        if (now >= validUntilNanos) {
            // Rule 7, check-quorum: without a majority's recent confirmation this member may no longer act.
            stepDown(ChangeReason.LOST_QUORUM);
            holdDownUntil = now + config.stepDownHoldDown().toNanos();
        } else {
            ctx.schedule(Timer.VALIDITY, validUntilNanos - now);
        }
    }

    private void stepDown(ChangeReason why) {
        if (handoverTo != null) {
            // Asked to stop anyway: cede to the prepared successor and stop here.
            stop();
            return;
        }
        long ledTerm = term;
        ctx.cancel(Timer.HEARTBEAT);
        ctx.cancel(Timer.VALIDITY);
        // Revoke before telling anyone.
        transition(Role.FOLLOWER, null, why);
        ctx.broadcast(new LeadershipCession(ledTerm, Optional.empty()));
        ctx.schedule(Timer.BACKOFF, backoff());
    }

    private Optional<NodeId> bestSuccessor() {
        // The peer that confirmed most recently is connected and caught up; ties go to the lowest id.
        int best = -1;
        for (int i = 0; i < members.size(); i++) {
            if (i != selfIndex
                    && confirmedNanos[i] != Long.MIN_VALUE
                    && (best < 0 || confirmedNanos[i] > confirmedNanos[best])) {
                best = i;
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(members.get(best));
    }

    // ---- standby (rule 10) ----

    /**
     * Leader: keeps one follower named as its standby, which gathers pledges of the votes for a term of its own
     * while this member leads, so that a cession alone can make it leader. The standby is kept as long as it
     * confirms heartbeats, whether or not it has reported a majority (with too few followers up, no other would
     * either); one that stops confirming is replaced, for a term of its own. Naming anew only then keeps the
     * pledged terms from running ahead of the group's term while members are down.
     */
    private void nameStandby(long now) {
        if (!config.standby() || handoverTo != null || !Quorums.isMajority(members.size() - 1, members.size())) {
            return; // a group of two has no majority without its leader
        }
        if (standby != null) {
            if (standbyConfirmsHeartbeats(now)) {
                if (!standbyReady && now - standbyAskedAt >= standbyIntervalNanos) {
                    // Not ready yet: the request may have been lost, or have overtaken this leader's first
                    // heartbeat. Asking again for the same term is harmless: the standby takes it as a duplicate.
                    standbyAskedAt = now;
                    ctx.send(standby, new StandbyRequest(term, standbyPledgeTerm));
                }
                return;
            }
            ctx.send(standby, new StandbyRequest(term, 0));
            setStandby(null);
        }
        Optional<NodeId> next = bestSuccessor();
        if (next.isEmpty() || !Counters.inRange(nextPledgeTerm)) {
            return;
        }
        setStandby(next.get());
        standbyPledgeTerm = nextPledgeTerm++;
        standbyAskedAt = now;
        ctx.send(standby, new StandbyRequest(term, standbyPledgeTerm));
    }

    /**
     * Leader: the only place its standby changes. A newly named one (or none) is not ready, and the driver hears
     * when the ready successor it was told of is gone.
     */
    private void setStandby(NodeId member) {
        standby = member;
        standbyReady = false;
        reportSuccessor();
    }

    /** Leader: tells the driver when the member that would take over at once (a ready standby) changes. */
    private void reportSuccessor() {
        NodeId now = role == Role.LEADER && standbyReady ? standby : null;
        if (!Objects.equals(now, reportedSuccessor)) {
            reportedSuccessor = now;
            ctx.successor(Optional.ofNullable(now));
        }
    }

    /** Leader: whether its standby reported a majority of pledges and still confirms its heartbeats. */
    private boolean standbyCanTakeOver() {
        return standby != null && standbyReady && standbyConfirmsHeartbeats(ctx.nanoTime());
    }

    /** Leader: whether its standby confirmed a heartbeat round sent within half an election timeout. */
    private boolean standbyConfirmsHeartbeats(long now) {
        long confirmed = confirmedNanos[index.get(standby)];
        return confirmed != Long.MIN_VALUE && now - confirmed <= electionTimeoutNanos / 2;
    }

    private void onStandbyRequest(NodeId from, StandbyRequest request) {
        if (role != Role.FOLLOWER || !from.equals(leader) || request.term() != term) {
            return;
        }
        if (request.pledgeTerm() == 0) {
            if (from.equals(standbyFor)) {
                standDown();
            }
            return;
        }
        if (from.equals(standbyFor) && request.pledgeTerm() == standbyPledge) {
            return; // a duplicate
        }
        if (request.pledgeTerm() <= Math.max(term, pledgeTerm)) {
            return; // pledged elsewhere already: the leader names a higher term when this one does not report
        }
        // This member's own vote in that term goes to itself, durably, like the others' pledges.
        persistPledge(request.pledgeTerm(), self);
        standbyFor = from;
        standbyTerm = term;
        standbyPledge = request.pledgeTerm();
        standbySequence = 0;
        standbyReadySent = false;
        Arrays.fill(confirmedNanos, Long.MIN_VALUE);
        Arrays.fill(roundSequence, 0);
        sendStandbyRound();
    }

    private void sendStandbyRound() {
        long now = ctx.nanoTime();
        standbySequence++;
        recordRound(standbySequence, now);
        StandbyRound round = new StandbyRound(standbyTerm, standbyPledge, standbySequence);
        for (NodeId member : members) {
            if (!member.equals(self) && !member.equals(standbyFor)) {
                ctx.send(member, round);
            }
        }
        ctx.schedule(Timer.STANDBY, standbyIntervalNanos);
    }

    private void onStandbyRound(NodeId from, StandbyRound round) {
        // Only a follower of a live leader of the round's term pledges: a member that lost its leader is
        // electing, and a pledge would hold up that election.
        if (role != Role.FOLLOWER
                || leader == null
                || from.equals(leader)
                || round.term() != term
                || round.pledgeTerm() <= term) {
            return;
        }
        if (round.pledgeTerm() == pledgeTerm) {
            if (!from.equals(pledgedTo)) {
                return; // pledged to another, or to one this process no longer remembers
            }
        } else if (round.pledgeTerm() > pledgeTerm) {
            persistPledge(round.pledgeTerm(), from);
        } else {
            return;
        }
        // Like acknowledging a heartbeat: no other candidate gets this member's support within an election
        // timeout, so the standby's validity can count this confirmation. The leader's cession does not lift
        // this fence; the standby's closed connection does (it drops the confirmation too), or time.
        pledgeFenceUntil = ctx.nanoTime() + electionTimeoutNanos;
        pledgeFenceFor = from;
        ctx.send(from, new StandbyConfirm(round.term(), round.pledgeTerm(), round.sequence()));
    }

    private void onStandbyConfirm(int fromIndex, StandbyConfirm confirm) {
        if (standbyFor == null || confirm.term() != standbyTerm || confirm.pledgeTerm() != standbyPledge) {
            return;
        }
        if (!confirmRound(fromIndex, confirm.sequence())) {
            return;
        }
        if (!standbyReadySent && validityFromConfirmations() > ctx.nanoTime()) {
            standbyReadySent = true;
            ctx.send(standbyFor, new StandbyReady(standbyTerm, standbyPledge));
        }
    }

    /**
     * The standby's leader ceded to it by name: it leads in its pledged term at once, if a majority's pledges
     * and confirmations are fresh enough to give a valid leadership. Its own vote in that term is durable
     * already (its pledge to itself); the term is made durable right after the first heartbeats, off the
     * handover's path. A member that crashes before that write restarts at the old term with its pledge: it
     * never proposes the pledged term, and the leader that named it has revoked and never names it again, so it
     * never leads in that term twice.
     */
    private boolean takeOverAsStandby() {
        // The validity a leadership would have now: from the latest pledge round a majority confirmed.
        if (validityFromConfirmations() <= ctx.nanoTime()) {
            return false;
        }
        lastLostLeader = standbyFor;
        term = standbyPledge;
        becomeLeader();
        ctx.persist(ctx.storedState().with(TERM_KEY, term));
        return true;
    }

    /**
     * Rule 10.6: the leader that named this ready standby is proven gone, so its leadership ended no later than the
     * refusal, as surely as with a cession. The standby proposes at once, without backoff or scouting, above its
     * pledge and naming that leader as ceded (as rule 9's successor does): the voters whose pledges support it vote,
     * those still following the dead leader take the proposal as its cession, and it leads on a majority. It does
     * not lead in its pledged term on its confirmations alone, as it does on a cession: a leader that replaced its
     * standby (one whose connection closed is replaced without being told) leaves two members that each hold a
     * majority's confirmations, and only a cession names one of them; the votes decide between them.
     */
    private boolean proposeAsStandby(NodeId goneLeader) {
        if (validityFromConfirmations() <= ctx.nanoTime() || !Counters.inRange(nextTerm())) {
            return false; // not ready: scout first (loseLeader), in the first slot
        }
        lastLostLeader = goneLeader;
        lostAsStandby = true;
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.BACKOFF);
        awaitingCessionFrom = null; // its proven departure stands for the cession
        scoutTerm = nextTerm();
        campaign(Optional.of(goneLeader));
        return true;
    }

    private void standDown() {
        standbyFor = null;
        ctx.cancel(Timer.STANDBY);
    }

    private void persistPledge(long newPledge, NodeId to) {
        ctx.persist(ctx.storedState().with(PLEDGE_KEY, newPledge));
        pledgeTerm = newPledge;
        pledgedTo = to;
    }

    // ---- following ----

    private void onHeartbeat(NodeId from, Heartbeat heartbeat) {
        if (heartbeat.term() < term) {
            // Rule 8: tell a stale leader about the newer term so that it steps down.
            ctx.send(from, new HeartbeatResponse(term, heartbeat.sequence()));
            return;
        }
        if (heartbeat.term() == term) {
            if (role == Role.LEADER) {
                log.error("{}: heartbeat from {} in my own term {}: two leaders in one term", self, from, term);
                return;
            }
            if (leader != null && !leader.equals(from)) {
                log.error("{}: heartbeat from {} in term {} led by {}", self, from, term, leader);
                return;
            }
            if (heartbeat.term() == lsnTerm && heartbeat.sequence() <= lsnSequence) {
                return; // stale or duplicated: LSNs must strictly increase
            }
        } else {
            // Higher term: the sender has been elected in a term this member did not see.
            enterTerm(heartbeat.term());
            if (!running) {
                return; // a leader that was handing over has stopped
            }
        }
        long now = ctx.nanoTime();
        lsnTerm = heartbeat.term();
        lsnSequence = heartbeat.sequence();
        setFence(now, from);
        ctx.cancel(Timer.BACKOFF);
        ctx.cancel(Timer.ROUND);
        ctx.schedule(Timer.LEADER_TIMEOUT, electionTimeoutNanos);
        transition(Role.FOLLOWER, from, ChangeReason.LEADER_DISCOVERED);
        ctx.send(from, new HeartbeatResponse(heartbeat.term(), heartbeat.sequence()));
    }

    private void onCession(NodeId from, LeadershipCession cession) {
        if (role == Role.FOLLOWER
                && from.equals(standbyFor)
                && cession.term() == standbyTerm
                && cession.term() == term
                && cession.successor().filter(self::equals).isPresent()
                && takeOverAsStandby()) {
            return;
        }
        if (role == Role.CANDIDATE && from.equals(awaitingCessionFrom) && cession.term() == awaitingCessionTerm) {
            // The leader that asked this member to take over has revoked its leadership: lead, if the votes are in.
            awaitingCessionFrom = null;
            if (from.equals(fenceSource)) {
                liftFence();
            }
            if (!abandonIfRoundExpired() && Quorums.isMajority(count(votes), members.size())) {
                becomeLeader();
            }
            return;
        }
        if (cession.term() < term) {
            return;
        }
        if (cession.term() > term) {
            adoptHigherTerm(cession.term());
        }
        if (from.equals(fenceSource)) {
            liftFence();
        }
        if (role == Role.FOLLOWER && (leader == null || leader.equals(from))) {
            boolean successor = cession.successor().filter(self::equals).isPresent();
            loseLeader(ChangeReason.LEADER_CEDED);
            if (successor && ctx.nanoTime() >= supportFenceUntil && Counters.inRange(nextTerm())) {
                // Named by the leader that ceded: propose at once, without scouting. Voters still following
                // that leader take the proposal as its cession (see onElectionProposal), so the handover takes
                // one round trip whichever of the two messages reaches them first.
                scoutTerm = nextTerm();
                awaitingCessionTerm = cession.term();
                campaign(Optional.of(from));
            }
        }
    }

    private void onHandoverRequest(NodeId from, HandoverRequest request) {
        if (role != Role.FOLLOWER || !from.equals(leader) || request.term() != term) {
            return; // not from the leader this member follows, or stale: that leader cedes on its deadline
        }
        if (!Counters.inRange(nextTerm())) {
            termsExhausted();
            return; // the leader cedes on its deadline, and nobody can take over
        }
        // Propose at once while the leader still leads. This member's own fence protects that leader too, and
        // like every voter's it stays up: this candidacy leads only after the leader's cession.
        lastLostLeader = from;
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.BACKOFF);
        awaitingCessionFrom = from;
        awaitingCessionTerm = request.term();
        readySent = false;
        scoutTerm = nextTerm();
        campaign(Optional.of(from));
    }

    private void loseLeader(ChangeReason why) {
        // Rule 3: forget the leader before the random wait, so that a peer's scouting is not refused on
        // account of a leader that is gone (etcd-io/etcd#8334).
        lastLostLeader = leader;
        lostAsStandby = leader != null && leader.equals(standbyFor);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        transition(Role.FOLLOWER, null, why);
        long wait = backoff();
        if (lostAsStandby && why == ChangeReason.LEADER_DISCONNECTED) {
            // A standby that could not take over at once (not ready) and whose leader is proven gone: the others
            // learn of the departure from the same closing, their slots start a whole slot later, and their pledges
            // support only this member, so it has no one to keep apart from and skips backoff-min.
            wait -= config.backoffMin().toNanos();
        }
        ctx.schedule(Timer.BACKOFF, wait);
    }

    private void backToFollowing(ChangeReason why) {
        ctx.cancel(Timer.ROUND);
        transition(Role.FOLLOWER, null, why);
        ctx.schedule(Timer.BACKOFF, backoff());
    }

    /** Rule 1: a higher term wins; a leader steps down (revoking first) before the term moves on. */
    private void enterTerm(long newTerm) {
        if (role == Role.LEADER) {
            stepDown(ChangeReason.HIGHER_EPOCH);
            if (!running) {
                return; // it was handing over and has stopped instead
            }
        }
        persistTerm(newTerm);
    }

    private void adoptHigherTerm(long newTerm) {
        enterTerm(newTerm);
        if (!running) {
            return; // a leader that was handing over has stopped
        }
        ctx.cancel(Timer.ROUND);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        transition(Role.FOLLOWER, null, ChangeReason.HIGHER_EPOCH);
        ctx.schedule(Timer.BACKOFF, backoff());
    }

    // ---- helpers ----

    private void armRound(long timeoutNanos) {
        roundDeadlineNanos = ctx.nanoTime() + timeoutNanos;
        ctx.schedule(Timer.ROUND, timeoutNanos);
    }

    /**
     * Whether the current round's deadline has passed even though its timer has not been handled yet (a
     * paused member handles queued answers before its queued timer): late answers must not count.
     */
    private boolean abandonIfRoundExpired() {
        if (ctx.nanoTime() < roundDeadlineNanos) {
            return false;
        }
        backToFollowing(ChangeReason.ROUND_FAILED);
        return true;
    }

    private boolean canSupportCandidate(NodeId candidate, long candidateTerm, long now) {
        return role != Role.LEADER
                && leader == null
                && now >= supportFenceUntil
                && pledgeAllows(candidate, candidateTerm, now);
    }

    /**
     * Rule 10 for a voter: no vote in a term up to the highest it has pledged (a pledge was its vote in that
     * term, and only the highest is stored), and no support for anyone but the standby it confirmed within an
     * election timeout.
     */
    private boolean pledgeAllows(NodeId candidate, long candidateTerm, long now) {
        return candidateTerm > pledgeTerm && (now >= pledgeFenceUntil || candidate.equals(pledgeFenceFor));
    }

    private void termsExhausted() {
        log.error(
                "{}: cannot propose term {}: terms are at their limit ({}); only 2^47 elections or a peer sending"
                        + " such a term on purpose reach it",
                self,
                nextTerm(),
                Counters.allowed());
    }

    /** The term a new candidacy of this member proposes: above its own and above every term it pledged. */
    private long nextTerm() {
        return Math.max(term, pledgeTerm) + 1;
    }

    private void setFence(long now, NodeId source) {
        supportFenceUntil = now + electionTimeoutNanos;
        fenceSource = source;
    }

    private void liftFence() {
        supportFenceUntil = Long.MIN_VALUE;
        fenceSource = null;
    }

    private void persistTerm(long newTerm) {
        // Durable first; if this throws, nothing in memory has changed.
        ctx.persist(ctx.storedState().with(TERM_KEY, newTerm));
        term = newTerm;
    }

    private void transition(Role newRole, NodeId newLeader, ChangeReason why) {
        if (role == Role.LEADER && newRole != Role.LEADER) {
            validUntilNanos = Long.MIN_VALUE;
            handoverTo = null;
        }
        if (newRole != Role.CANDIDATE) {
            awaitingCessionFrom = null;
        }
        if (standbyFor != null && (newRole != Role.FOLLOWER || !standbyFor.equals(newLeader) || term != standbyTerm)) {
            standDown(); // a standby only while it follows the leader that named it, in that leader's term
        }
        role = newRole;
        leader = newLeader;
        reportSuccessor();
        ElectorState next = new ElectorState(newRole, term, Optional.ofNullable(newLeader));
        if (!next.equals(announced)) {
            announced = next;
            ctx.announce(next, why);
        }
    }

    /**
     * The wait before scouting. The members that may campaign (all but the leader last lost) take turns: in
     * id order, each gets a slot of {@code (backoff-max − backoff-min) / count} and waits a random time within
     * the first half of its slot. Two scouts then rarely start within one round of each other — a split vote
     * costs a whole proposal timeout — while a member that cannot win only delays the next by one slot.
     */
    private long backoff() {
        long min = config.backoffMin().toNanos();
        long max = config.backoffMax().toNanos();
        if (max == min) {
            return min;
        }
        int slots = 0;
        int rank = 0;
        for (NodeId member : members) {
            if (!member.equals(lastLostLeader)) {
                slots++;
                if (member.compareTo(self) < 0) {
                    rank++;
                }
            }
        }
        if (lostAsStandby) {
            rank = 0; // the lost leader's standby goes first: the others' pledges fence for it alone
        }
        long slot = (max - min) / Math.max(1, slots);
        return min + rank * slot + ctx.random().nextLong(slot / 2 + 1);
    }

    private static int count(boolean[] flags) {
        int n = 0;
        for (boolean f : flags) {
            if (f) {
                n++;
            }
        }
        return n;
    }
}
