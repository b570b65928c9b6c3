package io.bellwether.ring;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.RecentMessageIds;
import io.bellwether.elector.StoredState;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
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
public final class RingElector implements Elector {
    private static final Logger log = LoggerFactory.getLogger(RingElector.class);

    /** StoredState key of the highest epoch counter this member has issued or adopted. */
    public static final String COUNTER_KEY = "counter";
    /** StoredState key of the epoch this member last adopted (encoded, see {@link RankedEpoch}). */
    public static final String EPOCH_KEY = Counters.EPOCH_KEY;

    /** How many election ids a member remembers per kind; far more than elections in flight at once. */
    private static final int PROCESSED_MEMORY = 1024;

    enum Timer implements TimerKey {
        /** After (re)joining: the coordinator did not answer the query. */
        DISCOVERY,
        /** A hop's acknowledgement is due. */
        HOP,
        /** An election this member took part in has not produced a coordinator in time. */
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
    private final ElectorContext ctx;
    private final NodeId self;
    private final List<NodeId> members;
    private final Map<NodeId, Integer> index = new HashMap<>();
    private final int selfRank;
    private final long hopNanos;
    private final long heartbeatNanos;
    private final long leaderTimeoutNanos;
    private final long holdDownNanos;
    private final long electionDeadlineNanos;
    private final RecentMessageIds recent = new RecentMessageIds(128);
    private final List<Hop> hops = new ArrayList<>();
    private final Set<ElectionId> forwardedElections = bounded();
    private final Set<ElectionId> forwardedCoordinators = bounded();

    // Persisted.
    private long epoch;
    private long counter;

    // Volatile.
    private boolean running;
    private boolean leading;
    private Role role = Role.DORMANT;
    private NodeId leader;
    private ElectorState announced = ElectorState.DORMANT;
    /** The highest originator of an election this member forwarded since it last adopted a result; or null. */
    private NodeId participatingOrigin;

    private long startedAt;
    private long validUntilNanos = Long.MIN_VALUE;
    private long nextMessageId;

    RingElector(RingConfig config, ElectorContext context) {
        this.config = config;
        this.ctx = context;
        this.self = context.self();
        this.members = List.copyOf(context.members());
        if (members.size() > RankedEpoch.MAX_MEMBERS) {
            throw new IllegalArgumentException("members = " + members.size()
                    + " is too many for the ring elector: allowed at most " + RankedEpoch.MAX_MEMBERS);
        }
        for (int i = 0; i < members.size(); i++) {
            index.put(members.get(i), i);
        }
        Integer me = index.get(self);
        if (me == null) {
            throw new IllegalArgumentException("this member " + self + " is not among the members " + members);
        }
        this.selfRank = me;
        this.hopNanos = config.hopTimeout().toNanos();
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.leaderTimeoutNanos = config.leaderTimeout().toNanos();
        this.holdDownNanos = config.preemptionHoldDown().toNanos();
        this.electionDeadlineNanos = config.electionDeadlineNanos(members.size());
    }

    @Override
    public void start() {
        if (running) {
            return;
        }
        running = true;
        StoredState stored = ctx.storedState();
        epoch = stored.get(EPOCH_KEY, 0);
        counter = Math.max(
                Counters.checked("stored " + COUNTER_KEY, stored.get(COUNTER_KEY, 0)), RankedEpoch.counter(epoch));
        if (!Counters.epochInRange(epoch)) {
            throw new IllegalArgumentException(
                    "stored " + EPOCH_KEY + " " + epoch + " is out of range: its counter " + Counters.allowed());
        }
        // Message and election ids must not repeat across incarnations, or peers would drop a restarted
        // member's messages as duplicates: each incarnation draws its own range.
        nextMessageId = ctx.random().nextLong(1L << 62);
        startedAt = ctx.nanoTime();
        transition(Role.FOLLOWER, null, ChangeReason.STARTED);
        if (members.size() == 1) {
            startElection();
        } else {
            rejoin();
        }
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        boolean wasLeading = leading;
        long ledEpoch = epoch;
        leading = false;
        transition(Role.DORMANT, null, ChangeReason.STOPPED);
        if (wasLeading) {
            broadcast(id -> new Resign(ledEpoch, id));
        }
        for (Timer t : Timer.values()) {
            ctx.cancel(t);
        }
        hops.clear();
        running = false;
    }

