package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Quorums;
import io.bellwether.quorum.QuorumElector.Timer;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
import io.bellwether.quorum.QuorumMessage.HandoverReady;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import java.util.Arrays;
import java.util.Optional;

/**
 * The scouting and election rounds of {@code docs/quorum.md}: the scout's pre-vote (rule 4), the candidate's
 * proposal and votes (rule 5), the successor of a prepared handover (rule 9), and the answers every member gives
 * to scouts and candidates.
 *
 * <p>Part of one {@link QuorumElector}, driven by it on its thread: the elector owns the role, the leader, the
 * term and the fences, and hands this class the messages and timers of a round. Not thread-safe.
 */
final class ElectionRounds extends QuorumPart {
    private final int memberCount;

    // Scout.
    private long scoutTerm;
    private final boolean[] scoutYes;
    private final boolean[] scoutNo;

    /** When the current scouting or election round times out. */
    private long roundDeadlineNanos;

    // Candidate.
    private final boolean[] votes;
    private long proposalSentNanos;

    // Successor in a prepared handover.
    /** The leader that asked this candidate to take over; it leads only once that leader's cession arrives. */
    private NodeId awaitingCessionFrom;

    private boolean readySent;

    private long awaitingCessionTerm;

    ElectionRounds(QuorumElector elector) {
        super(elector);
        this.memberCount = elector.members.size();
        this.scoutYes = new boolean[memberCount];
        this.scoutNo = new boolean[memberCount];
        this.votes = new boolean[memberCount];
    }

    // ---- scouting (pre-vote, rule 4) ----

    /** The backoff is over: scout for the next term, unless a fence or the hold-down still stands. */
    void tryScouting() {
        long now = ctx.nanoTime();
        long notBefore = Math.max(
                Math.max(elector.supportFenceUntil, elector.holdDownUntil), elector.standby.pledgeFenceUntil());
        if (elector.holdingOff(now)) {
            ctx.schedule(Timer.BACKOFF, elector.backoff()); // resigned: scouts only once its hold-off is over
            return;
        }
        if (now < notBefore) {
            ctx.schedule(Timer.BACKOFF, notBefore - now + elector.backoff());
            return;
        }
        if (!Counters.inRange(elector.nextTerm())) {
            elector.termsExhausted();
            ctx.schedule(Timer.BACKOFF, elector.electionTimeoutNanos + elector.backoff());
            return;
        }
        scoutTerm = elector.nextTerm();
        Arrays.fill(scoutYes, false);
        Arrays.fill(scoutNo, false);
        scoutYes[elector.selfIndex] = true;
        elector.transition(QuorumRole.SCOUT, null, ChangeReason.SCOUTING);
        if (Quorums.isMajority(count(scoutYes), memberCount)) {
            campaign(Optional.empty());
            return;
        }
        armRound(config.scoutingTimeout().toNanos());
        ctx.broadcast(new ScoutingRequest(scoutTerm));
    }

    void onScoutingRequest(NodeId from, ScoutingRequest request) {
        // Rule 4: answer without changing anything. A member that still hears a leader, or leads, says no
        // (stickiness, rule 8); a scout that is behind gets our term so that it catches up.
        boolean willVote =
                request.term() > elector.term && elector.canSupportCandidate(from, request.term(), ctx.nanoTime());
        ctx.send(from, new ScoutingResponse(request.term(), willVote, elector.term));
    }

    void onScoutingResponse(int fromIndex, ScoutingResponse response) {
        if (response.responderTerm() > elector.term) {
            elector.adoptHigherTerm(response.responderTerm());
            return;
        }
        if (elector.role != QuorumRole.SCOUT || response.term() != scoutTerm || abandonIfRoundExpired()) {
            return;
        }
        if (response.willVote()) {
            scoutYes[fromIndex] = true;
            scoutNo[fromIndex] = false;
            if (Quorums.isMajority(count(scoutYes), memberCount)) {
                campaign(Optional.empty());
            }
        } else if (!scoutYes[fromIndex]) {
            scoutNo[fromIndex] = true;
            if (!Quorums.isMajority(memberCount - count(scoutNo), memberCount)) {
                elector.backToFollowing(ChangeReason.ROUND_FAILED);
            }
        }
    }

    // ---- election (rule 5) ----

    /** Proposes the next term at once, without scouting; {@code ceded} names the leader this member succeeds. */
    void proposeNow(Optional<NodeId> ceded) {
        scoutTerm = elector.nextTerm();
        campaign(ceded);
    }

