package io.bellwether.elector;

import io.bellwether.NodeId;
import io.bellwether.Role;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * The peer electors whose coordinator leads a ranked epoch (bully, strict bully, ring; see {@link RankedEpoch}):
 * what they share beyond {@link PeerElector}.
 *
 * <ul>
 *   <li>Persisted state: the highest counter issued or adopted (StoredState key {@value #COUNTER_KEY}) and the
 *       adopted epoch (key {@value #EPOCH_KEY}), read at start and refused if out of range. Every counter seen in
 *       a message raises this member's counter (counter catch-up), so the next epoch it issues is above it.
 *   <li>The announced state: {@link #announce} publishes {@code (role, epoch, leader)} when it changes, and ends
 *       the validity of a leadership that ends.
 *   <li>Leading: the coordinator heartbeats every member and is valid for the leader timeout after each round;
 *       a coordinator whose validity lapsed (its process stalled) steps down and rejoins. A coordinator that
 *       learns of a newer epoch led by a lower member it may pre-empt calls an election.
 *   <li>Pre-emption: a member takes over from a lower coordinator once it has been up for the hold-down.
 * </ul>
 *
 * <p>Each elector keeps its own states and its one transition method, which cancels the timers of the state it
 * leaves; this base only announces roles.
 *
 * @param <M> the algorithm's message family
 */
public abstract class RankedPeerElector<M extends RankedMessage> extends PeerElector<M> {
    /** StoredState key of the highest epoch counter this member has issued or adopted. */
    public static final String COUNTER_KEY = "counter";
    /** StoredState key of the epoch this member last adopted (packed, see {@link RankedEpoch}). */
    public static final String EPOCH_KEY = Counters.EPOCH_KEY;

    /** How many message ids per sender are remembered to drop duplicates. */
    private static final int DEDUP_WINDOW = 128;

    /** How often a coordinator heartbeats. */
    protected final long heartbeatNanos;
    /** How long a follower waits for a silent coordinator, and a coordinator's validity after each round. */
    protected final long leaderTimeoutNanos;

    private final boolean preemption;
    private final long holdDownNanos;
    private final Timers timers;

    /** Persisted: the adopted epoch (packed). */
    protected long epoch;
    /** Persisted: the highest counter issued or adopted, raised by every counter seen. */
    protected long counter;

    /** The role last set by {@link #announce}. */
    protected Role role = Role.DORMANT;
    /** The leader last set by {@link #announce}; null if none. */
    protected NodeId leader;

    private ElectorState announced = ElectorState.DORMANT;
    private long startedAt;
    private long validUntilNanos = Long.MIN_VALUE;

    /**
     * The timers every ranked elector has, each a constant of the elector's own timer enum (their names appear in
     * histories and tests).
     *
     * @param discovery after (re)joining: no coordinator answered
     * @param leaderTimeout following: the coordinator's heartbeats stopped
     * @param heartbeat coordinating: time for the next heartbeat round
     * @param validity coordinating: the leadership's validity may have lapsed
     * @param preempt following a lower coordinator: the hold-down is over
     */
    public record Timers(
            TimerKey discovery, TimerKey leaderTimeout, TimerKey heartbeat, TimerKey validity, TimerKey preempt) {}

    /** @param preemption whether a member higher than its coordinator takes over after {@code holdDownNanos} */
    protected RankedPeerElector(
            ElectorContext ctx,
            String algorithm,
            Class<M> family,
            Logger log,
            long heartbeatNanos,
            long leaderTimeoutNanos,
            boolean preemption,
            long holdDownNanos,
            Timers timers) {
        super(ctx, PeerGroup.ranked(ctx, algorithm), family, DEDUP_WINDOW, log);
        this.heartbeatNanos = heartbeatNanos;
        this.leaderTimeoutNanos = leaderTimeoutNanos;
        this.preemption = preemption;
        this.holdDownNanos = holdDownNanos;
        this.timers = timers;
    }

    @Override
    public final ElectorState state() {
        return announced;
    }

    /** The adopted epoch (packed); for tests and observers. */
    public final long epoch() {
        return epoch;
    }

    @Override
    protected final void restore() {
        StoredState stored = ctx.storedState();
        epoch = stored.get(EPOCH_KEY, 0);
        counter = Math.max(
                Counters.checked("stored " + COUNTER_KEY, stored.get(COUNTER_KEY, 0)), RankedEpoch.counter(epoch));
        if (!Counters.epochInRange(epoch)) {
            throw new IllegalArgumentException(
                    "stored " + EPOCH_KEY + " " + epoch + " is out of range: its counter " + Counters.allowed());
        }
        startedAt = ctx.nanoTime();
    }

    /** Revokes leadership first, then tells the others, so that no one acts on the resignation while this leads. */
    @Override
    protected final void end() {
        boolean wasLeading = leading();
        long ledEpoch = epoch;
        announce(Role.DORMANT, null, ChangeReason.STOPPED);
        if (wasLeading) {
            broadcast(id -> resign(ledEpoch, id));
        }
        reset();
    }

    /** After stopping: cancels every timer and forgets the current state. */
    protected abstract void reset();

    /** Whether this member is the coordinator. */
    protected abstract boolean leading();

    /** Whether this member follows a coordinator or waits to hear of one (neither electing nor leading). */
    protected abstract boolean idle();

    /** The transition to the idle state: cancels the timers of the state it leaves. */
    protected abstract void enterIdle();

    /** Fires a timer other than the shared ones (see {@link Timers}). */
    protected abstract void onOwnTimer(TimerKey timer);

    /** Runs this algorithm's election (a no-op if one is under way). */
    protected abstract void startElection();

    /** (Re)joins the group: asks who coordinates. */
    protected abstract void rejoin();

    /** The algorithm's heartbeat. */
    protected abstract M heartbeat(long epoch, long messageId);

    /** The algorithm's resignation. */
    protected abstract M resign(long epoch, long messageId);

    /** Checks the validity first: a timer may be the first event after the process stalled. */
    @Override
    public final void onTimer(TimerKey key) {
        if (!running() || !timers.discovery().getClass().isInstance(key)) {
            return;
        }
        checkValidity();
        if (key == timers.discovery()) {
            if (idle() && leader == null) {
                startElection();
            }
        } else if (key == timers.leaderTimeout()) {
            if (idle() && leader != null) {
                loseLeader(ChangeReason.LEADER_TIMEOUT);
            }
        } else if (key == timers.heartbeat()) {
            if (leading()) {
                heartbeatRound();
            }
        } else if (key == timers.validity()) {
            if (leading()) {
                ctx.schedule(timers.validity(), Math.max(0, validUntilNanos - ctx.nanoTime()));
            }
        } else if (key == timers.preempt()) {
            if (idle() && leader != null && mayPreempt(leader)) {
                log.debug("{}: pre-empting lower coordinator {}", self, leader);
                startElection();
            }
        } else {
            onOwnTimer(key);
        }
    }

    /** A follower whose coordinator's connection closed elects; a subclass may do more. */
    @Override
    public void onPeerDisconnected(NodeId peer) {
        if (!running()) {
            return;
        }
        checkValidity();
        if (idle() && peer.equals(leader)) {
            loseLeader(ChangeReason.LEADER_DISCONNECTED);
        }
    }

    /** The coordinator is gone (silent, disconnected or resigned): elect. */
    protected final void loseLeader(ChangeReason why) {
        enterIdle();
        announce(Role.FOLLOWER, null, why);
        startElection();
    }

    @Override
    protected boolean admissible(NodeId from, M m) {
        if (!Counters.epochInRange(m.epoch())) {
            log.warn("{}: ignoring {} from {}: epoch counter out of range ({})", self, m, from, Counters.allowed());
            return false;
        }
        return true;
    }

    @Override
    protected final void receive(NodeId from, int fromRank, M m) {
        checkValidity();
        // Every counter seen makes the next epoch this member issues greater than it.
        counter = Math.max(counter, RankedEpoch.counter(m.epoch()));
        handle(from, fromRank, m);
    }

    /** Handles a message once its counter has been caught up with. */
    protected abstract void handle(NodeId from, int fromRank, M m);

    /** Persists and adopts {@code newCounter} and {@code newEpoch}: durable before anything that uses them leaves. */
    protected final void persistEpoch(long newCounter, long newEpoch) {
        ctx.persist(ctx.storedState().with(COUNTER_KEY, newCounter).with(EPOCH_KEY, newEpoch));
        counter = newCounter;
        epoch = newEpoch;
    }

    /** Persists and adopts {@code newCounter}, before an epoch that uses it leaves. */
    protected final void persistCounter(long newCounter) {
        ctx.persist(ctx.storedState().with(COUNTER_KEY, newCounter));
        counter = newCounter;
    }

    // ---- leading ----

    /** Renews a coordinator's validity for the leader timeout from now. */
    protected final void renewValidity() {
        validUntilNanos = ctx.nanoTime() + leaderTimeoutNanos;
        ctx.validUntil(validUntilNanos);
    }

    /** Arms the next heartbeat round and the validity check. */
    protected final void armLeaderTimers() {
        ctx.schedule(timers.heartbeat(), heartbeatNanos);
        ctx.schedule(timers.validity(), leaderTimeoutNanos);
    }

    /** A coordinator's round: renews its validity and heartbeats every member. */
    protected final void heartbeatRound() {
        renewValidity();
        long e = epoch;
        broadcast(id -> heartbeat(e, id));
        armLeaderTimers();
    }

    /** A coordinator whose validity lapsed (its process stalled) steps down and rejoins the group. */
    protected final void checkValidity() {
        if (leading() && ctx.nanoTime() >= validUntilNanos) {
            log.debug("{}: leadership at epoch {} lapsed; stepping down", self, RankedEpoch.toString(epoch));
            announce(Role.FOLLOWER, null, ChangeReason.LEASE_NOT_RENEWED);
            rejoin();
        }
    }

    /** An answer's epoch: a coordinator learns that a lower member leads a newer epoch, and bullies it. */
    protected final void onAnswerEpoch(long theirEpoch) {
        if (!leading() || theirEpoch <= epoch) {
            return;
        }
        int rank = RankedEpoch.rank(theirEpoch);
        if (rank < peers.size() && mayPreempt(peers.get(rank))) {
            startElection();
        }
    }

    // ---- pre-emption ----

    /** Whether this member takes over from {@code coordinator} now: it is lower and the hold-down is over. */
    protected final boolean mayPreempt(NodeId coordinator) {
        return preemption && peers.isLower(coordinator) && ctx.nanoTime() - startedAt >= holdDownNanos;
    }

    /** How long until the hold-down is over (0 if it is). */
    protected final long untilHoldDownEnds() {
        return Math.max(0, startedAt + holdDownNanos - ctx.nanoTime());
    }

    // ---- announcing ----

    /** Sets the role and leader and announces the state they make with the epoch, if it changed. */
    protected final void announce(Role newRole, NodeId newLeader, ChangeReason why) {
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

    /** The state last announced. */
    protected final ElectorState announced() {
        return announced;
    }
}
