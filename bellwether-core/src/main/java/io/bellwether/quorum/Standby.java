package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.Quorums;
import io.bellwether.quorum.QuorumElector.Timer;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.StandbyConfirm;
import io.bellwether.quorum.QuorumMessage.StandbyReady;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import io.bellwether.quorum.QuorumMessage.StandbyRound;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Rule 10 of {@code docs/quorum.md}, the standby successor, in its three parts: the leader that names a follower
 * its standby (10.1, 10.5), the standby that gathers pledges of the votes for a term of its own while that leader
 * leads (10.2, 10.4, 10.5, 10.6), and the voter that pledges (10.3).
 *
 * <p>Part of one {@link QuorumElector}, driven by it on its thread: the elector owns the role, the leader and the
 * term and asks this class at the points where rule 10 acts. Not thread-safe.
 */
final class Standby extends QuorumPart {
    private final NodeId self;
    private final List<NodeId> members;
    /**
     * Two thirds of the validity (250 ms with the defaults): a standby's confirmations then always leave it at
     * least a third of a validity when the cession comes, at the lowest cost in idle traffic.
     */
    private final long intervalNanos;

    // Voter (rule 10.3). Persisted: the highest term pledged to a standby; votes go only to terms above it.
    private long pledgeTerm;
    /** Whom {@link #pledgeTerm} went to, while this process remembers; it may confirm that standby again. */
    private NodeId pledgedTo;
    /** Until this instant this member supports no candidate but {@link #pledgeFenceFor}. */
    private long pledgeFenceUntil = Long.MIN_VALUE;

    private NodeId pledgeFenceFor;

    // Standby: a follower the leader named to take over on its cession alone.
    /** The leader that named this member its standby; null when it is none. */
    private NodeId standbyFor;

    private long standbyTerm;
    private long standbyPledge;
    private long standbySequence;
    private boolean standbyReadySent;
    /** Whether the leader lost last had named this member its standby: it then scouts first. */
    private boolean lostAsStandby;

    // Leader: its standby.
    private NodeId standby;

    private long standbyPledgeTerm;
    private long nextPledgeTerm;
    private long standbyAskedAt;
    private boolean standbyReady;
    /** The successor last given to {@link ElectorContext#successor}, null for none. */
    private NodeId reportedSuccessor;

    Standby(QuorumElector elector) {
        super(elector);
        this.self = ctx.self();
        this.members = elector.members;
        this.intervalNanos = Math.max(1_000_000L, config.validityNanos() * 2 / 3);
    }

    // ---- voter (rule 10.3) ----

    /** On start: the pledge persisted, given to no one this process remembers. */
    void loadPledge() {
        pledgeTerm = Counters.checked(
                "stored " + QuorumElector.PLEDGE_KEY, ctx.storedState().get(QuorumElector.PLEDGE_KEY, 0));
        pledgedTo = null;
    }

    /** The highest term this member pledged; it votes in no term up to it by any other means. */
    long pledgeTerm() {
        return pledgeTerm;
    }

    /** Until this instant this member supports no candidate but the standby it confirmed last. */
    long pledgeFenceUntil() {
        return pledgeFenceUntil;
    }

    /**
     * Rule 10.3 for a voter: no vote in a term up to the highest it has pledged (a pledge was its vote in that
     * term, and only the highest is stored), and no support for anyone but the standby it confirmed within an
     * election timeout.
     */
    boolean pledgeAllows(NodeId candidate, long candidateTerm, long now) {
        return candidateTerm > pledgeTerm && (now >= pledgeFenceUntil || candidate.equals(pledgeFenceFor));
    }

