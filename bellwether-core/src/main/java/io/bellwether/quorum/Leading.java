package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Quorums;
import io.bellwether.quorum.QuorumElector.Timer;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import java.util.Optional;

/**
 * The leader's part of {@code docs/quorum.md}: heartbeat rounds (rule 6), check-quorum and the validity
 * (rule 7), stepping down (rule 1), and the prepared handover it starts on a graceful stop (rule 9.1).
 *
 * <p>Part of one {@link QuorumElector}, driven by it on its thread: the elector owns the role and the term and
 * hands this class what a leader handles. Not thread-safe.
 */
final class Leading extends QuorumPart {
    private final long heartbeatNanos;

    private long sequence;
    private long validUntilNanos;
    /** Leader that was asked to stop: the successor gathering votes while this member still leads; else null. */
    private NodeId handoverTo;
    /** Whether this leader is resigning (it stays a member) rather than stopping. */
    private boolean resigning;

    Leading(QuorumElector elector) {
        super(elector);
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
    }

    /** The successor of a prepared handover under way (rule 9), or null. */
    NodeId handoverTo() {
        return handoverTo;
    }

    /** Whether this leader is resigning and staying a member ({@link QuorumElector#resign}). */
    boolean resigning() {
        return resigning;
    }

    /**
     * A leader resigns: as on a graceful stop, it prepares a successor (rule 9.1) unless its standby takes over on
     * the cession alone. False when it has nothing to prepare and cedes at once.
     */
    boolean beginResigning() {
        resigning = true;
        return beginHandover();
    }

    /**
     * A leader stops ({@link QuorumElector#beginStop}): as {@link #beginHandover}, except that a resignation's
     * handover already under way becomes the stop's, so that the member goes dormant when it cedes instead of
     * staying a follower (the runtime waits for that to end its close).
     */
    boolean beginStopping() {
        resigning = false;
        return beginHandover();
    }

    /** A majority voted (or pledged): lead, if the votes still give a valid leadership. */
    void begin() {
        // The votes count as confirmations of a round sent when the proposal was.
        long validity = confirmations.validUntil();
        if (elector.holdingOff(ctx.nanoTime())) {
            // Resigned meanwhile (a candidacy or standby role it had): it does not lead during its hold-off.
            elector.backToFollowing(ChangeReason.RESIGNED);
            return;
        }
        if (ctx.nanoTime() >= validity) {
            // Won too late (this member was paused with the votes queued): the voters' fences, and with them
            // this leadership, have already run out, and a later term may lead by now. Never lead invalidly.
            elector.backToFollowing(ChangeReason.ROUND_FAILED);
            return;
        }
        ctx.cancel(Timer.ROUND);
        ctx.cancel(Timer.BACKOFF);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        sequence = 0;
        confirmations.forgetRounds();
        elector.standby.startLeading(elector.nextTerm());
        validUntilNanos = validity;
        ctx.validUntil(validUntilNanos);
        elector.transition(QuorumRole.LEADER, elector.self, ChangeReason.ELECTED);
        sendHeartbeatRound();
    }

    /** The {@link Timer#HEARTBEAT} timer, and the first round of a leadership. */
    void sendHeartbeatRound() {
        long now = ctx.nanoTime();
        if (now >= validUntilNanos) {
            // Late (a pause, a stalled thread): do not make followers fence for a leadership that is over.
            checkQuorum();
            return;
        }
        sequence++;
        confirmations.record(sequence, now);
        ctx.schedule(Timer.HEARTBEAT, heartbeatNanos);
        ctx.broadcast(new Heartbeat(elector.term, sequence));
        updateValidity();
        if (elector.role == QuorumRole.LEADER) {
            elector.standby.nameStandby(now);
        }
    }

    void onHeartbeatResponse(int fromIndex, HeartbeatResponse response) {
        if (response.term() > elector.term) {
            elector.adoptHigherTerm(response.term());
            return;
        }
        if (elector.role != QuorumRole.LEADER || response.term() != elector.term) {
            return;
        }
        if (confirmations.confirm(fromIndex, response.sequence())) {
            updateValidity();
        }
    }

