package io.bellwether.elector;

import io.bellwether.NodeId;
import java.util.function.LongFunction;
import org.slf4j.Logger;

/**
 * What every peer elector (bully, strict bully, ring, invitation) does the same way: the lifecycle guard, the
 * members and this member's rank ({@link PeerGroup}), message ids that never repeat across incarnations, and
 * message intake: a message is handled only while running, only if it is of the algorithm's family, from another
 * configured member, {@linkplain #admissible admissible} (its numbers in range) and not a duplicate.
 *
 * <p>Why a base class and not only helpers: the intake is the same sequence of checks in the same order in every
 * peer elector, and each algorithm differs only in the steps it adds (the ring acknowledges every copy before the
 * duplicate filter); a template states that order once. The membership is a separate value ({@link PeerGroup})
 * since other electors can use it without this base.
 *
 * <p>Not thread-safe; driven by one thread (see {@link Elector}).
 *
 * @param <M> the algorithm's message family
 */
public abstract class PeerElector<M extends PeerMessage> implements Elector {
    /** The context the driver passed in. */
    protected final ElectorContext ctx;
    /** This member. */
    protected final NodeId self;
    /** The configured members, ranked by id. */
    protected final PeerGroup peers;
    /** The subclass's logger, so that log lines name the algorithm. */
    protected final Logger log;

    private final Class<M> family;
    private final RecentMessageIds recent;
    private boolean running;
    private long nextMessageId;

    /**
     * @param family the algorithm's message interface: other messages are ignored
     * @param dedupWindow how many message ids per sender are remembered to drop duplicates
     */
    protected PeerElector(ElectorContext ctx, PeerGroup peers, Class<M> family, int dedupWindow, Logger log) {
        this.ctx = ctx;
        this.self = ctx.self();
        this.peers = peers;
        this.family = family;
        this.recent = new RecentMessageIds(dedupWindow);
        this.log = log;
    }

    @Override
    public final void start() {
        if (running) {
            return;
        }
        running = true;
        restore();
        // Message ids must not repeat across incarnations, or peers would drop a restarted member's messages
        // as duplicates: each incarnation draws its own range.
        nextMessageId = ctx.random().nextLong(1L << 62);
        begin();
    }

    @Override
    public final void stop() {
        if (!running) {
            return;
        }
        end();
        running = false;
    }

    /** Whether {@link #start} has run and {@link #stop} has not since. */
    protected final boolean running() {
        return running;
    }

    /** Reads what this member persisted, when it starts (before any message id is drawn). */
    protected abstract void restore();

    /** Starts the algorithm, once the stored state is read and message ids drawn. */
    protected abstract void begin();

    /** Stops the algorithm: revokes leadership, cancels every timer. */
    protected abstract void end();

    @Override
    public final void onMessage(NodeId from, ElectorMessage message) {
        if (!running || !family.isInstance(message) || from.equals(self)) {
            return;
        }
        M m = family.cast(message);
        Integer fromRank = peers.rankOf(from);
        if (fromRank == null) {
            log.debug("{}: ignoring {} from {}: not a member", self, message, from);
            return;
        }
        if (!admissible(from, m)) {
            return;
        }
        beforeDuplicateCheck(from, m);
        if (!recent.firstTime(from, m.messageId())) {
            log.debug("{}: dropping duplicate {} from {}", self, m, from);
            return;
        }
        receive(from, fromRank, m);
    }

    /**
     * Whether a member's message is well-formed enough to handle (its numbers in range): codecs refuse malformed
     * frames already, this covers drivers that pass messages without encoding them. Logs what it refuses.
     */
    protected abstract boolean admissible(NodeId from, M message);

    /** Runs for every admissible copy of a message, duplicates included. Nothing by default. */
    protected void beforeDuplicateCheck(NodeId from, M message) {}

    /** Handles the first copy of an admissible message from the member of rank {@code fromRank}. */
    protected abstract void receive(NodeId from, int fromRank, M message);

    /** The next message id of this incarnation. */
    protected final long nextId() {
        return nextMessageId++;
    }

    /** Sends a message to every other member, each under its own message id. */
    protected final void broadcast(LongFunction<? extends M> message) {
        for (NodeId member : peers.members()) {
            if (!member.equals(self)) {
                ctx.send(member, message.apply(nextId()));
            }
        }
    }

    /** Cancels every one of {@code timers}. */
    protected final void cancelAll(TimerKey[] timers) {
        for (TimerKey t : timers) {
            ctx.cancel(t);
        }
    }
}