    void onStandbyRound(NodeId from, StandbyRound round) {
        // Only a follower of a live leader of the round's term pledges: a member that lost its leader is
        // electing, and a pledge would hold up that election.
        if (elector.role != QuorumRole.FOLLOWER
                || elector.leader == null
                || from.equals(elector.leader)
                || round.term() != elector.term
                || round.pledgeTerm() <= elector.term) {
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
        pledgeFenceUntil = ctx.nanoTime() + elector.electionTimeoutNanos;
        pledgeFenceFor = from;
        ctx.send(from, new StandbyConfirm(round.term(), round.pledgeTerm(), round.sequence()));
    }

    /**
     * A peer is proven gone (rule 2): a pledge fence it set has nothing left to protect, and, at a standby, its
     * confirmation no longer stands for a member that will confirm again.
     */
    void onPeerGone(NodeId peer, int peerIndex) {
        if (peer.equals(pledgeFenceFor)) {
            pledgeFenceUntil = Long.MIN_VALUE;
            pledgeFenceFor = null;
        }
        if (standbyFor != null) {
            confirmations.forget(peerIndex);
        }
    }

    private void persistPledge(long newPledge, NodeId to) {
        ctx.persist(ctx.storedState().with(QuorumElector.PLEDGE_KEY, newPledge));
        pledgeTerm = newPledge;
        pledgedTo = to;
    }

    // ---- the standby (rules 10.2, 10.4 to 10.6) ----

    /**
     * This member resigned: a standby stands down (it must not take over during its hold-off), and requests are
     * refused until the hold-off has passed; its leader then falls back to rule 9 and cedes on its deadline.
     */
    void resigned() {
        if (standbyFor != null) {
            standDown();
        }
    }

    void onStandbyRequest(NodeId from, StandbyRequest request) {
        if (elector.role != QuorumRole.FOLLOWER || !from.equals(elector.leader) || request.term() != elector.term) {
            return;
        }
        if (request.pledgeTerm() != 0 && elector.holdingOff(ctx.nanoTime())) {
            return; // resigned: no standby role during the hold-off
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
        if (request.pledgeTerm() <= Math.max(elector.term, pledgeTerm)) {
            return; // pledged elsewhere already: the leader names a higher term when this one does not report
        }
        // This member's own vote in that term goes to itself, durably, like the others' pledges.
        persistPledge(request.pledgeTerm(), self);
        standbyFor = from;
        standbyTerm = elector.term;
        standbyPledge = request.pledgeTerm();
        standbySequence = 0;
        standbyReadySent = false;
        confirmations.clear();
        confirmations.forgetRounds();
        sendStandbyRound();
    }

    /** The {@link Timer#STANDBY} timer: the next round of pledges, while this member is a standby. */
    void onTimer() {
        if (standbyFor != null) {
            sendStandbyRound();
        }
    }

    private void sendStandbyRound() {
        long now = ctx.nanoTime();
        standbySequence++;
        confirmations.record(standbySequence, now);
        StandbyRound round = new StandbyRound(standbyTerm, standbyPledge, standbySequence);
        for (NodeId member : members) {
            if (!member.equals(self) && !member.equals(standbyFor)) {
                ctx.send(member, round);
            }
        }
        ctx.schedule(Timer.STANDBY, intervalNanos);
    }

    void onStandbyConfirm(int fromIndex, StandbyConfirm confirm) {
        if (standbyFor == null || confirm.term() != standbyTerm || confirm.pledgeTerm() != standbyPledge) {
            return;
        }
        if (!confirmations.confirm(fromIndex, confirm.sequence())) {
            return;
        }
        if (!standbyReadySent && confirmations.validUntil() > ctx.nanoTime()) {
            standbyReadySent = true;
            ctx.send(standbyFor, new StandbyReady(standbyTerm, standbyPledge));
        }
    }

    /**
     * A cession of the leader that named this member its standby, naming it: takes over if it can (rule 10.5).
     * False when this is not that cession, or the standby cannot lead on it.
     */
    boolean onCession(NodeId from, LeadershipCession cession) {
        return elector.role == QuorumRole.FOLLOWER
                && from.equals(standbyFor)
                && cession.term() == standbyTerm
                && cession.term() == elector.term
                && cession.successor().filter(self::equals).isPresent()
                && takeOverAsStandby();
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
        if (confirmations.validUntil() <= ctx.nanoTime() || elector.holdingOff(ctx.nanoTime())) {
            return false;
        }
        elector.lastLostLeader = standbyFor;
        elector.term = standbyPledge;
        elector.leadership.begin();
        ctx.persist(ctx.storedState().with(QuorumElector.TERM_KEY, elector.term));
        return true;
    }

    /**
     * A follower's peer is proven gone: when it is the leader that named this ready standby, propose at once
     * (rule 10.6). False when this member is not that leader's standby, or not ready.
     */
    boolean onLeaderGone(NodeId peer) {
        return peer.equals(standbyFor) && elector.term == standbyTerm && proposeAsStandby(peer);
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
        if (confirmations.validUntil() <= ctx.nanoTime()
                || !Counters.inRange(elector.nextTerm())
                || elector.holdingOff(ctx.nanoTime())) {
            return false; // not ready: scout first (loseLeader), in the first slot
        }
        elector.lastLostLeader = goneLeader;
        lostAsStandby = true;
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.BACKOFF);
        elector.rounds.forgetAwaitedCession(); // its proven departure stands for the cession
        elector.rounds.proposeNow(Optional.of(goneLeader));
        return true;
    }

    /**
     * The follower lost {@code lostLeader}; whether it had named this member its standby, which then goes first
     * (see {@link #lostAsStandby()}).
     */
    boolean noteLostLeader(NodeId lostLeader) {
        lostAsStandby = lostLeader != null && lostLeader.equals(standbyFor);
        return lostAsStandby;
    }

    /**
     * Whether the leader lost last had named this member its standby: it scouts first, since the others' pledges
     * fence for it alone.
     */
    boolean lostAsStandby() {
        return lostAsStandby;
    }

    /** On every role change: a standby only while it follows the leader that named it, in that leader's term. */
    void onTransition(QuorumRole newRole, NodeId newLeader) {
        if (standbyFor != null
                && (newRole != QuorumRole.FOLLOWER || !standbyFor.equals(newLeader) || elector.term != standbyTerm)) {
            standDown();
        }
    }

    private void standDown() {
        standbyFor = null;
        ctx.cancel(Timer.STANDBY);
    }

    // ---- the leader's standby (rules 10.1 and 10.5) ----

    /** A new leadership: no standby yet, and the first one is named for the term after {@code nextTerm - 1}. */
    void startLeading(long nextTerm) {
        setStandby(null);
        nextPledgeTerm = nextTerm;
    }

    /**
     * Leader: keeps one follower named as its standby, which gathers pledges of the votes for a term of its own
     * while this member leads, so that a cession alone can make it leader. The standby is kept as long as it
     * confirms heartbeats, whether or not it has reported a majority (with too few followers up, no other would
     * either); one that stops confirming is replaced, for a term of its own. Naming anew only then keeps the
     * pledged terms from running ahead of the group's term while members are down.
     */
    void nameStandby(long now) {
        if (!config.standby()
                || elector.leadership.handoverTo() != null
                || !Quorums.isMajority(members.size() - 1, members.size())) {
            return; // a group of two has no majority without its leader
        }
        // Rule 11: a member of higher priority that the leader is about to hand over to is its standby, so that the
        // hand-over takes one message.
        NodeId preferred = elector.leadership.transferTarget(now);
        if (standby != null && preferred != null && !standby.equals(preferred)) {
            ctx.send(standby, new StandbyRequest(elector.term, 0));
            setStandby(null);
        }
        if (standby != null) {
            if (standbyConfirmsHeartbeats(now)) {
                if (!standbyReady && now - standbyAskedAt >= intervalNanos) {
                    // Not ready yet: the request may have been lost, or have overtaken this leader's first
                    // heartbeat. Asking again for the same term is harmless: the standby takes it as a duplicate.
                    standbyAskedAt = now;
                    ctx.send(standby, new StandbyRequest(elector.term, standbyPledgeTerm));
                }
                return;
            }
            ctx.send(standby, new StandbyRequest(elector.term, 0));
            setStandby(null);
        }
        Optional<NodeId> next = preferred != null ? Optional.of(preferred) : elector.leadership.bestSuccessor();
        if (next.isEmpty() || !Counters.inRange(nextPledgeTerm)) {
            return;
        }
        setStandby(next.get());
        standbyPledgeTerm = nextPledgeTerm++;
        standbyAskedAt = now;
        ctx.send(standby, new StandbyRequest(elector.term, standbyPledgeTerm));
    }

    /** Leader: its standby, ready or not, if it has one. */
    Optional<NodeId> named() {
        return Optional.ofNullable(standby);
    }

    /** Leader: whether {@code member} is its standby. */
    boolean isNamed(NodeId member) {
        return member.equals(standby);
    }

    /**
     * Leader: the only place its standby changes. A newly named one (or none) is not ready, and the driver hears
     * when the ready successor it was told of is gone.
     */
    void setStandby(NodeId member) {
        standby = member;
        standbyReady = false;
        reportSuccessor();
    }

    void onStandbyReady(NodeId from, StandbyReady ready) {
        if (elector.role == QuorumRole.LEADER
                && from.equals(standby)
                && ready.term() == elector.term
                && ready.pledgeTerm() == standbyPledgeTerm) {
            standbyReady = true;
            reportSuccessor();
        }
    }

    /** Leader: tells the driver when the member that would take over at once (a ready standby) changes. */
    void reportSuccessor() {
        NodeId now = elector.role == QuorumRole.LEADER && standbyReady ? standby : null;
        if (!Objects.equals(now, reportedSuccessor)) {
            reportedSuccessor = now;
            ctx.successor(Optional.ofNullable(now));
        }
    }

    /** Leader: whether its standby reported a majority of pledges and still confirms its heartbeats. */
    boolean canTakeOver() {
        return standby != null && standbyReady && standbyConfirmsHeartbeats(ctx.nanoTime());
    }

    /** Leader: whether its standby confirmed a heartbeat round sent within half an election timeout. */
    private boolean standbyConfirmsHeartbeats(long now) {
        long confirmed = confirmations.confirmedAt(elector.indexOf(standby));
        return confirmed != Long.MIN_VALUE && now - confirmed <= elector.electionTimeoutNanos / 2;
    }
}
