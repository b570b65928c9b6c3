package io.bellwether.ring;

import io.bellwether.NodeId;
import io.bellwether.elector.AbstractCodec;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.Wire;
import io.bellwether.ring.RingMessage.Ack;
import io.bellwether.ring.RingMessage.Coordinator;
import io.bellwether.ring.RingMessage.Election;
import io.bellwether.ring.RingMessage.ElectionId;
import io.bellwether.ring.RingMessage.Heartbeat;
import io.bellwether.ring.RingMessage.HeartbeatAck;
import io.bellwether.ring.RingMessage.Query;
import io.bellwether.ring.RingMessage.Resign;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire form of {@link RingMessage}s: a stable type id per record and a compact big-endian body. A node id
 * is written as its UTF-8 length (1 byte) and bytes; a list of ids as its size (2 bytes, 1 to {@value
 * #MAX_IDS}) and the ids.
 *
 * <table>
 *   <caption>Types and bodies</caption>
 *   <tr><th>type</th><th>message</th><th>body</th></tr>
 *   <tr><td>1</td><td>Election</td><td>epoch (8), messageId (8), origin (id), sequence (8), maxCounter (8), ids</td></tr>
 *   <tr><td>2</td><td>Coordinator</td><td>epoch (8), messageId (8), origin (id), sequence (8), leader (id), ids</td></tr>
 *   <tr><td>3</td><td>Ack</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 *   <tr><td>4</td><td>Heartbeat</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>5</td><td>HeartbeatAck</td><td>epoch (8), messageId (8), ackOf (8)</td></tr>
 *   <tr><td>6</td><td>Query</td><td>epoch (8), messageId (8)</td></tr>
 *   <tr><td>7</td><td>Resign</td><td>epoch (8), messageId (8)</td></tr>
 * </table>
 *
 * <p>Numbers are never negative on the wire; the epoch's counter part ({@link RankedEpoch#counter}) and {@code
 * maxCounter} are in {@link Counters}' range. A negative number, a counter not below {@link Counters#LIMIT}, an
 * unknown type, a truncated body, trailing bytes, an invalid node id or an empty or over-long id list is refused
 * with {@link MalformedMessageException}, and {@link #encode} refuses to write one.
 * Stateless and thread-safe.
 */
public final class RingCodec extends AbstractCodec<RingMessage> {
    /** The messages in wire-type order: a message's type is its place here, counting from 1. */
    private static final List<Class<?>> TYPES = List.of(
            Election.class,
            Coordinator.class,
            Ack.class,
            Heartbeat.class,
            HeartbeatAck.class,
            Query.class,
            Resign.class);

    /** The one instance (declared after the table its constructor reads). */
    public static final RingCodec INSTANCE = new RingCodec();

    /** The longest id list on the wire (the largest group an epoch can encode). */
    public static final int MAX_IDS = RankedEpoch.MAX_MEMBERS;

    static final int ELECTION = 1;
    static final int COORDINATOR = 2;
    static final int ACK = 3;
    static final int HEARTBEAT = 4;
    static final int HEARTBEAT_ACK = 5;
    static final int QUERY = 6;
    static final int RESIGN = 7;

    private RingCodec() {
        super(RingMessage.class, TYPES, "a ring message");
    }

    @Override
    protected byte[] encodeBody(int type, RingMessage m) {
        Out out = new Out();
        out.number(m, "epoch", Wire.epoch(m.epoch(), m));
        out.number(m, "messageId", m.messageId());
        if (m instanceof Election e) {
            out.id(e.election().origin());
            out.number(m, "sequence", e.election().sequence());
            out.number(m, "maxCounter", Counters.checked("maxCounter", m, e.maxCounter()));
            out.ids(m, e.ids());
        } else if (m instanceof Coordinator c) {
            out.id(c.election().origin());
            out.number(m, "sequence", c.election().sequence());
            out.id(c.leader());
            out.ids(m, c.ids());
        } else if (m instanceof Ack a) {
            out.number(m, "ackOf", a.ackOf());
        } else if (m instanceof HeartbeatAck a) {
            out.number(m, "ackOf", a.ackOf());
        }
        return out.bytes.toByteArray();
    }

    @Override
    public ElectorMessage decode(int type, byte[] body) {
        if (type < ELECTION || type > RESIGN) {
            throw new MalformedMessageException("unknown ring message type " + type + ": allowed 1 to 7");
        }
        if (body == null) {
            throw new MalformedMessageException("ring message type " + type + " has no body");
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        ElectorMessage message;
        try {
            long epoch = Counters.decodedEpoch("ring message type " + type, "epoch", in.getLong());
            long id = number(type, "messageId", in);
            message = switch (type) {
                case ELECTION -> {
                    NodeId origin = id(type, in);
                    long sequence = number(type, "sequence", in);
                    long maxCounter = Counters.decoded("ring message type " + type, "maxCounter", in.getLong());
                    yield new Election(epoch, id, new ElectionId(origin, sequence), maxCounter, ids(type, in));
                }
                case COORDINATOR -> {
                    NodeId origin = id(type, in);
                    long sequence = number(type, "sequence", in);
                    NodeId leader = id(type, in);
                    yield new Coordinator(epoch, id, new ElectionId(origin, sequence), leader, ids(type, in));
                }
                case ACK -> new Ack(epoch, id, number(type, "ackOf", in));
                case HEARTBEAT -> new Heartbeat(epoch, id);
                case HEARTBEAT_ACK -> new HeartbeatAck(epoch, id, number(type, "ackOf", in));
                case QUERY -> new Query(epoch, id);
                default -> new Resign(epoch, id);
            };
        } catch (BufferUnderflowException e) {
            throw new MalformedMessageException(
                    "ring message type " + type + " is truncated: " + body.length + " bytes", e);
        }
        if (in.hasRemaining()) {
            throw new MalformedMessageException(
                    "ring message type " + type + " has " + in.remaining() + " trailing bytes");
        }
        return message;
    }

    private static long number(int type, String field, ByteBuffer in) {
        return Wire.readNonNegative(in, "ring message type " + type, field);
    }

    private static NodeId id(int type, ByteBuffer in) {
        int length = in.get() & 0xFF;
        if (length == 0 || length > in.remaining()) {
            throw new MalformedMessageException("ring message type " + type + " has a node id of length " + length
                    + " with " + in.remaining() + " bytes left");
        }
        return Wire.readIdBytes(in, length, "ring message type " + type, "node id");
    }

    private static List<NodeId> ids(int type, ByteBuffer in) {
        int count = in.getShort() & 0xFFFF;
        if (count < 1 || count > MAX_IDS) {
            throw new MalformedMessageException(
                    "ring message type " + type + " lists " + count + " ids: allowed 1 to " + MAX_IDS);
        }
        List<NodeId> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(id(type, in));
        }
        return ids;
    }

    /** A growing big-endian body. */
    private static final class Out {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);

        void number(RingMessage m, String field, long value) {
            Wire.putLong(bytes, Wire.nonNegative(field, value, m));
        }

        void id(NodeId id) {
            Wire.putId(bytes, id);
        }

        void ids(RingMessage m, List<NodeId> ids) {
            if (ids.isEmpty() || ids.size() > MAX_IDS) {
                throw new IllegalArgumentException(
                        "ids of " + m + " has " + ids.size() + " entries: allowed 1 to " + MAX_IDS);
            }
            Wire.putCount(bytes, ids.size());
            ids.forEach(this::id);
        }
    }

    @Override
    public String toString() {
        return "RingCodec";
    }
}
