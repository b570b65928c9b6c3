package io.bellwether.bully;

import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.RankedMessage;

/**
 * The bully elector's messages. Each carries the sender's epoch (see {@link RankedEpoch}) and a message id
 * unique per sender; the sender itself is the transport's {@code from}, so every message carries {@code (type,
 * from, epoch, message id)}. Receivers drop duplicates by {@code (from, message id)}. Every request is
 * answered at the application level (a TCP write is not delivery): {@link Election} by {@link Ok}, {@link
 * Heartbeat} by {@link HeartbeatAck}, strict mode's {@link Halt}, {@link NewCoordinator} and {@link Ready} by
 * {@link Accepted} or {@link Refused}, the others by {@link Ack}; answers are not answered.
 *
 * <p>Strict mode (Garcia-Molina's Halt / NewCoordinator / Ready phases, see {@link StrictBullyElector}) replaces
 * {@link Coordinator} with those three; both modes share every other message and the codec.
 */
public sealed interface BullyMessage extends RankedMessage {
    /** The sender's current epoch; for {@link Coordinator} and {@link Heartbeat}, the epoch it leads. */
    long epoch();

    /** Unique per sender (never reused by the same process; a restarted process draws a new range). */
    long messageId();

    /** "I am electing; are you, higher than me, alive?" Sent to every higher member. */
    record Election(long epoch, long messageId) implements BullyMessage {}

    /** The answer to {@link Election}: a higher member is alive and takes over the election. */
    record Ok(long epoch, long messageId, long ackOf) implements BullyMessage {}

    /** The sender won an election and leads {@code epoch} (whose coordinator part names the sender). */
    record Coordinator(long epoch, long messageId) implements BullyMessage {}

    /** The coordinator of {@code epoch} is alive; sent every heartbeat interval to every member. */
    record Heartbeat(long epoch, long messageId) implements BullyMessage {}

    /** The answer to {@link Heartbeat}, carrying the follower's own epoch (higher if it follows someone else). */
    record HeartbeatAck(long epoch, long messageId, long ackOf) implements BullyMessage {}

    /** "Who coordinates?" Sent by a member that starts or recovers; the coordinator answers with a heartbeat. */
    record Query(long epoch, long messageId) implements BullyMessage {}

    /** The coordinator of {@code epoch} stops: its followers elect a successor at once. */
    record Resign(long epoch, long messageId) implements BullyMessage {}

    /** The answer to {@link Coordinator}, {@link Query} and {@link Resign}, carrying the answerer's epoch. */
    record Ack(long epoch, long messageId, long ackOf) implements BullyMessage {}

    /**
     * Strict mode: "stop acting on your coordinator; I will coordinate {@code epoch}" (whose coordinator part names
     * the sender). The receiver stops following (or leading) before it answers {@link Accepted}.
     */
    record Halt(long epoch, long messageId) implements BullyMessage {}

    /**
     * Strict mode: the sender coordinates {@code epoch}; sent only to members that accepted its {@link Halt} of the
     * same epoch. The receiver persists the epoch before it answers {@link Accepted}.
     */
    record NewCoordinator(long epoch, long messageId) implements BullyMessage {}

    /**
     * Strict mode: the go-ahead. Sent only to members that accepted {@link NewCoordinator} of {@code epoch}; the
     * receiver names the sender as its coordinator only now, and the sender acts as leader only after sending it.
     */
    record Ready(long epoch, long messageId) implements BullyMessage {}

    /** Strict mode: the receiver of {@code ackOf} acted on it; {@code epoch} is the receiver's adopted epoch. */
    record Accepted(long epoch, long messageId, long ackOf) implements BullyMessage {}

    /**
     * Strict mode: the receiver of {@code ackOf} refused it (a stale epoch, a live higher coordinator, a message
     * out of phase); {@code epoch} is the receiver's adopted epoch, so a sender with a stale counter learns it.
     */
    record Refused(long epoch, long messageId, long ackOf) implements BullyMessage {}
}
