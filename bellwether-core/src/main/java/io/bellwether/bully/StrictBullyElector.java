package io.bellwether.bully;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Accepted;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Halt;
import io.bellwether.bully.BullyMessage.NewCoordinator;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.bully.BullyMessage.Ready;
import io.bellwether.bully.BullyMessage.Refused;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.RankedEpoch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bully elector in strict mode ({@code bully.strict: true}): Garcia-Molina's (1982) election procedure
 * with its Halt, NewCoordinator and Ready phases, adapted to leader election. There is no application state to
 * distribute, so Ready is the coordinator's go-ahead once every reachable member has accepted it.
 *
 * <p>The election itself is the simple mode's (see {@link BullyElector}): ELECTION to every higher member, wait
 * T for an OK; an OK → wait T' for the winner to reach this member, else start over. What follows differs:
 *
 * <ol>
 *   <li><b>Halt.</b> The winner draws a new epoch (its counter persisted first, so the epoch is never issued
 *       twice) and sends {@link Halt} to every other member. A member that accepts stops acting on its old
 *       coordinator <em>before</em> it answers {@link Accepted}: a follower names no coordinator any more, a
 *       coordinator revokes its own leadership. The winner waits until every lower member whose connection is up
 *       has answered, or for T (the per-member timeout of the paper); the members that accepted are the group.
 *       The higher members did not answer its ELECTION, so it does not wait for them; one that is alive after
 *       all refuses (the winner then gives up, as the paper's election returns when a higher member answers) or,
 *       during its pre-emption hold-down, accepts and joins.
 *   <li><b>NewCoordinator.</b> The winner persists the new epoch and sends {@link NewCoordinator} to the group.
 *       A member accepts it only if the same winner halted it for the same epoch; it persists the epoch (from then
 *       on it refuses everything older) and answers. The winner waits for the answers, or for T.
 *   <li><b>Ready.</b> The winner sends {@link Ready} to every member that accepted NewCoordinator, and only then
 *       announces LEADER. A member names the winner as its coordinator only when its Ready arrives.
 * </ol>
 *
 * <p>A member refuses ({@link Refused}, carrying its epoch) a Halt older than the epoch it adopted, a Halt from a
 * member lower than the one it knows alive (the coordinator it follows, with pre-emption on, or the one halting
 * it now), and a Halt from a lower member it may pre-empt (it then runs its own election). A NewCoordinator or
 * Ready out of phase is refused too. A winner whose Halt is refused for being older than the refuser's epoch
 * starts its Halt phase again with an epoch above it. A halted or reorganizing member whose next message does not
 * come within T' (or whose winner's connection closes) starts an election.
 *
 * <p>A member that joins later (it starts, restarts, loses and regains its coordinator, or hears the heartbeat of a
 * coordinator it does not follow) asks with {@link Query}; a leading coordinator admits it with the same three
 * steps, one member at a time, at its current epoch. An ELECTION from a lower member is answered with OK and an
 * admission too.
 *
 * <p><b>What "acts as leader" means.</b> A member acts as leader exactly while it has announced {@link
 * Role#LEADER} and its validity ({@link BullyConfig#leaderTimeout()} after each heartbeat round) has not run out:
 * that is what {@code Election.isLeader()}, the {@code Leadership} and leader-only tasks follow. A member names a
 * coordinator exactly while it has announced FOLLOWER with that leader.
 *
 * <p><b>What strict mode guarantees, always</b> (the simulator checks both): a coordinator announces LEADER only
 * after every member it sent Ready to has persisted its epoch and stopped acting as leader at any older epoch;
 * and a member names a coordinator only after receiving that coordinator's Ready for that epoch. <b>Given</b>
 * that every member answers within the timeouts (no partition, no lost answer, no process paused longer than T),
 * a handover is therefore break-before-make: an old coordinator stops acting before its successor starts, also
 * when a recovered higher member pre-empts, which simple mode does make-before-break for one message delay.
 * <b>Not given:</b> a member that does not answer Halt in time is left out and the winner acts anyway, so a
 * partitioned or paused old coordinator keeps acting on its side, exactly as in simple mode. Strict mode is not a
 * majority gate.
 *
 * <p>It shares {@link BullyMessage}, {@link BullyCodec}, {@link RankedEpoch}, {@link BullyConfig} and the stored
 * state layout with {@link BullyElector}, and the election, rejoining and the timers of following and leading
 * with it through {@link BullyElectorBase}; it is a class of its own so that the simple mode's code stays as short
 * as the simple algorithm.
 *
 * <p>Not thread-safe; driven by one thread (see {@link Elector}).
 */
public final class StrictBullyElector extends BullyElectorBase {
    private static final Logger log = LoggerFactory.getLogger(StrictBullyElector.class);

    /**
     * How many times a leading coordinator sends each step of an admission (every T) before it gives up on the
     * member; the member asks again when it hears the next heartbeat.
     */
    static final int ADMISSION_ATTEMPTS = 3;

    /**
     * A member being admitted to a leading coordinator's group: the request it must answer (a Halt, or a
     * NewCoordinator once installing) and how many times that step was sent.
     */
    private record Admission(long requestId, boolean installing, int attempts) {}

    private final List<NodeId> lower;
    /** Peers whose connection the transport reported closed (and not reopened): not waited for. */
    private final Set<NodeId> disconnected = new HashSet<>();

    // Winner (HALTING, INSTALLING): this phase's requests by message id, who has yet to answer, who accepted.
    private final Map<Long, NodeId> requests = new HashMap<>();
    private final Set<NodeId> waiting = new HashSet<>();
    private final List<NodeId> accepted = new ArrayList<>();
    // Coordinator (LEADING): members being admitted.
    private final Map<NodeId, Admission> admissions = new HashMap<>();

    /** Winner: the epoch it is installing. */
    private long newEpoch;
    /** HALTED, REORGANIZING: the winner that halted this member, and its epoch. */
    private NodeId haltedBy;

    private long haltEpoch;
    /** HALTED, REORGANIZING: when this member last answered its winner. */
    private long answeredAt;
    /** The coordinator last asked for admission, and when: one request per T' is enough. */
    private NodeId askedToJoin;

    private long askedToJoinAt;
    /** Members seen running the simple mode (a misconfigured group): warned about once each. */
    private final Set<NodeId> simpleModePeers = new HashSet<>();

    StrictBullyElector(BullyConfig config, ElectorContext context) {
        super(config, context, log);
        this.lower = peers.lower();
    }

    /** Where this member is in the procedure; for tests and observers. */
    Phase phase() {
        return phase;
    }

    @Override
    void onModeTimer(Timer timer) {
        switch (timer) {
            case AWAIT_HALT, AWAIT_NEW_COORDINATOR, AWAIT_READY -> {
                if (phase == Phase.AWAITING_HALT || phase == Phase.HALTED || phase == Phase.REORGANIZING) {
                    // The winner did not get here in time (it may have crashed): "any failure → restart".
                    log.debug("{}: {} timed out; electing", self, phase);
                    enter(Phase.IDLE);
                    startElection();
                }
            }
            case HALT_ANSWERS -> {
                if (phase == Phase.HALTING) {
                    install();
                }
            }
            case INSTALL_ANSWERS -> {
                if (phase == Phase.INSTALLING) {
                    ready();
                }
            }
            case ADMISSIONS -> {
                if (phase == Phase.LEADING) {
                    resendAdmissions();
                }
            }
            default -> {}
        }
    }

    @Override
    void heard(NodeId from) {
        disconnected.remove(from);
    }

    @Override
    void handleOwn(NodeId from, int fromRank, BullyMessage m) {
        if (m instanceof Halt h) {
            onHalt(from, fromRank, h);
        } else if (m instanceof NewCoordinator nc) {
            onNewCoordinator(from, nc);
        } else if (m instanceof Ready r) {
            onReady(from, r);
        } else if (m instanceof Accepted a) {
            onAccepted(from, a);
        } else if (m instanceof Refused r) {
            onRefused(from, r);
        } else if (m instanceof Coordinator c) {
            // Only a simple-mode member sends COORDINATOR: the group is misconfigured. Answer, never adopt.
            if (simpleModePeers.add(from)) {
                log.warn(
                        "{}: {} announced itself with COORDINATOR, so it runs bully in simple mode while this member"
                                + " runs strict mode; bully.strict must be the same on every member. Ignoring it.",
                        self,
                        from);
            }
            ack(from, c.messageId());
        }
    }

    @Override
    void answerQuery(NodeId member) {
        admit(member);
    }

    @Override
    void otherResigned(NodeId from) {
        if ((phase == Phase.HALTED || phase == Phase.REORGANIZING) && from.equals(haltedBy)) {
            enter(Phase.IDLE);
            startElection();
        }
    }

    @Override
    public void onPeerConnected(NodeId peer) {
        disconnected.remove(peer);
    }

    @Override
    public void onPeerDisconnected(NodeId peer) {
        if (!running()) {
            return;
        }
        checkValidity();
        disconnected.add(peer);
        admissions.remove(peer);
        if (phase == Phase.IDLE && peer.equals(leader)) {
            loseLeader(ChangeReason.LEADER_DISCONNECTED);
        } else if ((phase == Phase.HALTED || phase == Phase.REORGANIZING) && peer.equals(haltedBy)) {
            enter(Phase.IDLE);
            startElection();
        } else if ((phase == Phase.HALTING || phase == Phase.INSTALLING) && waiting.remove(peer) && waiting.isEmpty()) {
            // Its answer cannot come any more (nothing sent before a reported close arrives after it).
            advance();
        }
    }

    @Override
    void awaitWinner() {
        enter(Phase.AWAITING_HALT);
        ctx.schedule(Timer.AWAIT_HALT, coordinatorTimeoutNanos);
    }

    @Override
    void welcome(NodeId member) {
        admit(member);
    }

    @Override
    void win() {
        beginReorganization();
    }

    // ---- winner: Halt, NewCoordinator, Ready ----

    /** Phase 1: a new epoch, and Halt to every other member; the lower ones are waited for. */
    private void beginReorganization() {
        if (!Counters.mayIssueEpochAbove(counter, self, log)) {
            return;
        }
        long newCounter = counter + 1;
        // Durable before the first Halt leaves: an epoch is never issued twice, even across restarts.
        persistCounter(newCounter);
        newEpoch = RankedEpoch.of(newCounter, peers.selfRank());
        enter(Phase.HALTING);
        announce(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        log.debug("{}: halting the group for epoch {}", self, RankedEpoch.toString(newEpoch));
        List<NodeId> others =
                peers.members().stream().filter(member -> !member.equals(self)).toList();
        // The higher members did not answer our ELECTION, so they are presumed down and not waited for; one that
        // is up after all (its OK was lost) learns of us at once, refuses and bullies us, as in the simple mode
        // where COORDINATOR goes to every member. One that may not pre-empt us joins.
        request(others, lower::contains, id -> new Halt(newEpoch, id), Timer.HALT_ANSWERS);
    }

    /** Phase 2: adopt the new epoch, and NewCoordinator to every member that accepted the Halt. */
    private void install() {
        persistEpoch(counter, newEpoch);
        List<NodeId> halted = List.copyOf(accepted);
        enter(Phase.INSTALLING);
        announce(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        request(halted, member -> true, id -> new NewCoordinator(epoch, id), Timer.INSTALL_ANSWERS);
    }

    /** Phase 3: Ready to every member that accepted NewCoordinator, then act as leader. */
    private void ready() {
        List<NodeId> group = List.copyOf(accepted);
        enter(Phase.LEADING);
        for (NodeId member : group) {
            ctx.send(member, new Ready(epoch, nextId()));
        }
        log.debug("{}: ready at epoch {} with {}", self, RankedEpoch.toString(epoch), group);
        renewValidity();
        announce(Role.LEADER, self, ChangeReason.ELECTED);
        armLeaderTimers();
    }

    /**
     * Sends this phase's request to each of {@code members}, and waits until {@code answers} for the ones
     * {@code awaited} and not known to be disconnected; with none to wait for, the phase ends at once.
     */
    private void request(
            List<NodeId> members, Predicate<NodeId> awaited, LongFunction<BullyMessage> message, Timer answers) {
        for (NodeId member : members) {
            long id = nextId();
            requests.put(id, member);
            if (awaited.test(member) && !disconnected.contains(member)) {
                waiting.add(member);
            }
            ctx.send(member, message.apply(id));
        }
        if (waiting.isEmpty()) {
            advance();
        } else {
            ctx.schedule(answers, answerNanos);
        }
    }

    private void advance() {
        if (phase == Phase.HALTING) {
            install();
        } else if (phase == Phase.INSTALLING) {
            ready();
        }
    }

    private void onAccepted(NodeId from, Accepted a) {
        if (phase == Phase.HALTING || phase == Phase.INSTALLING) {
            if (from.equals(requests.get(a.ackOf()))) {
                requests.remove(a.ackOf());
                accepted.add(from);
                if (waiting.remove(from) && waiting.isEmpty()) {
                    advance();
                }
            }
        } else if (phase == Phase.LEADING) {
            Admission admission = admissions.get(from);
            if (admission == null || admission.requestId() != a.ackOf()) {
                return;
            }
            if (!admission.installing()) {
                long id = nextId();
                admissions.put(from, new Admission(id, true, 1));
                ctx.send(from, new NewCoordinator(epoch, id));
            } else {
                admissions.remove(from);
                ctx.send(from, new Ready(epoch, nextId()));
            }
        }
    }

    private void onRefused(NodeId from, Refused r) {
        if ((phase == Phase.HALTING || phase == Phase.INSTALLING) && from.equals(requests.get(r.ackOf()))) {
            requests.remove(r.ackOf());
            if (phase == Phase.HALTING && r.epoch() > newEpoch) {
                // Our epoch is older than the refuser's: halt again with one above it (the counter has moved).
                log.debug("{}: Halt refused by {} at epoch {}; again with a newer epoch", self, from, r.epoch());
                beginReorganization();
                return;
            }
            if (!peers.isLower(from)) {
                // A higher member is alive after all (its OK was lost) and will bully us: as in the paper, an
                // election that hears from a higher member returns. If it never comes, DISCOVERY elects again.
                log.debug("{}: Halt refused by higher {}; waiting to be halted", self, from);
                enter(Phase.IDLE);
                announce(Role.FOLLOWER, null, ChangeReason.ROUND_FAILED);
                ctx.schedule(Timer.DISCOVERY, coordinatorTimeoutNanos);
                return;
            }
            if (waiting.remove(from) && waiting.isEmpty()) {
                advance();
            }
            return;
        }
        if (phase == Phase.LEADING) {
            Admission admission = admissions.get(from);
            if (admission != null && admission.requestId() == r.ackOf()) {
                admissions.remove(from);
            }
        }
        onAnswerEpoch(r.epoch());
    }

    /** A leading coordinator admits one member: Halt, NewCoordinator and Ready at its current epoch. */
    private void admit(NodeId member) {
        long id = nextId();
        if (admissions.isEmpty()) {
            ctx.schedule(Timer.ADMISSIONS, answerNanos);
        }
        admissions.put(member, new Admission(id, false, 1));
        ctx.send(member, new Halt(epoch, id));
    }

    /**
     * Sends again, under a new message id (the old one would be dropped as a duplicate if only its answer was
     * lost), every admission step unanswered for T. Members answer a repeated step again (they are idempotent).
     */
    private void resendAdmissions() {
        for (Map.Entry<NodeId, Admission> entry : List.copyOf(admissions.entrySet())) {
            NodeId member = entry.getKey();
            Admission a = entry.getValue();
            if (a.attempts() >= ADMISSION_ATTEMPTS) {
                admissions.remove(member);
                continue;
            }
            long id = nextId();
            admissions.put(member, new Admission(id, a.installing(), a.attempts() + 1));
            ctx.send(member, a.installing() ? new NewCoordinator(epoch, id) : new Halt(epoch, id));
        }
        if (!admissions.isEmpty()) {
            ctx.schedule(Timer.ADMISSIONS, answerNanos);
        }
    }

    // ---- member: accepting or refusing ----

    private void onHalt(NodeId from, int fromRank, Halt h) {
        if (!names(from, fromRank, h.epoch()) || h.epoch() < epoch) {
            refuse(from, h.messageId());
            return;
        }
        if (mayPreempt(from)) {
            refuse(from, h.messageId());
            if ((phase == Phase.HALTING || phase == Phase.INSTALLING) && h.epoch() > newEpoch) {
                // The sender's members adopt its newer epoch and would refuse ours: reorganize above it.
                beginReorganization();
            } else {
                startElection();
            }
            return;
        }
        NodeId alive = knownAliveAbove(fromRank);
        if (alive != null) {
            log.debug("{}: refusing Halt from {}: {} is alive and higher", self, from, alive);
            refuse(from, h.messageId());
            return;
        }
        enter(Phase.HALTED);
        haltedBy = from;
        haltEpoch = h.epoch();
        answeredAt = ctx.nanoTime();
        // Stop acting on the old coordinator (revoke our own leadership) before the answer leaves.
        announce(Role.FOLLOWER, null, ChangeReason.HALTED);
        ctx.schedule(Timer.AWAIT_NEW_COORDINATOR, coordinatorTimeoutNanos);
        ctx.send(from, new Accepted(epoch, nextId(), h.messageId()));
    }

    private void onNewCoordinator(NodeId from, NewCoordinator nc) {
        if (phase == Phase.REORGANIZING && from.equals(haltedBy) && nc.epoch() == epoch) {
            // Sent again because our answer was lost: answer again.
            ctx.schedule(Timer.AWAIT_READY, coordinatorTimeoutNanos);
            answeredAt = ctx.nanoTime();
            ctx.send(from, new Accepted(epoch, nextId(), nc.messageId()));
            return;
        }
        if (phase != Phase.HALTED || !from.equals(haltedBy) || nc.epoch() != haltEpoch) {
            refuse(from, nc.messageId());
            return;
        }
        // Durable before the answer: from now on this member refuses every older epoch, across restarts too.
        persistEpoch(Math.max(counter, RankedEpoch.counter(nc.epoch())), nc.epoch());
        ctx.cancel(Timer.AWAIT_NEW_COORDINATOR);
        phase = Phase.REORGANIZING;
        answeredAt = ctx.nanoTime();
        announce(Role.FOLLOWER, null, ChangeReason.HALTED);
        ctx.schedule(Timer.AWAIT_READY, coordinatorTimeoutNanos);
        ctx.send(from, new Accepted(epoch, nextId(), nc.messageId()));
    }

    private void onReady(NodeId from, Ready r) {
        boolean again = phase == Phase.IDLE && from.equals(leader) && r.epoch() == epoch;
        if (!again && (phase != Phase.REORGANIZING || !from.equals(haltedBy) || r.epoch() != epoch)) {
            refuse(from, r.messageId());
            return;
        }
        follow(from);
        ctx.send(from, new Accepted(epoch, nextId(), r.messageId()));
    }

    private void refuse(NodeId to, long ackOf) {
        ctx.send(to, new Refused(epoch, nextId(), ackOf));
    }

    /**
     * The member that {@code fromRank} must outrank for its Halt to be accepted: the winner halting us now, or
     * (with pre-emption on) the live coordinator we follow, which will bully the sender itself.
     */
    private NodeId knownAliveAbove(int fromRank) {
        if ((phase == Phase.HALTED || phase == Phase.REORGANIZING) && peers.rankOf(haltedBy) > fromRank) {
            return haltedBy;
        }
        if (config.preemption() && phase == Phase.IDLE && leader != null && peers.rankOf(leader) > fromRank) {
            return leader;
        }
        return null;
    }

    // ---- following ----

    private void follow(NodeId coordinator) {
        enter(Phase.IDLE);
        announce(Role.FOLLOWER, coordinator, ChangeReason.LEADER_DISCOVERED);
        ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
        if (config.preemption() && peers.isLower(coordinator)) {
            ctx.schedule(Timer.PREEMPT, untilHoldDownEnds());
        }
    }

    @Override
    void onLeaderMessage(NodeId from, int fromRank, long theirEpoch) {
        if (!names(from, fromRank, theirEpoch)) {
            log.debug("{}: ignoring heartbeat from {}: epoch {} does not name it", self, from, theirEpoch);
            return;
        }
        if (phase == Phase.IDLE && from.equals(leader) && theirEpoch == epoch) {
            ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
            return;
        }
        if (theirEpoch < epoch) {
            return; // stale; the answer carries our epoch, which tells the sender
        }
        if (mayPreempt(from)) {
            startElection();
            return;
        }
        if (knownAliveAbove(fromRank) != null) {
            return; // a higher live coordinator bullies the sender
        }
        if ((phase == Phase.HALTED || phase == Phase.REORGANIZING) && from.equals(haltedBy)) {
            // It leads the epoch it halted us for, so it has sent its Ready. If our last answer is older than
            // one round trip, its next step was lost or it went on without us: ask again rather than wait T'.
            if (theirEpoch != haltEpoch || ctx.nanoTime() - answeredAt < answerNanos) {
                return;
            }
        }
        askToJoin(from);
    }

    /**
     * A coordinator this member would follow leads without it: ask it for admission. Whatever this member was
     * doing to become or stay coordinator itself stops now (as a simple-mode member adopts at once); a follower
     * keeps following its coordinator until the Halt comes.
     */
    private void askToJoin(NodeId coordinator) {
        if (phase != Phase.IDLE) {
            boolean wasLeading = phase == Phase.LEADING;
            enter(Phase.IDLE);
            announce(Role.FOLLOWER, null, wasLeading ? ChangeReason.HIGHER_EPOCH : ChangeReason.LEADER_DISCOVERED);
        }
        long now = ctx.nanoTime();
        if (coordinator.equals(askedToJoin) && now - askedToJoinAt < coordinatorTimeoutNanos) {
            return;
        }
        askedToJoin = coordinator;
        askedToJoinAt = now;
        if (leader == null) {
            ctx.schedule(Timer.DISCOVERY, coordinatorTimeoutNanos);
        }
        ctx.send(coordinator, new Query(epoch, nextId()));
    }

    /** Whether {@code theirEpoch} is a coordinator's epoch naming the sender. */
    private static boolean names(NodeId from, int fromRank, long theirEpoch) {
        return RankedEpoch.names(theirEpoch, fromRank);
    }

    // ---- helpers ----

    /**
     * Leaves the current phase for {@code next}: cancels every timer (each belongs to one phase, see {@link
     * Phase}) and forgets the phase's bookkeeping. Callers arm the new phase's timers.
     */
    @Override
    void enter(Phase next) {
        cancelAll(Timer.values());
        electionIds.clear();
        requests.clear();
        waiting.clear();
        accepted.clear();
        admissions.clear();
        haltedBy = null;
        phase = next;
    }
}
