package io.bellwether.ring;

import io.bellwether.NodeId;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.RankedMessage;
import java.util.List;
import java.util.Objects;

/**
 * The ring elector's messages. Each carries the sender's epoch (see {@link RankedEpoch}) and a message id
 * unique per sender; the sender itself is the transport's {@code from}, so every message carries {@code (type,
 * from, epoch, message id)}. Receivers drop duplicates by {@code (from, message id)}, but still acknowledge
 * them: a retransmission means the acknowledgement was lost. {@link Election} and {@link Coordinator} travel
 * hop by hop and each hop is acknowledged with {@link Ack}; {@link Query} and {@link Resign} are answered with
 * {@link Ack}, {@link Heartbeat} with {@link HeartbeatAck}; answers are not answered.
 */
public sealed interface RingMessage extends RankedMessage {
    /** The sender's current epoch; for {@link Coordinator}, the announced epoch; for {@link Heartbeat}, the led one. */
    long epoch();

    /** Unique per sender (a retransmission keeps its id; a restarted process draws a new range). */
    long messageId();

    /** Names one election: its originator and a number unique to that originator's incarnation. */
    record ElectionId(NodeId origin, long sequence) {
        public ElectionId {
            Objects.requireNonNull(origin, "origin");
        }

        @Override
        public String toString() {
            return origin + "#" + Long.toHexString(sequence);
        }
    }

    /**
     * An election circulating the ring. {@code ids} are the live members it has passed, in ring order from the
     * originator; {@code maxCounter} the highest epoch counter any of them knew, so that the epoch it ends in is
     * above every epoch they adopted.
     */
    record Election(long epoch, long messageId, ElectionId election, long maxCounter, List<NodeId> ids)
            implements RingMessage {
        public Election {
            Objects.requireNonNull(election, "election");
            ids = List.copyOf(ids);
        }
    }

    /**
     * The result of {@code election}, circulating the ring once: {@code leader} = the greatest of {@code ids}
     * leads {@code epoch}.
     */
    record Coordinator(long epoch, long messageId, ElectionId election, NodeId leader, List<NodeId> ids)
            implements RingMessage {
        public Coordinator {
            Objects.requireNonNull(election, "election");
            Objects.requireNonNull(leader, "leader");
            ids = List.copyOf(ids);
        }
    }

    /** The acknowledgement of one hop of an election or announcement, or of a query or resignation. */
    record Ack(long epoch, long messageId, long ackOf) implements RingMessage {}

    /** The coordinator of {@code epoch} is alive; sent every heartbeat interval to every member. */
    record Heartbeat(long epoch, long messageId) implements RingMessage {}

    /** The answer to {@link Heartbeat}, carrying the follower's own epoch. */
    record HeartbeatAck(long epoch, long messageId, long ackOf) implements RingMessage {}

    /** "Who coordinates?" Sent by a member that starts or recovers; the coordinator answers with a heartbeat. */
    record Query(long epoch, long messageId) implements RingMessage {}

    /** The coordinator of {@code epoch} stops: its followers elect a successor at once. */
    record Resign(long epoch, long messageId) implements RingMessage {}
}