    private void campaign(Optional<NodeId> transferFrom) {
        // The proposal leaves before this member's own term is durable, so that the write overlaps the round
        // trip instead of preceding it (one disk write less on the failover path). Safe: the term is persisted
        // before this member counts its own vote, becomes a candidate or leads; a member that crashes in
        // between never led in that term, restarts at its old term and may vote for another candidate in it,
        // and the votes it collected die with it. Replies still wait for durability (rule 5). The time is read
        // before the send: the voters' fences start after it, so the leadership's validity counts from it.
        proposalSentNanos = ctx.nanoTime();
        ctx.broadcast(new ElectionProposal(scoutTerm, transferFrom));
        elector.persistTerm(scoutTerm);
        Arrays.fill(votes, false);
        confirmations.clear();
        votes[elector.selfIndex] = true;
        confirmations.confirmAt(elector.selfIndex, proposalSentNanos);
        elector.transition(QuorumRole.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        armRound(config.proposalTimeout().toNanos());
        if (Quorums.isMajority(count(votes), memberCount)) {
            onMajority();
        }
    }

    /**
     * A majority voted: lead, or, in a prepared handover, tell the ceding leader and wait for its cession. The
     * wait may outlast the proposal timeout (the leader's listeners hear of its revocation before the cession
     * leaves, and may be slow): it lasts as long as the votes can still make a valid leadership, which
     * {@link Leading#begin()} checks again.
     */
    private void onMajority() {
        if (awaitingCessionFrom == null) {
            elector.leadership.begin();
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

    void onElectionProposal(NodeId from, ElectionProposal proposal) {
        Optional<NodeId> ceded = proposal.transferFrom();
        // A candidate named by the leader this member's fence protects: it was asked to take over by that leader
        // (rule 9.3), which cedes before the candidate may lead. The fence does not stop this vote.
        boolean handover = false;
        if (ceded.isPresent() && proposal.term() > elector.term) {
            NodeId old = ceded.get();
            handover = old.equals(elector.fenceSource);
            if (elector.role == QuorumRole.FOLLOWER && old.equals(elector.leader)) {
                elector.loseLeader(ChangeReason.LEADER_CEDED);
            }
        }
        long now = ctx.nanoTime();
        boolean canSupport = elector.role != QuorumRole.LEADER
                && elector.leader == null
                && (handover || now >= elector.supportFenceUntil)
                && elector.standby.pledgeAllows(from, proposal.term(), now);
        if (proposal.term() <= elector.term || !canSupport) {
            // Rules 2 and 8: a member that still hears a leader ignores even a higher-term proposal, without
            // adopting its term, so that a returning node cannot depose a healthy leader.
            return;
        }
        // Rule 5: persist the term before the vote leaves.
        elector.persistTerm(proposal.term());
        // Supporting a candidate is a promise like acknowledging a heartbeat: no other candidate gets our
        // support within an election timeout, so the candidate's validity can count this vote. After a
        // handover vote the old leader may still be valid on this member's earlier confirmation, so nobody's
        // disconnection lifts this fence: only time does (or a heartbeat of the new leader replaces it).
        elector.setFence(now, handover ? null : from);
        elector.transition(QuorumRole.FOLLOWER, null, ChangeReason.HIGHER_EPOCH);
        ctx.cancel(Timer.ROUND);
        ctx.schedule(Timer.BACKOFF, elector.electionTimeoutNanos + elector.backoff());
        ctx.send(from, new ElectionResponse(proposal.term()));
    }

    void onElectionResponse(int fromIndex, ElectionResponse response) {
        if (elector.role != QuorumRole.CANDIDATE || response.term() != elector.term || abandonIfRoundExpired()) {
            return;
        }
        votes[fromIndex] = true;
        confirmations.confirmAt(fromIndex, proposalSentNanos);
        if (Quorums.isMajority(count(votes), memberCount)) {
            onMajority();
        }
    }

    // ---- the successor of a prepared handover (rule 9) ----

    void onHandoverRequest(NodeId from, HandoverRequest request) {
        if (elector.role != QuorumRole.FOLLOWER || !from.equals(elector.leader) || request.term() != elector.term) {
            return; // not from the leader this member follows, or stale: that leader cedes on its deadline
        }
        if (elector.holdingOff(ctx.nanoTime())) {
            return; // resigned: it does not lead during its hold-off; the leader cedes on its deadline
        }
        if (!Counters.inRange(elector.nextTerm())) {
            elector.termsExhausted();
            return; // the leader cedes on its deadline, and nobody can take over
        }
        // Propose at once while the leader still leads. This member's own fence protects that leader too, and
        // like every voter's it stays up: this candidacy leads only after the leader's cession.
        elector.lastLostLeader = from;
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.BACKOFF);
        awaitingCessionFrom = from;
        awaitingCessionTerm = request.term();
        readySent = false;
        proposeNow(Optional.of(from));
    }

    /** The cession this candidate awaits (rule 9.4): lead, if the votes are in. False for any other cession. */
    boolean onCession(NodeId from, LeadershipCession cession) {
        if (elector.role != QuorumRole.CANDIDATE
                || !from.equals(awaitingCessionFrom)
                || cession.term() != awaitingCessionTerm) {
            return false;
        }
        // The leader that asked this member to take over has revoked its leadership: lead, if the votes are in.
        awaitingCessionFrom = null;
        if (from.equals(elector.fenceSource)) {
            elector.liftFence();
        }
        if (!abandonIfRoundExpired() && Quorums.isMajority(count(votes), memberCount)) {
            elector.leadership.begin();
        }
        return true;
    }

    /**
     * A candidate's peer is proven gone: its vote and confirmation no longer count, and when it is the leader
     * this candidate succeeds, its leadership ended with its process, which stands for the cession (rule 9).
     */
    void onPeerGone(NodeId peer, int peerIndex) {
        votes[peerIndex] = false;
        confirmations.forget(peerIndex);
        if (peer.equals(awaitingCessionFrom)) {
            // The leader that asked us to take over is gone: its leadership ended with its process.
            awaitingCessionFrom = null;
            if (Quorums.isMajority(count(votes), memberCount) && !abandonIfRoundExpired()) {
                elector.leadership.begin();
            }
        }
    }

    /** A departure proven otherwise stands for the cession this member may await. */
    void forgetAwaitedCession() {
        awaitingCessionFrom = null;
    }

    /** On every role change: only a candidate awaits a cession. */
    void onTransition(QuorumRole newRole) {
        if (newRole != QuorumRole.CANDIDATE) {
            awaitingCessionFrom = null;
        }
    }

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
        elector.backToFollowing(ChangeReason.ROUND_FAILED);
        return true;
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
