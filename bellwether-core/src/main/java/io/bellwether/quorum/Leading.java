package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Quorums;
import io.bellwether.quorum.QuorumElector.Timer;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The leader's part of {@code docs/quorum.md}: heartbeat rounds (rule 6), check-quorum and the validity
 * (rule 7), stepping down (rule 1), the prepared handover it starts on a graceful stop (rule 9.1), and the
 * hand-over to a member of higher priority (rule 11).
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
    /** A leader handing over to a member of higher priority (rule 11): that member; else null. */
    private NodeId transferTo;

    // Rule 11, per member index: the priority its latest heartbeat answer announced, and since when it has
    // confirmed every round (MIN_VALUE: not caught up now).
    private final int[] priorities;
    private final long[] caughtUpSince;
    private final long priorityHoldDownNanos;
    /** The member {@link #transferTarget} named at the last round, and since when; null when none. */
    private NodeId preferred;

    private long preferredSince;

    Leading(QuorumElector elector) {
        super(elector);
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.priorityHoldDownNanos = config.priorityHoldDown().toNanos();
        this.priorities = new int[elector.members.size()];
        this.caughtUpSince = new long[elector.members.size()];
        Arrays.fill(caughtUpSince, Long.MIN_VALUE);
    }

    /** The member of higher priority this leader is handing over to (rule 11), or null. */
    NodeId transferTo() {
        return transferTo;
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
        Arrays.fill(caughtUpSince, Long.MIN_VALUE);
        preferred = null;
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
            handOverToPreferred(now);
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
            priorities[fromIndex] = response.priority();
            if (caughtUpSince[fromIndex] == Long.MIN_VALUE) {
                caughtUpSince[fromIndex] = ctx.nanoTime();
            }
            updateValidity();
        }
    }

    /**
     * Whether {@code member} confirmed a round sent within half an election timeout: it is connected and keeps up.
     * A member that does not loses its caught-up time, so its hold-down starts again when it confirms again.
     */
    private boolean keepsUp(int member, long now) {
        long confirmed = confirmations.confirmedAt(member);
        if (confirmed != Long.MIN_VALUE && now - confirmed <= elector.electionTimeoutNanos / 2) {
            return true;
        }
        caughtUpSince[member] = Long.MIN_VALUE;
        return false;
    }

    /**
     * Rule 11: the member this leader hands over to now: of all that announce a priority strictly above this
     * member's, the highest (ties to the lowest id), among those that have kept up for the whole {@code
     * priority-hold-down}; null if there is none. Strictly above: a member that took over this way never hands
     * back, and equal priorities never move a leadership.
     */
    NodeId transferTarget(long now) {
        int best = -1;
        for (int i = 0; i < priorities.length; i++) {
            if (i == elector.selfIndex || !keepsUp(i, now)) {
                continue;
            }
            if (priorities[i] > config.priority()
                    && caughtUpSince[i] != Long.MIN_VALUE
                    && now - caughtUpSince[i] >= priorityHoldDownNanos
                    && (best < 0 || priorities[i] > priorities[best])) {
                best = i;
            }
        }
        return best < 0 ? null : elector.members.get(best);
    }

    /**
     * Rule 11, at each heartbeat round: once a member of higher priority has kept up for the hold-down, hand over to
     * it by the graceful path. With a standby (rule 10) the leader first names that member its standby and hands
     * over when it is ready, with one message; without one it prepares it as rule 9's successor.
     */
    private void handOverToPreferred(long now) {
        if (handoverTo != null || resigning) {
            return;
        }
        NodeId target = transferTarget(now);
        if (!Objects.equals(target, preferred)) {
            preferred = target;
            preferredSince = now;
        }
        if (target == null) {
            return;
        }
        int memberCount = elector.members.size();
        boolean withStandby = config.standby() && Quorums.isMajority(memberCount - 1, memberCount);
        if (withStandby
                && !(elector.standby.isNamed(target) && elector.standby.canTakeOver())
                && now - preferredSince < elector.electionTimeoutNanos) {
            // Named its standby by this round (Standby#nameStandby): hand over with one message once it is ready.
            // A standby whose fellow followers have pledged its term elsewhere never gets ready; after an election
            // timeout the leader prepares it as rule 9's successor instead, which proposes above every pledge.
            return;
        }
        elector.handOver(target, priorities[elector.indexOf(target)]);
    }

    /** Starts the hand-over of rule 11 to {@code target}: as a resignation, with that member as the successor. */
    boolean beginTransfer(NodeId target) {
        transferTo = target;
        return beginResigning();
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

    /**
     * The peer that confirmed most recently is connected and caught up; ties go to the lowest id. Of the peers that
     * keep up, one of higher priority is preferred (rule 11), so that the member the group prefers takes over when
     * this leader goes.
     */
    Optional<NodeId> bestSuccessor() {
        if (transferTo != null) {
            return Optional.of(transferTo);
        }
        int best = confirmations.mostRecentPeer();
        if (best < 0) {
            return Optional.empty();
        }
        long now = ctx.nanoTime();
        for (int i = 0; i < priorities.length; i++) {
            if (i != elector.selfIndex
                    && i != best
                    && priorities[i] >= priorities[best]
                    && (priorities[i] > priorities[best]
                            || confirmations.confirmedAt(i) > confirmations.confirmedAt(best))
                    && keepsUp(i, now)) {
                best = i;
            }
        }
        return Optional.of(elector.members.get(best));
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
        Optional<NodeId> successor = transferTo != null
                ? Optional.of(transferTo)
                : elector.standby.named().or(this::bestSuccessor);
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
        caughtUpSince[peerIndex] = Long.MIN_VALUE;
        if (peer.equals(transferTo)) {
            transferTo = null; // the cession names the next best successor
        }
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
        caughtUpSince[peerIndex] = Long.MIN_VALUE;
        confirmations.forget(peerIndex);
        updateValidity();
    }

    /** On every role change: a leadership that ends has no validity and no handover. */
    void onTransition(QuorumRole oldRole, QuorumRole newRole) {
        if (oldRole == QuorumRole.LEADER && newRole != QuorumRole.LEADER) {
            validUntilNanos = Long.MIN_VALUE;
            handoverTo = null;
            resigning = false;
            transferTo = null;
        }
    }
}
