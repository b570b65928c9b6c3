package io.bellwether.ring;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.RankedPeerElector;
import io.bellwether.elector.TimerKey;
import io.bellwether.ring.RingMessage.Ack;
import io.bellwether.ring.RingMessage.Coordinator;
import io.bellwether.ring.RingMessage.Election;
import io.bellwether.ring.RingMessage.ElectionId;
import io.bellwether.ring.RingMessage.Heartbeat;
import io.bellwether.ring.RingMessage.HeartbeatAck;
import io.bellwether.ring.RingMessage.Query;
import io.bellwether.ring.RingMessage.Resign;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring elector (Chang &amp; Roberts 1979 / LeLann 1977, id-accumulating variant). The ring is the members
 * sorted by id; each member's successor is the next one, wrapping around.
 *
 * <ul>
 *   <li>An election starts with {@code ids = [self]} sent to the successor. Each hop is acknowledged; without
 *       an acknowledgement within the hop timeout the hop is retried, then the successor is skipped for the
 *       next one (nobody left: the member is alone and leads itself).
 *   <li>A member that gets an ELECTION appends its id and forwards it, unless its id is already listed: then
 *       the election has gone round, and it ends it with a COORDINATOR naming {@code max(ids)} at a new epoch.
 *       Any listed member may end it, so an election outlives the crash of its originator.
 *   <li>A member forwards each election id at most once per kind (ELECTION, COORDINATOR): that is how an
 *       announcement leaves the ring once it has gone round. A member taking part in an election from a higher
 *       originator does not forward a lower originator's (Chang–Roberts suppression), so concurrent elections
 *       cost little more than one.
 *   <li>Epochs are {@code (counter, coordinator)} pairs encoded by {@link RankedEpoch}. An ELECTION carries the
 *       highest counter its members know; the member that ends it issues that plus one, persisting it (key
 *       {@value #COUNTER_KEY}) before the COORDINATOR leaves. Members adopt only strictly greater epochs and
 *       persist the adopted one (key {@value #EPOCH_KEY}).
 *   <li>The coordinator heartbeats every member; followers start an election when it falls silent. A member
 *       that starts asks who coordinates and rejoins; if it finds a coordinator lower than itself (it was not
 *       on the ring when that one was elected), it starts an election after the hold-down.
 *   <li>Validity: as for bully, a coordinator's leadership is valid for the follower timeout after each
 *       heartbeat round it sends. The ring promises no exclusivity under partitions.
 * </ul>
 *
 * <p>Not thread-safe; driven by one thread (see {@link Elector}).
 */
public final class RingElector extends RankedPeerElector<RingMessage> {
    private static final Logger log = LoggerFactory.getLogger(RingElector.class);

    /** StoredState key of the highest epoch counter this member has issued or adopted. */
    public static final String COUNTER_KEY = RankedPeerElector.COUNTER_KEY;
    /** StoredState key of the epoch this member last adopted (encoded, see {@link RankedEpoch}). */
    public static final String EPOCH_KEY = RankedPeerElector.EPOCH_KEY;

    /** How many election ids a member remembers per kind; far more than elections in flight at once. */
    private static final int PROCESSED_MEMORY = 1024;

    enum Timer implements TimerKey {
        /** After (re)joining: the coordinator did not answer the query. */
        DISCOVERY,
        /** A hop's acknowledgement is due (belongs to the hops in flight, not to a phase). */
        HOP,
        /** An election this member took part in has not produced a coordinator in time (not a phase's either). */
        ELECTION_DEADLINE,
        /** Following: the coordinator's heartbeats stopped. */
        LEADER_TIMEOUT,
        /** Coordinating: time for the next heartbeat round. */
        HEARTBEAT,
        /** Coordinating: the leadership's validity may have lapsed. */
        VALIDITY,
        /** Following a lower coordinator: the hold-down is over, start an election. */
        PREEMPT
    }

    /** Where this member is; each phase owns the timers named in its comment. */
    enum Phase {
        /** Following a coordinator, or waiting to hear of one (DISCOVERY, LEADER_TIMEOUT, PREEMPT). */
        IDLE,
        /** Its own election is under way (none). */
        CANDIDATE,
        /** Coordinating (HEARTBEAT, VALIDITY). */
        LEADING
    }

    /** The timers that belong to a phase: {@link #enter} cancels them. */
    private static final Timer[] PHASE_TIMERS = {
        Timer.DISCOVERY, Timer.LEADER_TIMEOUT, Timer.PREEMPT, Timer.HEARTBEAT, Timer.VALIDITY
    };

    /** One ELECTION or COORDINATOR on its way to a successor. */
    private static final class Hop {
        final RingMessage message;
        /** Which successor: 1 is the next member in the ring. */
        int offset = 1;

        int attempts;
        long deadline;

        Hop(RingMessage message) {
            this.message = message;
        }
    }

    private final RingConfig config;
    private final long hopNanos;
    private final long electionDeadlineNanos;
    private final List<Hop> hops = new ArrayList<>();
    private final Set<ElectionId> forwardedElections = bounded();
    private final Set<ElectionId> forwardedCoordinators = bounded();

    private Phase phase = Phase.IDLE;
    /** The highest originator of an election this member forwarded since it last adopted a result; or null. */
    private NodeId participatingOrigin;

    RingElector(RingConfig config, ElectorContext context) {
        super(
                context,
                "ring",
                RingMessage.class,
                log,
                config,
                true,
                new Timers(Timer.DISCOVERY, Timer.LEADER_TIMEOUT, Timer.HEARTBEAT, Timer.VALIDITY, Timer.PREEMPT));
        this.config = config;
        this.hopNanos = config.hopTimeout().toNanos();
        this.electionDeadlineNanos = config.electionDeadlineNanos(peers.size());
    }

    @Override
    protected void reset() {
        cancelAll(Timer.values());
        hops.clear();
        phase = Phase.IDLE;
    }

    @Override
    protected boolean leading() {
        return phase == Phase.LEADING;
    }

    @Override
    protected boolean idle() {
        return phase == Phase.IDLE;
    }

    @Override
    protected void enterIdle() {
        enter(Phase.IDLE);
    }

    @Override
    protected RingMessage heartbeat(long epoch, long messageId) {
        return new Heartbeat(epoch, messageId);
    }

    @Override
    protected RingMessage resign(long epoch, long messageId) {
        return new Resign(epoch, messageId);
    }

    /** A candidate's election may make it coordinator: it gives up its part (the ring carries the election on). */
    @Override
    protected boolean abandonCandidacy() {
        if (phase != Phase.CANDIDATE) {
            return false;
        }
        enter(Phase.IDLE);
        return true;
    }

    /**
     * The one transition between phases: cancels every timer a phase owns (the hop and election-deadline timers
     * belong to messages in flight and survive it). Callers arm the new phase's timers.
     */
    private void enter(Phase next) {
        cancelAll(PHASE_TIMERS);
        phase = next;
    }

    @Override
    protected void onOwnTimer(TimerKey timer) {
        if (timer == Timer.HOP) {
            retryHops();
        } else if (timer == Timer.ELECTION_DEADLINE) {
            participatingOrigin = null;
            if (phase != Phase.LEADING && leader == null) {
                log.debug("{}: no coordinator announced in time; electing again", self);
                enter(Phase.IDLE); // lets startElection run again
                startElection();
            }
        }
    }

    @Override
    protected boolean admissible(NodeId from, RingMessage m) {
        if (!Counters.epochInRange(m.epoch()) || (m instanceof Election e && !Counters.inRange(e.maxCounter()))) {
            log.warn("{}: ignoring {} from {}: a counter out of range ({})", self, m, from, Counters.allowed());
            return false;
        }
        return true;
    }

    @Override
    protected void beforeDuplicateCheck(NodeId from, RingMessage m) {
        if (m instanceof Election || m instanceof Coordinator) {
            // Acknowledge every copy: a retransmission means our acknowledgement was lost.
            ctx.send(from, new Ack(epoch, nextId(), m.messageId()));
        }
    }

    @Override
    protected void handle(NodeId from, int fromRank, RingMessage m) {
        if (m instanceof Election e) {
            onElection(e);
        } else if (m instanceof Coordinator c) {
            onCoordinator(c);
        } else if (m instanceof Ack a) {
            if (hops.removeIf(h -> h.message.messageId() == a.ackOf())) {
                armHopTimer();
            }
            onAnswerEpoch(a.epoch());
        } else if (m instanceof Heartbeat h) {
            onHeartbeat(from, fromRank, h.epoch());
            ctx.send(from, new HeartbeatAck(epoch, nextId(), h.messageId()));
        } else if (m instanceof HeartbeatAck a) {
            onAnswerEpoch(a.epoch());
        } else if (m instanceof Query q) {
            ctx.send(from, new Ack(epoch, nextId(), q.messageId()));
            if (phase == Phase.LEADING) {
                ctx.send(from, new Heartbeat(epoch, nextId()));
            }
        } else if (m instanceof Resign r) {
            ctx.send(from, new Ack(epoch, nextId(), r.messageId()));
            if (phase != Phase.LEADING && from.equals(leader) && r.epoch() == epoch) {
                loseLeader(ChangeReason.LEADER_CEDED);
            }
        }
    }

    // ---- elections ----

    @Override
    protected void rejoin() {
        enter(Phase.IDLE);
        broadcast(id -> new Query(epoch, id));
        ctx.schedule(Timer.DISCOVERY, 2 * hopNanos);
    }

    @Override
    protected void startElection() {
        if (heldOff()) {
            return; // resigned: no election before the hold-off is over
        }
        if (phase == Phase.CANDIDATE) {
            return; // our own election is under way
        }
        enter(Phase.CANDIDATE);
        ElectionId eid = new ElectionId(self, nextId());
        forwardedElections.add(eid);
        participatingOrigin = max(participatingOrigin, self);
        announce(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        ctx.schedule(Timer.ELECTION_DEADLINE, electionDeadlineNanos);
        send(new Election(epoch, nextId(), eid, counter, List.of(self)));
    }

    private void onElection(Election e) {
        if (!validIds(e.ids()) || !e.ids().contains(e.election().origin())) {
            log.debug("{}: ignoring malformed {}", self, e);
            return;
        }
        if (e.ids().contains(self)) {
            // It has gone round (the originator, or any listed member if the originator is gone): end it. Ending
            // sends the COORDINATOR, so it is guarded like forwarding one.
            if (!forwardedCoordinators.contains(e.election())) {
                endElection(e);
            }
            return;
        }
        if (!forwardedElections.add(e.election())) {
            return; // at most once per election id
        }
        if (participatingOrigin != null && e.election().origin().compareTo(participatingOrigin) < 0) {
            return; // Chang–Roberts: the higher originator's election will do
        }
        participatingOrigin = max(participatingOrigin, e.election().origin());
        List<NodeId> ids = new ArrayList<>(e.ids());
        if (!holdingOff()) {
            ids.add(self); // resigned: it carries the election without standing in it
        }
        ctx.schedule(Timer.ELECTION_DEADLINE, electionDeadlineNanos);
        send(new Election(epoch, nextId(), e.election(), Math.max(e.maxCounter(), counter), ids));
    }

    /** The election has gone round: announce the greatest listed member at an epoch above all theirs. */
    private void endElection(Election e) {
        finish(e.election(), e.ids(), Math.max(e.maxCounter(), counter));
    }

    private void finish(ElectionId eid, List<NodeId> listed, long maxCounter) {
        List<NodeId> ids = listed;
        if (holdingOff()) {
            // Resigned after it was listed: it ends the election for the others and does not stand in it.
            ids = listed.stream().filter(id -> !id.equals(self)).toList();
            if (ids.isEmpty()) {
                return;
            }
        }
        if (!Counters.mayIssueEpochAbove(maxCounter, self, log)) {
            return;
        }
        NodeId winner = Collections.max(ids);
        long newCounter = maxCounter + 1;
        long newEpoch = RankedEpoch.of(newCounter, peers.rankOf(winner));
        // Durable before the COORDINATOR leaves: an epoch is never issued twice, even across restarts.
        persistCounter(newCounter);
        forwardedCoordinators.add(eid);
        forwardedElections.add(eid);
        // The election is over: stop carrying it.
        hops.removeIf(h -> h.message instanceof Election e && e.election().equals(eid));
        adopt(winner, newEpoch);
        send(new Coordinator(newEpoch, nextId(), eid, winner, ids));
    }

    private void onCoordinator(Coordinator c) {
        Integer leaderRank = peers.rankOf(c.leader());
        if (!validIds(c.ids())
                || leaderRank == null
                || !c.leader().equals(Collections.max(c.ids()))
                || !RankedEpoch.names(c.epoch(), leaderRank)) {
            log.debug("{}: ignoring malformed {}", self, c);
            return;
        }
        if (!forwardedCoordinators.add(c.election())) {
            return; // it has gone round: this is how announcements leave the ring
        }
        if (c.epoch() < epoch) {
            return; // stale: a newer result is circulating or known
        }
        hops.removeIf(h -> h.message instanceof Election e && e.election().equals(c.election()));
        adopt(c.leader(), c.epoch());
        send(new Coordinator(c.epoch(), nextId(), c.election(), c.leader(), c.ids()));
    }

    // ---- hops ----

    private void send(RingMessage message) {
        Hop hop = new Hop(message);
        hops.add(hop);
        sendHop(hop);
    }

    private void sendHop(Hop hop) {
        if (hop.offset >= peers.size()) {
            hops.remove(hop);
            unreachable(hop);
            return;
        }
        NodeId target = peers.get((peers.selfRank() + hop.offset) % peers.size());
        hop.attempts++;
        hop.deadline = ctx.nanoTime() + hopNanos;
        ctx.send(target, hop.message);
        armHopTimer();
    }

    private void retryHops() {
        long now = ctx.nanoTime();
        for (Hop hop : new ArrayList<>(hops)) {
            if (hops.contains(hop) && hop.deadline <= now) {
                if (hop.attempts >= config.hopAttempts()) {
                    hop.offset++; // skip the unreachable successor
                    hop.attempts = 0;
                }
                sendHop(hop);
            }
        }
        armHopTimer();
    }

    private void armHopTimer() {
        long earliest = Long.MAX_VALUE;
        for (Hop hop : hops) {
            earliest = Math.min(earliest, hop.deadline);
        }
        if (earliest == Long.MAX_VALUE) {
            ctx.cancel(Timer.HOP);
        } else {
            ctx.schedule(Timer.HOP, Math.max(0, earliest - ctx.nanoTime()));
        }
    }

    /** No member answered: this one is alone, and an election it carries ends with itself. */
    private void unreachable(Hop hop) {
        if (hop.message instanceof Election e
                && !holdingOff()
                && phase != Phase.LEADING
                && !forwardedCoordinators.contains(e.election())) {
            log.debug("{}: no successor reachable for {}; leading alone", self, e.election());
            finish(e.election(), List.of(self), Math.max(e.maxCounter(), counter));
        }
    }

    // ---- coordinating and following ----

    /** Adopts {@code coordinator} at {@code newEpoch} if it is strictly greater (equal: re-follows it). */
    private void adopt(NodeId coordinator, long newEpoch) {
        if (newEpoch < epoch) {
            return;
        }
        if (newEpoch > epoch) {
            persistEpoch(Math.max(counter, RankedEpoch.counter(newEpoch)), newEpoch);
        }
        participatingOrigin = null;
        ctx.cancel(Timer.ELECTION_DEADLINE);
        ctx.cancel(Timer.DISCOVERY);
        if (coordinator.equals(self) && holdingOff()) {
            // Elected by an election that listed it before it resigned: it does not lead during its hold-off, and
            // tells those that adopted it to elect again.
            enter(Phase.IDLE);
            announce(Role.FOLLOWER, null, ChangeReason.RESIGNED);
            long declined = epoch;
            broadcast(id -> new Resign(declined, id));
            heldOff();
            return;
        }
        if (coordinator.equals(self)) {
            if (phase != Phase.LEADING) {
                enter(Phase.LEADING);
                renewValidity();
                announce(Role.LEADER, self, ChangeReason.ELECTED);
                heartbeatRound();
            } else if (!announced().equals(new ElectorState(Role.LEADER, epoch, Optional.of(self)))) {
                // Re-elected at a newer epoch while leading: a new leadership, a new token. Its validity is set once it
                // is announced: set before, it would extend the leadership that ends here, and the runtime would start
                // the new one with none and revoke it at once.
                announce(Role.LEADER, self, ChangeReason.ELECTED);
                renewValidity();
            }
            return;
        }
        boolean wasLeading = phase == Phase.LEADING;
        enter(Phase.IDLE);
        announce(Role.FOLLOWER, coordinator, wasLeading ? ChangeReason.HIGHER_EPOCH : ChangeReason.LEADER_DISCOVERED);
        ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
        if (peers.isLower(coordinator)) {
            ctx.schedule(Timer.PREEMPT, untilHoldDownEnds());
        }
    }

    private void onHeartbeat(NodeId from, int fromRank, long theirEpoch) {
        if (!RankedEpoch.names(theirEpoch, fromRank)) {
            return;
        }
        if (theirEpoch > epoch) {
            if (phase == Phase.LEADING && mayPreempt(from)) {
                startElection();
                return;
            }
            if (phase != Phase.LEADING && leader != null && peers.rankOf(leader) > fromRank) {
                // Our live coordinator outranks the sender, which elected itself while cut off; it will run an
                // election when it hears the sender. Adopting meanwhile would add a leadership change.
                return;
            }
            adopt(from, theirEpoch);
        } else if (theirEpoch == epoch && phase != Phase.LEADING) {
            if (from.equals(leader)) {
                ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
            } else {
                adopt(from, theirEpoch);
            }
        }
    }

    // ---- helpers ----

    private boolean validIds(List<NodeId> ids) {
        if (ids.isEmpty() || ids.size() > peers.size()) {
            return false;
        }
        Set<NodeId> distinct = new HashSet<>();
        for (NodeId id : ids) {
            if (!peers.contains(id) || !distinct.add(id)) {
                return false;
            }
        }
        return true;
    }

    private static NodeId max(NodeId a, NodeId b) {
        return a == null || b.compareTo(a) > 0 ? b : a;
    }

    private static Set<ElectionId> bounded() {
        return new LinkedHashSet<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public boolean add(ElectionId id) {
                boolean added = super.add(id);
                if (added && size() > PROCESSED_MEMORY) {
                    Iterator<ElectionId> oldest = iterator();
                    oldest.next();
                    oldest.remove();
                }
                return added;
            }
        };
    }
}
