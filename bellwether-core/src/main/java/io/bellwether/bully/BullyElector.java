package io.bellwether.bully;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.RankedPeerElector;
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
public final class BullyElector extends BullyElectorBase {
    private static final Logger log = LoggerFactory.getLogger(BullyElector.class);

    /** StoredState key of the highest epoch counter this member has issued or adopted. */
    public static final String COUNTER_KEY = RankedPeerElector.COUNTER_KEY;
    /** StoredState key of the epoch this member last adopted (encoded, see {@link RankedEpoch}). */
    public static final String EPOCH_KEY = RankedPeerElector.EPOCH_KEY;

    BullyElector(BullyConfig config, ElectorContext context) {
        super(config, context, log);
    }

    @Override
    void handleOwn(NodeId from, int fromRank, BullyMessage m) {
        if (m instanceof Coordinator c) {
            onLeaderMessage(from, fromRank, c.epoch());
            ack(from, c.messageId());
        }
    }

    @Override
    void answerQuery(NodeId member) {
        ctx.send(member, new Heartbeat(epoch, nextId()));
    }

    @Override
    void onModeTimer(Timer timer) {
        if (timer == Timer.COORDINATOR && phase == Phase.AWAITING_COORDINATOR) {
            // The member that said OK did not announce (it may have crashed after answering): start over.
            enter(Phase.IDLE);
            startElection();
        }
    }

    @Override
    void enter(Phase next) {
        cancelAll(Timer.values());
        electionIds.clear();
        phase = next;
    }

    @Override
    void awaitWinner() {
        enter(Phase.AWAITING_COORDINATOR);
        ctx.schedule(Timer.COORDINATOR, coordinatorTimeoutNanos);
    }

    @Override
    void welcome(NodeId member) {
        ctx.send(member, new Coordinator(epoch, nextId()));
    }

    @Override
    void win() {
        if (!Counters.mayIssueEpochAbove(counter, self, log)) {
            return;
        }
        long newCounter = counter + 1;
        long newEpoch = RankedEpoch.of(newCounter, peers.selfRank());
        // Durable before the COORDINATOR leaves: an epoch is never issued twice, even across restarts.
        persistEpoch(newCounter, newEpoch);
        enter(Phase.LEADING);
        renewValidity();
        announce(Role.LEADER, self, ChangeReason.ELECTED);
        broadcast(id -> new Coordinator(newEpoch, id));
        armLeaderTimers();
    }

    // ---- following ----

    @Override
    void onLeaderMessage(NodeId from, int fromRank, long theirEpoch) {
        if (!RankedEpoch.names(theirEpoch, fromRank)) {
            log.debug("{}: ignoring leader message from {}: epoch {} does not name it", self, from, theirEpoch);
            return;
        }
        if (theirEpoch > epoch) {
            if (mayPreempt(from)) {
                startElection();
                return;
            }
            if (config.preemption() && phase == Phase.IDLE && leader != null && peers.rankOf(leader) > fromRank) {
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
        persistEpoch(Math.max(counter, RankedEpoch.counter(newEpoch)), newEpoch);
        follow(coordinator, wasLeading ? ChangeReason.HIGHER_EPOCH : ChangeReason.LEADER_DISCOVERED);
    }

    private void follow(NodeId coordinator, ChangeReason why) {
        enter(Phase.IDLE);
        announce(Role.FOLLOWER, coordinator, why);
        ctx.schedule(Timer.LEADER_TIMEOUT, leaderTimeoutNanos);
        if (config.preemption() && peers.isLower(coordinator)) {
            ctx.schedule(Timer.PREEMPT, untilHoldDownEnds());
        }
    }
}
