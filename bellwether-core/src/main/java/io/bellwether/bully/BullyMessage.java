package io.bellwether.bully;

import io.bellwether.elector.ElectorMessage;

/**
 * The bully elector's messages. Each carries the sender's epoch (see {@link BullyEpoch}) and a message id
 * unique per sender; the sender itself is the transport's {@code from}, so every message carries {@code (type,
 * from, epoch, message id)}. Receivers drop duplicates by {@code (from, message id)}. Every request is
 * answered at the application level (a TCP write is not delivery): {@link Election} by {@link Ok}, {@link
 * Heartbeat} by {@link HeartbeatAck}, the others by {@link Ack}; answers are not answered.
 */
public sealed interface BullyMessage extends ElectorMessage {
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
}
