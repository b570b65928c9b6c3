package io.bellwether.bully;

import io.bellwether.bully.BullyMessage.Accepted;
import io.bellwether.bully.BullyMessage.Ack;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Halt;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.bully.BullyMessage.HeartbeatAck;
import io.bellwether.bully.BullyMessage.NewCoordinator;
import io.bellwether.bully.BullyMessage.Ok;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.bully.BullyMessage.Ready;
import io.bellwether.bully.BullyMessage.Refused;
import io.bellwether.bully.BullyMessage.Resign;
import io.bellwether.elector.AbstractCodec;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.Wire;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The wire form of {@link BullyMessage}s: a stable type id per record and a fixed-size big-endian body.
 *
 * <table>
 *   <caption>Types and bodies</caption>
 *   <tr><th>type</th><th>message</th><th>body</th></tr>
 *   <tr><td>1</td><td>Election</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>2</td><td>Ok</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 *   <tr><td>3</td><td>Coordinator</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>4</td><td>Heartbeat</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>5</td><td>HeartbeatAck</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 *   <tr><td>6</td><td>Query</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>7</td><td>Resign</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>8</td><td>Ack</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 *   <tr><td>9</td><td>Halt (strict mode)</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>10</td><td>NewCoordinator (strict mode)</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>11</td><td>Ready (strict mode)</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>12</td><td>Accepted (strict mode)</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 *   <tr><td>13</td><td>Refused (strict mode)</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 * </table>
 *
 * <p>All fields are never negative on the wire, and an epoch's counter part ({@link RankedEpoch#counter}) is in
 * {@link Counters}' range; a body with a negative field, an epoch counter not below {@link Counters#LIMIT}, an
 * unknown type or a wrong length is refused with {@link MalformedMessageException}, and {@link #encode} refuses
 * to write one. Stateless and thread-safe.
 */
public final class BullyCodec extends AbstractCodec<BullyMessage> {
    /** The messages in wire-type order: a message's type is its place here, counting from 1. */
    private static final List<Class<?>> TYPES = List.of(
            Election.class,
            Ok.class,
            Coordinator.class,
            Heartbeat.class,
            HeartbeatAck.class,
            Query.class,
            Resign.class,
            Ack.class,
            Halt.class,
            NewCoordinator.class,
            Ready.class,
            Accepted.class,
            Refused.class);

    /** The one instance (declared after the table its constructor reads). */
    public static final BullyCodec INSTANCE = new BullyCodec();

    static final int ELECTION = 1;
    static final int OK = 2;
    static final int COORDINATOR = 3;
    static final int HEARTBEAT = 4;
    static final int HEARTBEAT_ACK = 5;
    static final int QUERY = 6;
    static final int RESIGN = 7;
    static final int ACK = 8;
    static final int HALT = 9;
    static final int NEW_COORDINATOR = 10;
    static final int READY = 11;
    static final int ACCEPTED = 12;
    static final int REFUSED = 13;

    private BullyCodec() {
        super(BullyMessage.class, TYPES, "a bully message");
    }

    @Override
    protected byte[] encodeBody(int type, BullyMessage m) {
        long ackOf = -1;
        if (m instanceof Ok o) {
            ackOf = o.ackOf();
        } else if (m instanceof HeartbeatAck h) {
            ackOf = h.ackOf();
        } else if (m instanceof Ack a) {
            ackOf = a.ackOf();
        } else if (m instanceof Accepted a) {
            ackOf = a.ackOf();
        } else if (m instanceof Refused r) {
            ackOf = r.ackOf();
        }
        ByteBuffer out = ByteBuffer.allocate(hasAckOf(type) ? 24 : 16);
        out.putLong(Wire.epoch(m.epoch(), m)).putLong(Wire.nonNegative("messageId", m.messageId(), m));
        if (hasAckOf(type)) {
            out.putLong(Wire.nonNegative("ackOf", ackOf, m));
        }
        return out.array();
    }

    @Override
    public ElectorMessage decode(int type, byte[] body) {
        if (type < ELECTION || type > REFUSED) {
            throw new MalformedMessageException(
                    "unknown bully message type " + type + ": allowed " + ELECTION + " to " + REFUSED);
        }
        if (body == null) {
            throw new MalformedMessageException("bully message type " + type + " has no body");
        }
        int expected = hasAckOf(type) ? 24 : 16;
        if (body.length != expected) {
            throw new MalformedMessageException(
                    "bully message type " + type + " has a body of " + body.length + " bytes: expected " + expected);
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        long epoch = Counters.decodedEpoch("bully message type " + type, "epoch", in.getLong());
        long id = read(type, "messageId", in);
        return switch (type) {
            case ELECTION -> new Election(epoch, id);
            case OK -> new Ok(epoch, id, read(type, "ackOf", in));
            case COORDINATOR -> new Coordinator(epoch, id);
            case HEARTBEAT -> new Heartbeat(epoch, id);
            case HEARTBEAT_ACK -> new HeartbeatAck(epoch, id, read(type, "ackOf", in));
            case QUERY -> new Query(epoch, id);
            case RESIGN -> new Resign(epoch, id);
            case ACK -> new Ack(epoch, id, read(type, "ackOf", in));
            case HALT -> new Halt(epoch, id);
            case NEW_COORDINATOR -> new NewCoordinator(epoch, id);
            case READY -> new Ready(epoch, id);
            case ACCEPTED -> new Accepted(epoch, id, read(type, "ackOf", in));
            default -> new Refused(epoch, id, read(type, "ackOf", in));
        };
    }

    private static boolean hasAckOf(int type) {
        return type == OK || type == HEARTBEAT_ACK || type == ACK || type == ACCEPTED || type == REFUSED;
    }

    private static long read(int type, String field, ByteBuffer in) {
        return Wire.readNonNegative(in, "bully message type " + type, field);
    }

    @Override
    public String toString() {
        return "BullyCodec";
    }
}
