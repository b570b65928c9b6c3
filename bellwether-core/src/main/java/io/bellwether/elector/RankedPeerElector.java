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
    /** A member that resigned does not try to lead before this instant ({@link #resign}); not persisted. */
    private long resignedUntil = Long.MIN_VALUE;

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

    /**
     * @param config the heartbeat interval, leader timeout and pre-emption hold-down
     * @param preemption whether a member higher than its coordinator takes over once the hold-down is over
     */
    protected RankedPeerElector(
            ElectorContext ctx,
            String algorithm,
            Class<M> family,
            Logger log,
            RankedConfig config,
            boolean preemption,
            Timers timers) {
        super(ctx, PeerGroup.ranked(ctx, algorithm, config.memberPriorities()), family, DEDUP_WINDOW, log);
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.leaderTimeoutNanos = config.leaderTimeout().toNanos();
        this.preemption = preemption;
        this.holdDownNanos = config.preemptionHoldDown().toNanos();
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

    /**
     * Starts as a follower that knows of no coordinator: a lone member elects itself at once (its election has no
     * one to ask), any other asks the group who coordinates.
     */
    @Override
    protected final void begin() {
        announce(Role.FOLLOWER, null, ChangeReason.STARTED);
        if (peers.size() == 1) {
            startElection();
        } else {
            rejoin();
        }
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

    /**
     * Gives up leadership and stays a member: a coordinator announces FOLLOWER ({@link ChangeReason#RESIGNED}) first,
     * then sends its resignation to every member, which elects the highest of the others (this member does not
     * answer elections or claim meanwhile). A member in an election of its own that could make it coordinator gives
     * it up. Until {@code holdOffNanos} have passed this member starts no election, pre-empts nobody and does not
     * lead; it follows the coordinator the others elect. After the hold-off, pre-emption (when configured) lets it
     * take over again from a lower coordinator, as the highest live id does.
     */
    @Override
    public final void resign(long holdOffNanos) {
        if (!running()) {
            return;
        }
        checkValidity();
        resignedUntil = ctx.nanoTime() + holdOffNanos;
        if (leading()) {
            long ledEpoch = epoch;
            enterIdle();
            // Revoke first, then tell the others: no one acts on the resignation while this member leads.
            announce(Role.FOLLOWER, null, ChangeReason.RESIGNED);
            broadcast(id -> resign(ledEpoch, id));
            heldOff();
        } else if (abandonCandidacy()) {
            announce(Role.FOLLOWER, null, ChangeReason.RESIGNED);
            heldOff();
        }
    }

    /**
     * On {@link #resign} of a member that does not lead: gives up, by moving to the idle state, an election of its
     * own that could make it coordinator. Returns whether it did.
     */
    protected abstract boolean abandonCandidacy();

    /** Whether this member resigned and its hold-off has not passed: it does not try to lead. */
    protected final boolean holdingOff() {
        return ctx.nanoTime() < resignedUntil;
    }

    /**
     * Called where an election would start: during a hold-off, arms the discovery timer for the hold-off's end (an
     * idle member without a coordinator then elects) and returns true; otherwise returns false.
     */
    protected final boolean heldOff() {
        if (!holdingOff()) {
            return false;
        }
        ctx.schedule(timers.discovery(), resignedUntil - ctx.nanoTime());
        return true;
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
            } else if (idle() && leader != null && preemption && peers.isLower(leader)) {
                // Fired at the edge of the hold-down or of a resignation's hold-off: try again once both are over.
                ctx.schedule(timers.preempt(), Math.max(1, untilHoldDownEnds()));
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

    /**
     * Whether this member takes over from {@code coordinator} now: it is lower, the hold-down is over and this member
     * is not holding off after a resignation.
     */
    protected final boolean mayPreempt(NodeId coordinator) {
        return preemption && peers.isLower(coordinator) && ctx.nanoTime() - startedAt >= holdDownNanos && !holdingOff();
    }

    /** How long until the hold-down, and a resignation's hold-off, are over (0 if they are). */
    protected final long untilHoldDownEnds() {
        long now = ctx.nanoTime();
        long left = Math.max(0, startedAt + holdDownNanos - now);
        return holdingOff() ? Math.max(left, resignedUntil - now) : left;
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
