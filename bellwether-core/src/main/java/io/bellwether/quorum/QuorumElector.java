package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.PeerGroup;
import io.bellwether.elector.TimerKey;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum elector: a Raft-style election without a log, with pre-vote ("scouting"), check-quorum,
 * sticky leaders, graceful cession and a leader validity that ends before any successor can be elected.
 * See {@code docs/quorum.md} for the rules and the safety argument; "rule N" in the comments of this package
 * is rule N of that document. This class keeps the lifecycle, the message dispatch, following (rules 1 to 3)
 * and the role transitions; the scouting and election rounds are in {@code ElectionRounds}, the leader's part in
 * {@code Leading}, the standby successor (rule 10) in {@code Standby}, and the validity bookkeeping they
 * share in {@code RoundConfirmations}.
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

    enum Timer implements TimerKey {
        /**
         * Leader: time to send the next heartbeat round. Coalesced: a round a few milliseconds late only shortens the
         * slack between the validity it renews and the watchdog's revocation lead.
         */
        HEARTBEAT(true),
        /** Follower: the leader has been silent for an election timeout. */
        LEADER_TIMEOUT(false),
        /** Follower without a leader: the random wait before scouting is over. */
        BACKOFF(false),
        /** Scout or candidate: the round took too long. */
        ROUND(false),
        /** Leader: validity may have run out (check-quorum). */
        VALIDITY(false),
        /** Leader handing over: the successor did not report a majority in time; cede anyway. */
        HANDOVER(false),
        /** Standby: time for the next round of pledges. Coalesced: a pledge renewed a little later is still held. */
        STANDBY(true);

        private final boolean coalesced;

        Timer(boolean coalesced) {
            this.coalesced = coalesced;
        }

        @Override
        public boolean coalesced() {
            return coalesced;
        }
    }

    final QuorumConfig config;
    final ElectorContext ctx;
    final NodeId self;
    final List<NodeId> members;
    private final Map<NodeId, Integer> index = new HashMap<>();
    final int selfIndex;
    final long electionTimeoutNanos;
    final RoundConfirmations confirmations;
    final Leading leadership;
    final ElectionRounds rounds;
    final Standby standby;

    // The fields without "private" are the state this elector's parts (QuorumPart) read, and write where a rule
    // of theirs moves it (a standby takes its pledged term, a lost leadership holds down, a successor remembers
    // whom it succeeds); the role and the leader change only through transition().

    // Persisted.
    long term;

    // Volatile, every role.
    private boolean running;
    /** Per member: a closing was reported and no connection since; only then may {@link #onPeerGone} act. */
    private final boolean[] closedSinceConnected;

    QuorumRole role = QuorumRole.DORMANT;
    NodeId leader;
    private ElectorState announced = ElectorState.DORMANT;
    /** Until this instant this member supports no candidate (rule 2: the support fence). */
    long supportFenceUntil;
    /** Whose heartbeat or proposal set the fence; null for the start-up fence, which no one can lift. */
    NodeId fenceSource;
    /** Last accepted Leader Sequence Number. */
    private long lsnTerm;

    private long lsnSequence;
    /** The leader this member lost last; it sits out the backoff ranking (see {@link #backoff()}). */
    NodeId lastLostLeader;
    /** A leader that lost its quorum does not campaign before this instant. */
    long holdDownUntil = Long.MIN_VALUE;
    /** A member that resigned does not try to lead before this instant ({@link #resign}); not persisted. */
    private long resignedUntil = Long.MIN_VALUE;

    QuorumElector(QuorumConfig config, ElectorContext context) {
        this.config = config;
        this.ctx = context;
        this.self = context.self();
        PeerGroup group = PeerGroup.of(context);
        this.members = group.members();
        index.putAll(group.ranks());
        this.selfIndex = group.selfRank();
        this.electionTimeoutNanos = config.electionTimeout().toNanos();
        this.closedSinceConnected = new boolean[members.size()];
        this.confirmations = new RoundConfirmations(config, members.size(), selfIndex);
        this.leadership = new Leading(this);
        this.rounds = new ElectionRounds(this);
        this.standby = new Standby(this);
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
    public void start() {
        if (running) {
            return;
        }
        running = true;
        term = Counters.checked("stored " + TERM_KEY, ctx.storedState().get(TERM_KEY, 0));
        standby.loadPledge();
        long now = ctx.nanoTime();
        // A restarted member may have acknowledged a leader's heartbeat just before it crashed and has
        // forgotten when: it supports no candidate for one election timeout, so that leader's validity,
        // which counted that acknowledgement, has ended before this member's support can elect a successor.
        supportFenceUntil = now + electionTimeoutNanos;
        fenceSource = null;
        transition(QuorumRole.FOLLOWER, null, ChangeReason.STARTED);
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
        if (!running || role != QuorumRole.LEADER) {
            return false;
        }
        return leadership.beginStopping();
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        if (role == QuorumRole.LEADER) {
            cede(QuorumRole.DORMANT, ChangeReason.STOPPED);
        } else {
            transition(QuorumRole.DORMANT, null, ChangeReason.STOPPED);
        }
        for (Timer t : Timer.values()) {
            ctx.cancel(t);
        }
        running = false;
    }

    /**
     * Gives up leadership and stays a member (rules 9 and 10 as for a graceful stop, then following): a leader with
     * a ready standby revokes and cedes to it at once; otherwise it prepares a successor (rule 9) and cedes when the
     * successor has its votes, or on the handover's deadline. Until {@code holdOffNanos} have passed this member
     * neither scouts nor proposes, takes no standby role and no handover, and ignores a cession that names it; it
     * still follows, acknowledges, pledges and votes.
     */
    @Override
    public void resign(long holdOffNanos) {
        if (!running) {
            return;
        }
        resignedUntil = ctx.nanoTime() + holdOffNanos;
        standby.resigned();
        switch (role) {
            case LEADER -> {
                if (!leadership.beginResigning()) {
                    resignNow();
                }
            }
            case SCOUT, CANDIDATE -> backToFollowing(ChangeReason.RESIGNED);
            default -> {}
        }
    }

    /**
     * Rule 11: hands leadership to {@code target}, a member of higher priority that has kept up for the hold-down,
     * by the path of a resignation without a hold-off: this member may lead again should {@code target} fail, and it
     * never takes leadership back from it by priority, since its own is lower.
     */
    void handOver(NodeId target, int targetPriority) {
        log.info(
                "{}: handing leadership of term {} to {}: its priority {} is above this member's {}",
                self,
                term,
                target,
                targetPriority,
                config.priority());
        if (!leadership.beginTransfer(target)) {
            resignNow();
        }
    }

    /** Whether this member resigned and its hold-off has not passed: it does not try to lead. */
    boolean holdingOff(long now) {
        return now < resignedUntil;
    }

    /**
     * The end of a prepared handover (rule 9.4 and its fallbacks): a stopping leader stops, a resigning one cedes
     * and stays.
     */
    void finishHandover() {
        if (leadership.resigning()) {
            resignNow();
        } else {
            stop();
        }
    }

    /** A leader resigns: revokes, cedes to its successor, and follows, waiting out its hold-off before scouting. */
    private void resignNow() {
        cede(QuorumRole.FOLLOWER, leadership.transferTo() != null ? ChangeReason.TRANSFERRED : ChangeReason.RESIGNED);
        ctx.cancel(Timer.HEARTBEAT);
        ctx.cancel(Timer.VALIDITY);
        ctx.cancel(Timer.HANDOVER);
        long now = ctx.nanoTime();
        // A hand-over to a member of higher priority (rule 11) has no hold-off: resignedUntil may be MIN_VALUE.
        ctx.schedule(Timer.BACKOFF, (holdingOff(now) ? resignedUntil - now : 0) + backoff());
    }

    /**
     * A leader lets go (rules 9.4 and 10.5): revokes first, by moving to {@code next}, then tells the others: by the
     * time they can act on the cession, this member has stopped acting as leader. The successor hears first: in a
     * prepared handover it leads on receipt.
     */
    private void cede(QuorumRole next, ChangeReason why) {
        NodeId handoverTo = leadership.handoverTo();
        Optional<NodeId> successor = handoverTo != null
                ? Optional.of(handoverTo)
                : Optional.ofNullable(leadership.transferTo())
                        .or(standby::named)
                        .or(leadership::bestSuccessor);
        // A ready standby takes over on the cession alone, and its first heartbeats tell the others: they need
        // no cession of their own, and handling one at the same moment would take the machine's cores from the
        // standby (rule 10.5). Should the standby not take over after all, its proposal names this member as
        // ceded, which voters still following this member take as the cession, and this member's connections
        // close when it exits.
        boolean standbyAlone = handoverTo == null && standby.canTakeOver() && successor.equals(standby.named());
        transition(next, null, why);
        LeadershipCession cession = new LeadershipCession(term, successor);
        successor.ifPresent(s -> ctx.send(s, cession));
        for (NodeId member : members) {
            if (!standbyAlone
                    && !member.equals(self)
                    && !successor.filter(member::equals).isPresent()) {
                ctx.send(member, cession);
            }
        }
    }

    @Override
    public void onTimer(TimerKey key) {
        if (!running || !(key instanceof Timer timer)) {
            return;
        }
        switch (timer) {
            case HEARTBEAT -> {
                if (role == QuorumRole.LEADER) {
                    leadership.sendHeartbeatRound();
                }
            }
            case LEADER_TIMEOUT -> {
                if (role == QuorumRole.FOLLOWER && leader != null) {
                    loseLeader(ChangeReason.LEADER_TIMEOUT);
                }
            }
            case BACKOFF -> {
                if (role == QuorumRole.FOLLOWER && leader == null) {
                    rounds.tryScouting();
                }
            }
            case ROUND -> {
                if (role == QuorumRole.SCOUT || role == QuorumRole.CANDIDATE) {
                    // Rules 4 and 5: a failed round leads back to scouting after a backoff, never to a term bump.
                    backToFollowing(ChangeReason.ROUND_FAILED);
                }
            }
            case VALIDITY -> {
                if (role == QuorumRole.LEADER) {
                    leadership.checkQuorum();
                }
            }
            case HANDOVER -> {
                if (role == QuorumRole.LEADER && leadership.handoverTo() != null) {
                    log.debug("{}: {} did not gather a majority in time; ceding anyway", self, leadership.handoverTo());
                    finishHandover();
                }
            }
            case STANDBY -> standby.onTimer();
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
        // The codec's type ids name each message once; the handlers of a role check the term themselves, since
        // what a higher term means differs between them (rules 1, 2 and 8).
        switch (QuorumCodec.INSTANCE.typeOf(m)) {
            case QuorumCodec.SCOUTING_REQUEST -> rounds.onScoutingRequest(from, (ScoutingRequest) m);
            case QuorumCodec.SCOUTING_RESPONSE -> rounds.onScoutingResponse(fromIndex, (ScoutingResponse) m);
            case QuorumCodec.ELECTION_PROPOSAL -> rounds.onElectionProposal(from, (ElectionProposal) m);
            case QuorumCodec.ELECTION_RESPONSE -> rounds.onElectionResponse(fromIndex, (ElectionResponse) m);
            case QuorumCodec.HEARTBEAT -> onHeartbeat(from, (Heartbeat) m);
            case QuorumCodec.HEARTBEAT_RESPONSE -> leadership.onHeartbeatResponse(fromIndex, (HeartbeatResponse) m);
            case QuorumCodec.LEADERSHIP_CESSION -> onCession(from, (LeadershipCession) m);
            case QuorumCodec.HANDOVER_REQUEST -> rounds.onHandoverRequest(from, (HandoverRequest) m);
            case QuorumCodec.HANDOVER_READY -> {
                if (role == QuorumRole.LEADER && from.equals(leadership.handoverTo()) && m.term() == term) {
                    finishHandover();
                }
            }
            case QuorumCodec.STANDBY_REQUEST -> standby.onStandbyRequest(from, (StandbyRequest) m);
            case QuorumCodec.STANDBY_ROUND -> standby.onStandbyRound(from, (StandbyRound) m);
            case QuorumCodec.STANDBY_CONFIRM -> standby.onStandbyConfirm(fromIndex, (StandbyConfirm) m);
            case QuorumCodec.STANDBY_READY -> standby.onStandbyReady(from, (StandbyReady) m);
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
     * lifts no fence (rule 2) and costs no leader (rule 3); {@link #onPeerGone} is the proof that does. Nor does
     * it cost the peer's confirmations: they stay protected by the peer's fence, which the closing does not lift,
     * so a connection that closes and is replaced at once (a dial tie) changes nothing.
     */
    @Override
    public void onPeerDisconnected(NodeId peer) {
        Integer peerIndex = index.get(peer);
        if (!running || peerIndex == null || peer.equals(self)) {
            return;
        }
        closedSinceConnected[peerIndex] = true;
        if (role == QuorumRole.LEADER) {
            leadership.onPeerDisconnected(peer, peerIndex);
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
        // Its confirmations no longer stand for a member that will confirm again (a restart raises the start-up
        // fence, so counting them would be safe): a leader without a live majority steps down now, not later.
        standby.onPeerGone(peer, peerIndex);
        switch (role) {
            case LEADER -> leadership.onPeerGone(peerIndex);
            case CANDIDATE -> rounds.onPeerGone(peer, peerIndex);
            case FOLLOWER -> {
                if (standby.onLeaderGone(peer)) {
                    return;
                }
                if (peer.equals(leader)) {
                    loseLeader(ChangeReason.LEADER_DISCONNECTED);
                }
            }
            default -> {}
        }
    }

    /** The member's index in {@link #members}. */
    int indexOf(NodeId member) {
        return index.get(member);
    }

    // ---- following ----

    private void onHeartbeat(NodeId from, Heartbeat heartbeat) {
        if (heartbeat.term() < term) {
            // Rule 6: tell a stale leader about the newer term so that it steps down.
            ctx.send(from, new HeartbeatResponse(term, heartbeat.sequence(), config.priority()));
            return;
        }
        if (heartbeat.term() == term) {
            if (role == QuorumRole.LEADER) {
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
        transition(QuorumRole.FOLLOWER, from, ChangeReason.LEADER_DISCOVERED);
        ctx.send(from, new HeartbeatResponse(heartbeat.term(), heartbeat.sequence(), config.priority()));
    }

    private void onCession(NodeId from, LeadershipCession cession) {
        if (standby.onCession(from, cession) || rounds.onCession(from, cession)) {
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
        if (role == QuorumRole.FOLLOWER && (leader == null || leader.equals(from))) {
            boolean successor = cession.successor().filter(self::equals).isPresent();
            loseLeader(ChangeReason.LEADER_CEDED);
            long now = ctx.nanoTime();
            if (successor && now >= supportFenceUntil && !holdingOff(now) && Counters.inRange(nextTerm())) {
                // Named by the leader that ceded: propose at once, without scouting. Voters still following
                // that leader take the proposal as its cession (see ElectionRounds#onElectionProposal), so the
                // handover takes one round trip whichever of the two messages reaches them first.
                rounds.proposeNow(Optional.of(from));
            }
        }
    }

    void loseLeader(ChangeReason why) {
        // Rule 3: forget the leader before the random wait, so that a peer's scouting is not refused on
        // account of a leader that is gone (etcd-io/etcd#8334).
        lastLostLeader = leader;
        boolean lostAsStandby = standby.noteLostLeader(leader);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        transition(QuorumRole.FOLLOWER, null, why);
        long wait = backoff();
        if (lostAsStandby && why == ChangeReason.LEADER_DISCONNECTED) {
            // A standby that could not take over at once (not ready) and whose leader is proven gone: the others
            // learn of the departure from the same closing, their slots start a whole slot later, and their pledges
            // support only this member, so it has no one to keep apart from and skips backoff-min.
            wait -= config.backoffMin().toNanos();
        }
        ctx.schedule(Timer.BACKOFF, wait);
    }

    void backToFollowing(ChangeReason why) {
        ctx.cancel(Timer.ROUND);
        transition(QuorumRole.FOLLOWER, null, why);
        ctx.schedule(Timer.BACKOFF, backoff());
    }

    /** Rule 1: a higher term wins; a leader steps down (revoking first) before the term moves on. */
    private void enterTerm(long newTerm) {
        if (role == QuorumRole.LEADER) {
            leadership.stepDown(ChangeReason.HIGHER_EPOCH);
            if (!running) {
                return; // it was handing over and has stopped instead
            }
        }
        persistTerm(newTerm);
    }

    void adoptHigherTerm(long newTerm) {
        enterTerm(newTerm);
        if (!running) {
            return; // a leader that was handing over has stopped
        }
        ctx.cancel(Timer.ROUND);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        transition(QuorumRole.FOLLOWER, null, ChangeReason.HIGHER_EPOCH);
        ctx.schedule(Timer.BACKOFF, backoff());
    }

    // ---- helpers ----

    /** Rules 2 and 10.3: whether this member may support {@code candidate} for {@code candidateTerm} now. */
    boolean canSupportCandidate(NodeId candidate, long candidateTerm, long now) {
        return role != QuorumRole.LEADER
                && leader == null
                && now >= supportFenceUntil
                && standby.pledgeAllows(candidate, candidateTerm, now);
    }

    void termsExhausted() {
        log.error(
                "{}: cannot propose term {}: terms are at their limit ({}); only 2^47 elections or a peer sending"
                        + " such a term on purpose reach it",
                self,
                nextTerm(),
                Counters.allowed());
    }

    /** The term a new candidacy of this member proposes: above its own and above every term it pledged. */
    long nextTerm() {
        return Math.max(term, standby.pledgeTerm()) + 1;
    }

    void setFence(long now, NodeId source) {
        supportFenceUntil = now + electionTimeoutNanos;
        fenceSource = source;
    }

    void liftFence() {
        supportFenceUntil = Long.MIN_VALUE;
        fenceSource = null;
    }

    void persistTerm(long newTerm) {
        // Durable first; if this throws, nothing in memory has changed.
        ctx.persist(ctx.storedState().with(TERM_KEY, newTerm));
        term = newTerm;
    }

    void transition(QuorumRole newRole, NodeId newLeader, ChangeReason why) {
        leadership.onTransition(role, newRole);
        rounds.onTransition(newRole);
        standby.onTransition(newRole, newLeader);
        role = newRole;
        leader = newLeader;
        standby.reportSuccessor();
        ElectorState next = new ElectorState(newRole.shown(), term, Optional.ofNullable(newLeader));
        if (!next.equals(announced)) {
            announced = next;
            ctx.announce(next, why);
        }
    }

    /**
     * The wait before scouting. The members that may campaign (all but the leader last lost) take turns: in
     * id order, each gets a slot of {@code (backoff-max − backoff-min) / count} and waits a random time within
     * the first half of its slot. Two scouts then rarely start within one round of each other — a split vote
     * costs a whole proposal timeout — while a member that cannot win only delays the next by one slot. When the
     * configuration knows every member's priority ({@link QuorumConfig#memberPriorities()}), the turns go by
     * priority, highest first, then by id, so that the member the group prefers usually wins the first election.
     */
    long backoff() {
        long min = config.backoffMin().toNanos();
        long max = config.backoffMax().toNanos();
        if (max == min) {
            return min;
        }
        int slots = 0;
        int rank = 0;
        // Without the whole map every member counts alike (its own priority alone would rank it wrongly).
        Map<NodeId, Integer> priorities = config.memberPriorities();
        int own = priorities.getOrDefault(self, 0);
        for (NodeId member : members) {
            if (!member.equals(lastLostLeader)) {
                slots++;
                int theirs = priorities.getOrDefault(member, 0);
                if (theirs > own || (theirs == own && member.compareTo(self) < 0)) {
                    rank++;
                }
            }
        }
        if (standby.lostAsStandby()) {
            rank = 0; // the lost leader's standby goes first: the others' pledges fence for it alone
        }
        long slot = (max - min) / Math.max(1, slots);
        return min + rank * slot + ctx.random().nextLong(slot / 2 + 1);
    }
}