    @Override
    public ElectorState state() {
        return announced;
    }

    /** The adopted epoch (encoded); for tests and observers. */
    public long epoch() {
        return epoch;
    }

    @Override
    public void onTimer(TimerKey key) {
        if (!running || !(key instanceof Timer timer)) {
            return;
        }
        checkValidity();
        switch (timer) {
            case DISCOVERY -> {
                if (!leading && leader == null && role != Role.CANDIDATE) {
                    startElection();
                }
            }
            case HOP -> retryHops();
            case ELECTION_DEADLINE -> {
                participatingOrigin = null;
                if (!leading && leader == null) {
                    log.debug("{}: no coordinator announced in time; electing again", self);
                    role = Role.FOLLOWER; // lets startElection run again
                    startElection();
                }
            }
            case LEADER_TIMEOUT -> {
                if (!leading && leader != null) {
                    loseLeader(ChangeReason.LEADER_TIMEOUT);
                }
            }
            case HEARTBEAT -> {
                if (leading) {
                    heartbeatRound();
                }
            }
            case VALIDITY -> {
                if (leading) {
                    ctx.schedule(Timer.VALIDITY, Math.max(0, validUntilNanos - ctx.nanoTime()));
                }
            }
            case PREEMPT -> {
                if (!leading && leader != null && mayPreempt(leader)) {
                    log.debug("{}: following lower coordinator {}; electing", self, leader);
                    startElection();
                }
            }
        }
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        if (!running || !(message instanceof RingMessage m) || from.equals(self)) {
            return;
        }
        Integer fromRank = index.get(from);
        if (fromRank == null) {
            log.debug("{}: ignoring {} from {}: not a member", self, message, from);
            return;
        }
        if (!Counters.epochInRange(m.epoch()) || (m instanceof Election e && !Counters.inRange(e.maxCounter()))) {
            // Codecs refuse these already; this covers drivers that pass messages without encoding them.
            log.warn("{}: ignoring {} from {}: a counter out of range ({})", self, m, from, Counters.allowed());
            return;
        }
        if (m instanceof Election || m instanceof Coordinator) {
            // Acknowledge every copy: a retransmission means our acknowledgement was lost.
            ctx.send(from, new Ack(epoch, nextId(), m.messageId()));
        }
        if (!recent.firstTime(from, m.messageId())) {
            return;
        }
        checkValidity();
        counter = Math.max(counter, RankedEpoch.counter(m.epoch()));
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
            if (leading) {
                ctx.send(from, new Heartbeat(epoch, nextId()));
            }
        } else if (m instanceof Resign r) {
            ctx.send(from, new Ack(epoch, nextId(), r.messageId()));
            if (!leading && from.equals(leader) && r.epoch() == epoch) {
                loseLeader(ChangeReason.LEADER_CEDED);
            }
        }
    }

    @Override
    public void onPeerDisconnected(NodeId peer) {
        if (!running) {
            return;
        }
        checkValidity();
        if (!leading && peer.equals(leader)) {
            loseLeader(ChangeReason.LEADER_DISCONNECTED);
        }
    }

    // ---- elections ----

    private void rejoin() {
        ctx.cancel(Timer.LEADER_TIMEOUT);
        broadcast(id -> new Query(epoch, id));
        ctx.schedule(Timer.DISCOVERY, 2 * hopNanos);
    }