    /**
     * Rule 7: validity = the send time of the latest round a majority confirmed + election timeout × (1 − drift)
     * − margin. It moves back when a confirming peer is gone; when it has run out the leader steps down.
     */
    private void updateValidity() {
        long next = confirmations.validUntil();
        if (next != validUntilNanos) {
            validUntilNanos = next;
            ctx.validUntil(next);
        }
        checkQuorum();
    }

    /** The {@link Timer#VALIDITY} timer, and every change of the validity. */
    void checkQuorum() {
        long now = ctx.nanoTime();
        if (now >= validUntilNanos) {
            // Rule 7, check-quorum: without a majority's recent confirmation this member may no longer act.
            stepDown(ChangeReason.LOST_QUORUM);
            elector.holdDownUntil = now + config.stepDownHoldDown().toNanos();
        } else {
            ctx.schedule(Timer.VALIDITY, validUntilNanos - now);
        }
    }

    void stepDown(ChangeReason why) {
        if (handoverTo != null) {
            // Asked to stop (or resign) anyway: cede to the prepared successor now.
            elector.finishHandover();
            return;
        }
        long ledTerm = elector.term;
        ctx.cancel(Timer.HEARTBEAT);
        ctx.cancel(Timer.VALIDITY);
        // Revoke before telling anyone.
        elector.transition(QuorumRole.FOLLOWER, null, why);
        ctx.broadcast(new LeadershipCession(ledTerm, Optional.empty()));
        ctx.schedule(Timer.BACKOFF, elector.backoff());
    }

    /** The peer that confirmed most recently is connected and caught up; ties go to the lowest id. */
    Optional<NodeId> bestSuccessor() {
        int best = confirmations.mostRecentPeer();
        return best < 0 ? Optional.empty() : Optional.of(elector.members.get(best));
    }

    /**
     * Rule 9.1: asks the standby, or else the peer that confirmed most recently, to gather votes for the next term
     * while this member still leads. False when the standby takes over on the cession alone (rule 10.5), or there
     * is no one to prepare.
     */
    boolean beginHandover() {
        if (handoverTo != null) {
            return true;
        }
        if (elector.standby.canTakeOver()) {
            return false; // stop() cedes to the standby at once: it leads on the cession alone (rule 10.5)
        }
        Optional<NodeId> successor = elector.standby.named().or(this::bestSuccessor);
        int memberCount = elector.members.size();
        if (successor.isEmpty() || !Quorums.isMajority(memberCount - 1, memberCount)) {
            return false; // no one to prepare, or the others could not elect anyone without this member
        }
        handoverTo = successor.get();
        ctx.cancel(Timer.HEARTBEAT);
        ctx.schedule(Timer.HANDOVER, config.proposalTimeout().toNanos());
        ctx.send(handoverTo, new HandoverRequest(elector.term));
        return true;
    }

    /**
     * A leader's peer closed its connection: when it is the successor of a prepared handover, cede now, naming
     * another; when it is the standby, name another with the next round.
     */
    void onPeerDisconnected(NodeId peer, int peerIndex) {
        if (peer.equals(handoverTo)) {
            // The successor may not hear the cession soon: cede now, naming another. Ceding early is safe.
            confirmations.forget(peerIndex);
            handoverTo = null;
            elector.standby.setStandby(null);
            elector.finishHandover();
            return;
        }
        if (elector.standby.isNamed(peer)) {
            elector.standby.setStandby(null); // another is named with the next round
        }
    }

    /** A leader's peer is proven gone: its confirmation no longer counts (rule 7). */
    void onPeerGone(int peerIndex) {
        confirmations.forget(peerIndex);
        updateValidity();
    }

    /** On every role change: a leadership that ends has no validity and no handover. */
    void onTransition(QuorumRole oldRole, QuorumRole newRole) {
        if (oldRole == QuorumRole.LEADER && newRole != QuorumRole.LEADER) {
            validUntilNanos = Long.MIN_VALUE;
            handoverTo = null;
            resigning = false;
        }
    }
}
