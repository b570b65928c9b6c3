package io.bellwether.bully;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Ack;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.bully.BullyMessage.HeartbeatAck;
import io.bellwether.bully.BullyMessage.Ok;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.bully.BullyMessage.Resign;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.RankedPeerElector;
import io.bellwether.elector.TimerKey;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * What both bully modes share (see {@link BullyElector} for the simple mode, {@link StrictBullyElector} for the
 * strict one): the election itself (ELECTION to every higher member, wait T for an OK; none → this member wins;
 * an OK → wait T' for the winner), rejoining, losing a coordinator, answering heartbeats, queries and
 * resignations, and the timers of following and leading. What the winner does next, how a member follows, and
 * how a coordinator makes itself known to a querier, is each mode's own.
 *
 * <p>The timers and phases are declared once for both modes; each mode uses the ones its comments name. A phase
 * owns its timers: each mode's {@link #enter} cancels every timer when it leaves a phase.
 */
abstract class BullyElectorBase extends RankedPeerElector<BullyMessage> {
    enum Timer implements TimerKey {
        /** After (re)joining or asking to be admitted: no coordinator answered or admitted this member. */
        DISCOVERY,
        /** Electing: no higher member answered OK within T. */
        ANSWER,
        /** Simple mode, got an OK: the COORDINATOR announcement did not come within T'. */
        COORDINATOR,
        /** Strict mode, got an OK: no Halt came within T'. */
        AWAIT_HALT,
        /** Strict winner: the Halt answers did not all come within T. */
        HALT_ANSWERS,
        /** Strict winner: the NewCoordinator answers did not all come within T. */
        INSTALL_ANSWERS,
        /** Strict, halted: the NewCoordinator did not come within T'. */
        AWAIT_NEW_COORDINATOR,
        /** Strict, reorganizing: the Ready did not come within T'. */
        AWAIT_READY,
        /** Following: the coordinator's heartbeats stopped. */
        LEADER_TIMEOUT,
        /** Coordinating: time for the next heartbeat round. */
        HEARTBEAT,
        /** Coordinating: the leadership's validity may have lapsed. */
        VALIDITY,
        /** Strict, coordinating: time to resend the admission steps nobody answered. */
        ADMISSIONS,
        /** Following a lower coordinator: the hold-down is over, pre-empt it. */
        PREEMPT
    }

    /** Where this member is in the procedure; each phase owns the timers named in its comment. */
    enum Phase {
        /** Following a coordinator, or waiting to hear of one (DISCOVERY, LEADER_TIMEOUT, PREEMPT). */
        IDLE,
        /** Sent ELECTION to the higher members, waiting for an OK (ANSWER). */
        ELECTING,
        /** Simple mode: got an OK, waiting for the COORDINATOR announcement (COORDINATOR). */
        AWAITING_COORDINATOR,
        /** Strict mode: got an OK, waiting for a higher member's Halt (AWAIT_HALT). */
        AWAITING_HALT,
        /** Strict winner: sent Halt to the lower members, collecting answers (HALT_ANSWERS). */
        HALTING,
        /** Strict winner: sent NewCoordinator to the halted members, collecting answers (INSTALL_ANSWERS). */
        INSTALLING,
        /** Coordinating; acts as leader (HEARTBEAT, VALIDITY, and in strict mode ADMISSIONS). */
        LEADING,
        /** Strict: halted by a winner, waiting for its NewCoordinator (AWAIT_NEW_COORDINATOR). */
        HALTED,
        /** Strict: adopted the winner's epoch, waiting for its Ready (AWAIT_READY). */
        REORGANIZING
    }

    final BullyConfig config;
    final List<NodeId> higher;
    final long answerNanos;
    final long coordinatorTimeoutNanos;
    /** Ids of this round's ELECTION messages: an OK counts only if it answers one of them. */
    final Set<Long> electionIds = new HashSet<>();

    Phase phase = Phase.IDLE;

    BullyElectorBase(BullyConfig config, ElectorContext context, Logger log) {
        super(
                context,
                "bully",
                BullyMessage.class,
                log,
                config,
                config.preemption(),
                new Timers(Timer.DISCOVERY, Timer.LEADER_TIMEOUT, Timer.HEARTBEAT, Timer.VALIDITY, Timer.PREEMPT));
        this.config = config;
        this.higher = peers.higher();
        this.answerNanos = config.answerTimeout().toNanos();
        this.coordinatorTimeoutNanos = config.coordinatorTimeout().toNanos();
    }

    /**
     * The one transition between phases: cancels every timer (each belongs to one phase, see {@link Phase}) and
     * forgets the phase's bookkeeping. Callers arm the new phase's timers.
     */
    abstract void enter(Phase next);

    /** Wins the election: the simple mode announces itself, the strict mode starts halting the group. */
    abstract void win();

    /** Got an OK: wait for the winner. */
    abstract void awaitWinner();

    /** A coordinator got an ELECTION from a lower member it leads: tell it who coordinates. */
    abstract void welcome(NodeId member);

    /** Every first copy of a member's message arrives here first. Nothing by default. */
    void heard(NodeId from) {}

    /**
     * A heartbeat (in the simple mode, a COORDINATOR too) from {@code from}, of rank {@code fromRank}, leading
     * {@code theirEpoch}: each mode follows its own way. The answer, which carries this member's epoch, leaves
     * after it.
     */
    abstract void onLeaderMessage(NodeId from, int fromRank, long theirEpoch);

    /** A coordinator was asked who coordinates (a Query from {@code member}): make itself known to it. */
    abstract void answerQuery(NodeId member);

    /** A Resign from {@code from}, not the coordinator this member follows. Nothing by default. */
    void otherResigned(NodeId from) {}

    /** Handles the messages this mode does not share with the other. */
    abstract void handleOwn(NodeId from, int fromRank, BullyMessage m);

    /** Fires the timers this mode does not share with the other. */
    abstract void onModeTimer(Timer timer);

    @Override
    protected final void reset() {
        enter(Phase.IDLE);
    }

    @Override
    protected final boolean leading() {
        return phase == Phase.LEADING;
    }

    @Override
    protected final boolean idle() {
        return phase == Phase.IDLE;
    }

    @Override
    protected final void enterIdle() {
        enter(Phase.IDLE);
    }

    @Override
    protected final BullyMessage heartbeat(long epoch, long messageId) {
        return new Heartbeat(epoch, messageId);
    }

    @Override
    protected final BullyMessage resign(long epoch, long messageId) {
        return new Resign(epoch, messageId);
    }

    @Override
    protected final void onOwnTimer(TimerKey key) {
        Timer timer = (Timer) key;
        if (timer == Timer.ANSWER) {
            if (phase == Phase.ELECTING) {
                win();
            }
        } else {
            onModeTimer(timer);
        }
    }

    @Override
    protected final void handle(NodeId from, int fromRank, BullyMessage m) {
        heard(from);
        if (m instanceof Election e) {
            onElection(from, fromRank, e);
        } else if (m instanceof Ok ok) {
            if (phase == Phase.ELECTING && electionIds.contains(ok.ackOf())) {
                awaitWinner();
            }
        } else if (m instanceof HeartbeatAck a) {
            onAnswerEpoch(a.epoch());
        } else if (m instanceof Ack a) {
            onAnswerEpoch(a.epoch());
        } else if (m instanceof Heartbeat h) {
            onLeaderMessage(from, fromRank, h.epoch());
            ctx.send(from, new HeartbeatAck(epoch, nextId(), h.messageId()));
        } else if (m instanceof Query q) {
            ack(from, q.messageId());
            if (phase == Phase.LEADING) {
                answerQuery(from);
            }
        } else if (m instanceof Resign r) {
            ack(from, r.messageId());
            if (phase == Phase.IDLE && from.equals(leader) && r.epoch() == epoch) {
                loseLeader(ChangeReason.LEADER_CEDED);
            } else {
                otherResigned(from);
            }
        } else {
            handleOwn(from, fromRank, m);
        }
    }

    // ---- election ----

    @Override
    protected final void rejoin() {
        enter(Phase.IDLE);
        broadcast(id -> new Query(epoch, id));
        ctx.schedule(Timer.DISCOVERY, answerNanos);
    }

    @Override
    protected final void startElection() {
        if (heldOff()) {
            return; // resigned: no election before the hold-off is over
        }
        if (phase == Phase.ELECTING
                || phase == Phase.AWAITING_COORDINATOR
                || phase == Phase.AWAITING_HALT
                || phase == Phase.HALTING
                || phase == Phase.INSTALLING) {
            return; // an election of ours is under way
        }
        if (higher.isEmpty()) {
            win();
            return;
        }
        enter(Phase.ELECTING);
        announce(Role.CANDIDATE, null, ChangeReason.CAMPAIGNING);
        for (NodeId h : higher) {
            long id = nextId();
            electionIds.add(id);
            ctx.send(h, new Election(epoch, id));
        }
        ctx.schedule(Timer.ANSWER, answerNanos);
    }

    /** The phases of an election of this member's own, which can make it coordinator. */
    @Override
    protected final boolean abandonCandidacy() {
        switch (phase) {
            case ELECTING, AWAITING_COORDINATOR, AWAITING_HALT, HALTING, INSTALLING -> {
                enter(Phase.IDLE);
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private void onElection(NodeId from, int fromRank, Election election) {
        if (fromRank > peers.selfRank()) {
            return; // elections go to higher members only
        }
        if (holdingOff()) {
            // Resigned: silent, as if it were down, so the sender (or a higher member) wins after its answer timeout
            // instead of waiting for this member to take over.
            return;
        }
        ctx.send(from, new Ok(epoch, nextId(), election.messageId()));
        switch (phase) {
            case LEADING -> {
                if (election.epoch() > epoch) {
                    // The sender adopted an epoch newer than ours (from a coordinator elected while we were cut
                    // off): it cannot adopt ours again, so this member wins a fresh one.
                    startElection();
                } else {
                    welcome(from);
                }
            }
            case IDLE -> {
                if (leader == null || mayPreempt(leader)) {
                    startElection();
                }
                // Following a live coordinator: it got the same ELECTION and answers it.
            }
            default -> {}
        }
    }

    /** Sends the answer {@code Ack} to a request. */
    final void ack(NodeId to, long requestId) {
        ctx.send(to, new Ack(epoch, nextId(), requestId));
    }
}