    private void loseLeader(ChangeReason why) {
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.PREEMPT);
        transition(Role.FOLLOWER, null, why);
        startElection();
    }

    private void startElection() {
        if (role == Role.CANDIDATE) {
            return; // our own election is under way
        }
        ctx.cancel(Timer.DISCOVERY);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.PREEMPT);
        stopLeading();
        ElectionId eid = new ElectionId(self, nextId());
        forwardedElections.add(eid);
        participatingOrigin = max(participatingOrigin, self);
        transition(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
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
        ids.add(self);
        ctx.schedule(Timer.ELECTION_DEADLINE, electionDeadlineNanos);
        send(new Election(epoch, nextId(), e.election(), Math.max(e.maxCounter(), counter), ids));
    }

    /** The election has gone round: announce the greatest listed member at an epoch above all theirs. */
    private void endElection(Election e) {
        finish(e.election(), e.ids(), Math.max(e.maxCounter(), counter));
    }

    private void finish(ElectionId eid, List<NodeId> ids, long maxCounter) {
        if (!Counters.mayIssueEpochAbove(maxCounter, self, log)) {
            return;
        }
        NodeId winner = Collections.max(ids);
        long newCounter = maxCounter + 1;
        long newEpoch = RankedEpoch.of(newCounter, index.get(winner));
        // Durable before the COORDINATOR leaves: an epoch is never issued twice, even across restarts.
        ctx.persist(ctx.storedState().with(COUNTER_KEY, newCounter));
        counter = newCounter;
        forwardedCoordinators.add(eid);
        forwardedElections.add(eid);
        // The election is over: stop carrying it.
        hops.removeIf(h -> h.message instanceof Election e && e.election().equals(eid));
        adopt(winner, newEpoch);
        send(new Coordinator(newEpoch, nextId(), eid, winner, ids));
    }

    private void onCoordinator(Coordinator c) {
        Integer leaderRank = index.get(c.leader());
        if (!validIds(c.ids())
                || leaderRank == null
                || !c.leader().equals(Collections.max(c.ids()))
                || RankedEpoch.rank(c.epoch()) != leaderRank
                || RankedEpoch.counter(c.epoch()) < 1) {
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
        if (hop.offset >= members.size()) {
            hops.remove(hop);
            unreachable(hop);
            return;
        }
        NodeId target = members.get((selfRank + hop.offset) % members.size());
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
        if (hop.message instanceof Election e && !leading && !forwardedCoordinators.contains(e.election())) {
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
            long newCounter = Math.max(counter, RankedEpoch.counter(newEpoch));
            ctx.persist(ctx.storedState().with(COUNTER_KEY, newCounter).with(EPOCH_KEY, newEpoch));
            counter = newCounter;
            epoch = newEpoch;
        }
        participatingOrigin = null;
        ctx.cancel(Timer.ELECTION_DEADLINE);
        ctx.cancel(Timer.DISCOVERY);
        if (coordinator.equals(self)) {
            if (!leading) {
                leading = true;
                ctx.cancel(Timer.LEADER_TIMEOUT);
                ctx.cancel(Timer.PREEMPT);
                validUntilNanos = ctx.nanoTime() + leaderTimeoutNanos;
                ctx.validUntil(validUntilNanos);
                transition(Role.LEADER, self, ChangeReason.ELECTED);
                heartbeatRound();
            } else if (!announced.equals(new ElectorState(Role.LEADER, epoch, Optional.of(self)))) {
                // Re-elected at a newer epoch while leading: a new leadership, a new token.
                transition(Role.LEADER, self, ChangeReason.ELECTED);
            }
            return;
        }
        boolean wasLeading = leading;
        stopLeading();
        transition(Role.FOLLOWER, coordinator, wasLeading ? ChangeReason.HIGHER_EPOCH : ChangeReason.LEADER_DISCOVERED);
        ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
        if (index.get(coordinator) < selfRank) {
            ctx.schedule(Timer.PREEMPT, Math.max(0, startedAt + holdDownNanos - ctx.nanoTime()));
        } else {
            ctx.cancel(Timer.PREEMPT);
        }
    }

    private void onHeartbeat(NodeId from, int fromRank, long theirEpoch) {
        if (RankedEpoch.rank(theirEpoch) != fromRank || RankedEpoch.counter(theirEpoch) < 1) {
            return;
        }
        if (theirEpoch > epoch) {
            if (leading && mayPreempt(from)) {
                startElection();
                return;
            }
            if (!leading && leader != null && index.get(leader) > fromRank) {
                // Our live coordinator outranks the sender, which elected itself while cut off; it will run an
                // election when it hears the sender. Adopting meanwhile would add a leadership change.
                return;
            }
            adopt(from, theirEpoch);
        } else if (theirEpoch == epoch && !leading) {
            if (from.equals(leader)) {
                ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
            } else {
                adopt(from, theirEpoch);
            }
        }
    }

    /** An answer's epoch: a coordinator learns that a lower member leads a newer epoch, and calls an election. */
    private void onAnswerEpoch(long theirEpoch) {
        if (!leading || theirEpoch <= epoch) {
            return;
        }
        int rank = RankedEpoch.rank(theirEpoch);
        if (rank < members.size() && mayPreempt(members.get(rank))) {
            startElection();
        }
    }

    private void heartbeatRound() {
        validUntilNanos = ctx.nanoTime() + leaderTimeoutNanos;
        ctx.validUntil(validUntilNanos);
        long e = epoch;
        broadcast(id -> new Heartbeat(e, id));
        ctx.schedule(Timer.HEARTBEAT, heartbeatNanos);
        ctx.schedule(Timer.VALIDITY, leaderTimeoutNanos);
    }

    private void checkValidity() {
        if (leading && ctx.nanoTime() >= validUntilNanos) {
            log.debug("{}: leadership at epoch {} lapsed; stepping down", self, RankedEpoch.toString(epoch));
            stopLeading();
            transition(Role.FOLLOWER, null, ChangeReason.LEASE_NOT_RENEWED);
            rejoin();
        }
    }

    private void stopLeading() {
        if (leading) {
            leading = false;
            ctx.cancel(Timer.HEARTBEAT);
            ctx.cancel(Timer.VALIDITY);
        }
    }

    private boolean mayPreempt(NodeId coordinator) {
        return index.get(coordinator) < selfRank && ctx.nanoTime() - startedAt >= holdDownNanos;
    }

    // ---- helpers ----

    private boolean validIds(List<NodeId> ids) {
        if (ids.isEmpty() || ids.size() > members.size()) {
            return false;
        }
        Set<NodeId> distinct = new HashSet<>();
        for (NodeId id : ids) {
            if (!index.containsKey(id) || !distinct.add(id)) {
                return false;
            }
        }
        return true;
    }

    private static NodeId max(NodeId a, NodeId b) {
        return a == null || b.compareTo(a) > 0 ? b : a;
    }

    private long nextId() {
        return nextMessageId++;
    }

    private void broadcast(LongFunction<RingMessage> message) {
        for (NodeId member : members) {
            if (!member.equals(self)) {
                ctx.send(member, message.apply(nextId()));
            }
        }
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

    private void transition(Role newRole, NodeId newLeader, ChangeReason why) {
        if (role == Role.LEADER && newRole != Role.LEADER) {
            validUntilNanos = Long.MIN_VALUE;
        }
        role = newRole;
        leader = newLeader;
        ElectorState next = new ElectorState(newRole, epoch, Optional.ofNullable(newLeader));
        if (!next.equals(announced)) {
            if (newRole != announced.role()) {
                log.debug(
                        "{}: {} -> {} at epoch {} ({})",
                        self,
                        announced.role(),
                        newRole,
                        RankedEpoch.toString(epoch),
                        why);
            }
            announced = next;
            ctx.announce(next, why);
        }
    }
}
