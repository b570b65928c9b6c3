package io.bellwether.bully;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Ack;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.bully.BullyMessage.HeartbeatAck;
import io.bellwether.bully.BullyMessage.Ok;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.bully.BullyMessage.Resign;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bully elector (Garcia-Molina 1982, simple mode): the highest live id coordinates.
 *
 * <ul>
 *   <li>A member that starts asks who coordinates ({@link Query}); the coordinator answers with a heartbeat.
 *       Hearing none within the answer timeout T, or losing its coordinator (heartbeats missing, connection
 *       closed, resignation), it runs an election: ELECTION to every higher member, wait T for an OK; none →
 *       it is the highest live member and announces COORDINATOR with a new epoch; an OK → wait T' for the
 *       announcement, else start over.
 *   <li>A member that gets an ELECTION from a lower one answers OK and, unless it follows a live coordinator
 *       or is already electing, runs its own election. A coordinator answers it with OK and its announcement.
 *   <li>Epochs are {@code (counter, coordinator)} pairs encoded by {@link RankedEpoch}; a member adopts only
 *       strictly greater epochs. The counter is persisted (StoredState key {@value #COUNTER_KEY}) before the
 *       COORDINATOR that uses it leaves, so no epoch is issued twice; the adopted epoch is persisted too (key
 *       {@value #EPOCH_KEY}) so that it never moves back across restarts. {@link ElectorState#epoch()} is the
 *       encoded epoch: for a coordinator, its fencing token.
 *   <li>Pre-emption (configurable): a member that follows a lower coordinator elects itself once it has been
 *       up for the hold-down; before that it follows. A follower of a live coordinator ignores the greater
 *       epoch of a lower member that declared itself coordinator while cut off: the coordinator bullies that
 *       member instead, so a returning member does not make the group change leaders twice.
 *   <li>Validity: a coordinator's leadership is valid for {@link BullyConfig#leaderTimeout()} after each
 *       heartbeat round it sends; if its process stalls past that, it steps down and rejoins. Bully promises
 *       no exclusivity: under partitions every side elects its own coordinator.
 * </ul>
 *
 * <p>Not thread-safe; driven by one thread (see {@link Elector}).
 */
public final class BullyElector implements Elector {
    private static final Logger log = LoggerFactory.getLogger(BullyElector.class);

    /** StoredState key of the highest epoch counter this member has issued or adopted. */
    public static final String COUNTER_KEY = "counter";
    /** StoredState key of the epoch this member last adopted (encoded, see {@link RankedEpoch}). */
    public static final String EPOCH_KEY = Counters.EPOCH_KEY;

    enum Timer implements TimerKey {
        /** After (re)joining: the coordinator did not answer the query. */
        DISCOVERY,
        /** Electing: no higher member answered OK within T. */
        ANSWER,
        /** Got an OK: the COORDINATOR announcement did not come within T'. */
        COORDINATOR,
        /** Following: the coordinator's heartbeats stopped. */
        LEADER_TIMEOUT,
        /** Coordinating: time for the next heartbeat round. */
        HEARTBEAT,
        /** Coordinating: the leadership's validity may have lapsed. */
        VALIDITY,
        /** Following a lower coordinator: the hold-down is over, pre-empt it. */
        PREEMPT
    }

    private enum Phase {
        /** Following a coordinator, or waiting to hear of one. */
        IDLE,
        /** Sent ELECTION to the higher members, waiting for an OK. */
        ELECTING,
        /** Got an OK, waiting for the COORDINATOR announcement. */
        AWAITING_COORDINATOR,
        LEADING
    }

    private final BullyConfig config;
    private final ElectorContext ctx;
    private final NodeId self;
    private final List<NodeId> members;
    private final Map<NodeId, Integer> index = new HashMap<>();
    private final int selfRank;
    private final List<NodeId> higher;
    private final long answerNanos;
    private final long coordinatorTimeoutNanos;
    private final long heartbeatNanos;
    private final long leaderTimeoutNanos;
    private final long holdDownNanos;
    private final RecentMessageIds recent = new RecentMessageIds(128);
    /** Ids of this round's ELECTION messages: an OK counts only if it answers one of them. */
    private final Set<Long> electionIds = new HashSet<>();

    // Persisted.
    private long epoch;
    private long counter;

    // Volatile.
    private boolean running;
    private Phase phase = Phase.IDLE;
    private Role role = Role.DORMANT;
    private NodeId leader;
    private ElectorState announced = ElectorState.DORMANT;
    private long startedAt;
    private long validUntilNanos = Long.MIN_VALUE;
    private long nextMessageId;

    BullyElector(BullyConfig config, ElectorContext context) {
        this.config = config;
        this.ctx = context;
        this.self = context.self();
        this.members = List.copyOf(context.members());
        if (members.size() > RankedEpoch.MAX_MEMBERS) {
            throw new IllegalArgumentException("members = " + members.size()
                    + " is too many for the bully elector: allowed at most " + RankedEpoch.MAX_MEMBERS);
        }
        for (int i = 0; i < members.size(); i++) {
            index.put(members.get(i), i);
        }
        Integer me = index.get(self);
        if (me == null) {
            throw new IllegalArgumentException("this member " + self + " is not among the members " + members);
        }
        this.selfRank = me;
        this.higher = members.subList(selfRank + 1, members.size());
        this.answerNanos = config.answerTimeout().toNanos();
        this.coordinatorTimeoutNanos = config.coordinatorTimeout().toNanos();
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.leaderTimeoutNanos = config.leaderTimeout().toNanos();
        this.holdDownNanos = config.preemptionHoldDown().toNanos();
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
        // Message ids must not repeat across incarnations, or peers would drop a restarted member's messages
        // as duplicates: each incarnation draws its own range.
        nextMessageId = ctx.random().nextLong(1L << 62);
        startedAt = ctx.nanoTime();
        phase = Phase.IDLE;
        transition(Role.FOLLOWER, null, ChangeReason.STARTED);
        if (members.size() == 1) {
            becomeCoordinator();
        } else {
            rejoin();
        }
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        boolean wasLeading = phase == Phase.LEADING;
        long ledEpoch = epoch;
        // Revoke first, then tell the others, so that no one acts on the resignation while this member leads.
        transition(Role.DORMANT, null, ChangeReason.STOPPED);
        if (wasLeading) {
            broadcast(id -> new Resign(ledEpoch, id));
        }
        for (Timer t : Timer.values()) {
            ctx.cancel(t);
        }
        phase = Phase.IDLE;
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
                if (phase == Phase.IDLE && leader == null) {
                    startElection();
                }
            }
            case ANSWER -> {
                if (phase == Phase.ELECTING) {
                    becomeCoordinator();
                }
            }
            case COORDINATOR -> {
                if (phase == Phase.AWAITING_COORDINATOR) {
                    // The member that said OK did not announce (it may have crashed after answering): start over.
                    phase = Phase.IDLE;
                    startElection();
                }
            }
            case LEADER_TIMEOUT -> {
                if (phase == Phase.IDLE && leader != null) {
                    loseLeader(ChangeReason.LEADER_TIMEOUT);
                }
            }
            case HEARTBEAT -> {
                if (phase == Phase.LEADING) {
                    heartbeatRound();
                }
            }
            case VALIDITY -> {
                if (phase == Phase.LEADING) {
                    ctx.schedule(Timer.VALIDITY, Math.max(0, validUntilNanos - ctx.nanoTime()));
                }
            }
            case PREEMPT -> {
                if (phase == Phase.IDLE && leader != null && mayPreempt(leader)) {
                    log.debug("{}: pre-empting lower coordinator {}", self, leader);
                    startElection();
                }
            }
        }
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        if (!running || !(message instanceof BullyMessage m) || from.equals(self)) {
            return;
        }
        Integer fromRank = index.get(from);
        if (fromRank == null) {
            log.debug("{}: ignoring {} from {}: not a member", self, message, from);
            return;
        }
        if (!Counters.epochInRange(m.epoch())) {
            // Codecs refuse these already; this covers drivers that pass messages without encoding them.
            log.warn("{}: ignoring {} from {}: epoch counter out of range ({})", self, m, from, Counters.allowed());
            return;
        }
        if (!recent.firstTime(from, m.messageId())) {
            return;
        }
        checkValidity();
        // Every counter seen makes the next epoch this member issues greater than it.
        counter = Math.max(counter, RankedEpoch.counter(m.epoch()));
        if (m instanceof Election e) {
            onElection(from, fromRank, e);
        } else if (m instanceof Ok ok) {
            if (phase == Phase.ELECTING && electionIds.contains(ok.ackOf())) {
                phase = Phase.AWAITING_COORDINATOR;
                ctx.cancel(Timer.ANSWER);
                ctx.schedule(Timer.COORDINATOR, coordinatorTimeoutNanos);
            }
        } else if (m instanceof Coordinator c) {
            onLeaderMessage(from, fromRank, c.epoch());
            ctx.send(from, new Ack(epoch, nextId(), c.messageId()));
        } else if (m instanceof Heartbeat h) {
            onLeaderMessage(from, fromRank, h.epoch());
            ctx.send(from, new HeartbeatAck(epoch, nextId(), h.messageId()));
        } else if (m instanceof Query q) {
            ctx.send(from, new Ack(epoch, nextId(), q.messageId()));
            if (phase == Phase.LEADING) {
                ctx.send(from, new Heartbeat(epoch, nextId()));
            }
        } else if (m instanceof Resign r) {
            ctx.send(from, new Ack(epoch, nextId(), r.messageId()));
            if (phase == Phase.IDLE && from.equals(leader) && r.epoch() == epoch) {
                loseLeader(ChangeReason.LEADER_CEDED);
            }
        } else if (m instanceof HeartbeatAck a) {
            onAnswerEpoch(a.epoch());
        } else if (m instanceof Ack a) {
            onAnswerEpoch(a.epoch());
        }
    }

    @Override
    public void onPeerDisconnected(NodeId peer) {
        if (!running) {
            return;
        }
        checkValidity();
        if (phase == Phase.IDLE && peer.equals(leader)) {
            loseLeader(ChangeReason.LEADER_DISCONNECTED);
        }
    }

    // ---- election ----

    private void rejoin() {
        ctx.cancel(Timer.LEADER_TIMEOUT);
        broadcast(id -> new Query(epoch, id));
        ctx.schedule(Timer.DISCOVERY, answerNanos);
    }

    private void loseLeader(ChangeReason why) {
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.PREEMPT);
        transition(Role.FOLLOWER, null, why);
        startElection();
    }

    private void startElection() {
        if (phase == Phase.ELECTING || phase == Phase.AWAITING_COORDINATOR) {
            return;
        }
        ctx.cancel(Timer.DISCOVERY);
        ctx.cancel(Timer.LEADER_TIMEOUT);
        ctx.cancel(Timer.PREEMPT);
        if (higher.isEmpty()) {
            becomeCoordinator();
            return;
        }
        if (phase == Phase.LEADING) {
            ctx.cancel(Timer.HEARTBEAT);
            ctx.cancel(Timer.VALIDITY);
        }
        phase = Phase.ELECTING;
        electionIds.clear();
        transition(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        for (NodeId h : higher) {
            long id = nextId();
            electionIds.add(id);
            ctx.send(h, new Election(epoch, id));
        }
        ctx.schedule(Timer.ANSWER, answerNanos);
    }

    private void onElection(NodeId from, int fromRank, Election election) {
        if (fromRank > selfRank) {
            return; // elections go to higher members only
        }
        ctx.send(from, new Ok(epoch, nextId(), election.messageId()));
        switch (phase) {
            case LEADING -> {
                if (election.epoch() > epoch) {
                    // The sender adopted an epoch newer than ours (from a coordinator elected while we were cut
                    // off): it cannot adopt ours again, so this member wins a fresh one.
                    startElection();
                } else {
                    ctx.send(from, new Coordinator(epoch, nextId()));
                }
            }
            case IDLE -> {
                if (leader == null || mayPreempt(leader)) {
                    startElection();
                }
                // Following a live coordinator: it got the same ELECTION and answers with its announcement.
            }
            default -> {}
        }
    }

    private void becomeCoordinator() {
        if (!Counters.mayIssueEpochAbove(counter, self, log)) {
            return;
        }
        long newCounter = counter + 1;
        long newEpoch = RankedEpoch.of(newCounter, selfRank);
        // Durable before the COORDINATOR leaves: an epoch is never issued twice, even across restarts.
        ctx.persist(ctx.storedState().with(COUNTER_KEY, newCounter).with(EPOCH_KEY, newEpoch));
        counter = newCounter;
        epoch = newEpoch;
        for (Timer t : Timer.values()) {
            ctx.cancel(t);
        }
        phase = Phase.LEADING;
        validUntilNanos = ctx.nanoTime() + leaderTimeoutNanos;
        ctx.validUntil(validUntilNanos);
        transition(Role.LEADER, self, ChangeReason.ELECTED);
        broadcast(id -> new Coordinator(newEpoch, id));
        ctx.schedule(Timer.HEARTBEAT, heartbeatNanos);
        ctx.schedule(Timer.VALIDITY, leaderTimeoutNanos);
    }

    // ---- coordinating ----

    private void heartbeatRound() {
        validUntilNanos = ctx.nanoTime() + leaderTimeoutNanos;
        ctx.validUntil(validUntilNanos);
        long e = epoch;
        broadcast(id -> new Heartbeat(e, id));
        ctx.schedule(Timer.HEARTBEAT, heartbeatNanos);
        ctx.schedule(Timer.VALIDITY, leaderTimeoutNanos);
    }

    /** A coordinator whose validity lapsed (its process stalled) steps down and rejoins the group. */
    private void checkValidity() {
        if (phase == Phase.LEADING && ctx.nanoTime() >= validUntilNanos) {
            log.debug("{}: leadership at epoch {} lapsed; stepping down", self, RankedEpoch.toString(epoch));
            ctx.cancel(Timer.HEARTBEAT);
            ctx.cancel(Timer.VALIDITY);
            phase = Phase.IDLE;
            transition(Role.FOLLOWER, null, ChangeReason.LEASE_NOT_RENEWED);
            rejoin();
        }
    }

    /** An answer's epoch: a coordinator learns that a lower member leads a newer epoch, and bullies it. */
    private void onAnswerEpoch(long theirEpoch) {
        if (phase != Phase.LEADING || theirEpoch <= epoch) {
            return;
        }
        int rank = RankedEpoch.rank(theirEpoch);
        if (rank < members.size() && mayPreempt(members.get(rank))) {
            startElection();
        }
    }

    // ---- following ----

    /** A COORDINATOR or heartbeat from {@code from}, leading {@code theirEpoch}. */
    private void onLeaderMessage(NodeId from, int fromRank, long theirEpoch) {
        if (RankedEpoch.rank(theirEpoch) != fromRank || RankedEpoch.counter(theirEpoch) < 1) {
            log.debug("{}: ignoring leader message from {}: epoch {} does not name it", self, from, theirEpoch);
            return;
        }
        if (theirEpoch > epoch) {
            if (mayPreempt(from)) {
                startElection();
                return;
            }
            if (config.preemption() && phase == Phase.IDLE && leader != null && index.get(leader) > fromRank) {
                // Our live coordinator outranks the sender, which elected itself while cut off: it will bully
                // the sender; adopting the sender's epoch meanwhile would only add a leadership change.
                return;
            }
            adopt(from, theirEpoch);
        } else if (theirEpoch == epoch) {
            follow(from, ChangeReason.LEADER_DISCOVERED);
        }
        // A lower epoch is stale; the answer carries ours, which tells the sender.
    }

    private void adopt(NodeId coordinator, long newEpoch) {
        boolean wasLeading = phase == Phase.LEADING;
        long newCounter = Math.max(counter, RankedEpoch.counter(newEpoch));
        ctx.persist(ctx.storedState().with(COUNTER_KEY, newCounter).with(EPOCH_KEY, newEpoch));
        counter = newCounter;
        epoch = newEpoch;
        follow(coordinator, wasLeading ? ChangeReason.HIGHER_EPOCH : ChangeReason.LEADER_DISCOVERED);
    }

    private void follow(NodeId coordinator, ChangeReason why) {
        ctx.cancel(Timer.ANSWER);
        ctx.cancel(Timer.COORDINATOR);
        ctx.cancel(Timer.DISCOVERY);
        ctx.cancel(Timer.HEARTBEAT);
        ctx.cancel(Timer.VALIDITY);
        phase = Phase.IDLE;
        transition(Role.FOLLOWER, coordinator, why);
        ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
        if (config.preemption() && index.get(coordinator) < selfRank) {
            ctx.schedule(Timer.PREEMPT, Math.max(0, startedAt + holdDownNanos - ctx.nanoTime()));
        } else {
            ctx.cancel(Timer.PREEMPT);
        }
    }

    /** Whether this member takes over from {@code coordinator} now: it is lower and the hold-down is over. */
    private boolean mayPreempt(NodeId coordinator) {
        return config.preemption() && index.get(coordinator) < selfRank && ctx.nanoTime() - startedAt >= holdDownNanos;
    }

    // ---- helpers ----

    private long nextId() {
        return nextMessageId++;
    }

    private void broadcast(LongFunction<BullyMessage> message) {
        for (NodeId member : members) {
            if (!member.equals(self)) {
                ctx.send(member, message.apply(nextId()));
            }
        }
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
