package io.bellwether.invitation;

import io.bellwether.NodeId;
import io.bellwether.elector.AbstractCodec;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.Wire;
import io.bellwether.invitation.InvitationMessage.Accept;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinator;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinatorAnswer;
import io.bellwether.invitation.InvitationMessage.AreYouThere;
import io.bellwether.invitation.InvitationMessage.AreYouThereAnswer;
import io.bellwether.invitation.InvitationMessage.Invitation;
import io.bellwether.invitation.InvitationMessage.Ready;
import io.bellwether.invitation.InvitationMessage.ReadyAck;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire form of {@link InvitationMessage}s: a stable type id per record and a compact big-endian body.
 * Every body starts with the common header {@code from (id), group counter (8), group coordinator (id),
 * messageId (8)}, where an id is a length byte (1–64) and that many UTF-8 bytes.
 *
 * <table>
 *   <caption>Types and what follows the header</caption>
 *   <tr><th>type</th><th>message</th><th>rest of the body</th></tr>
 *   <tr><td>1</td><td>AreYouCoordinator</td><td>nothing</td></tr>
 *   <tr><td>2</td><td>AreYouCoordinatorAnswer</td><td>inReplyTo (8), coordinator (1: 0 or 1)</td></tr>
 *   <tr><td>3</td><td>AreYouThere</td><td>nothing</td></tr>
 *   <tr><td>4</td><td>AreYouThereAnswer</td><td>inReplyTo (8), yes (1: 0 or 1)</td></tr>
 *   <tr><td>5</td><td>Invitation</td><td>nothing</td></tr>
 *   <tr><td>6</td><td>Accept</td><td>inReplyTo (8)</td></tr>
 *   <tr><td>7</td><td>Ready</td><td>member count (2), then that many ids</td></tr>
 *   <tr><td>8</td><td>ReadyAck</td><td>inReplyTo (8)</td></tr>
 * </table>
 *
 * <p>Counters and message ids are never negative on the wire; a body with a negative one, a group counter out
 * of {@link Counters}' range (not below {@link Counters#LIMIT}, that is above {@link GroupNumber#MAX_COUNTER}), an
 * unknown type, a truncated body, trailing bytes, a bad flag byte or an
 * invalid node id is refused with {@link MalformedMessageException}, and nothing else is thrown. Stateless and
 * thread-safe.
 */
public final class InvitationCodec extends AbstractCodec<InvitationMessage> {
    /** The messages in wire-type order: a message's type is its place here, counting from 1. */
    private static final List<Class<?>> TYPES = List.of(
            AreYouCoordinator.class,
            AreYouCoordinatorAnswer.class,
            AreYouThere.class,
            AreYouThereAnswer.class,
            Invitation.class,
            Accept.class,
            Ready.class,
            ReadyAck.class);

    /** The one instance (declared after the table its constructor reads). */
    public static final InvitationCodec INSTANCE = new InvitationCodec();

    static final int ARE_YOU_COORDINATOR = 1;
    static final int ARE_YOU_COORDINATOR_ANSWER = 2;
    static final int ARE_YOU_THERE = 3;
    static final int ARE_YOU_THERE_ANSWER = 4;
    static final int INVITATION = 5;
    static final int ACCEPT = 6;
    static final int READY = 7;
    static final int READY_ACK = 8;

    /** How many low bits of an invitation epoch hold the coordinator's rank (see {@link InvitationElector}). */
    static final int RANK_BITS = 16;

    /** More members than an epoch can rank (see {@link InvitationElector}). */
    static final int MAX_MEMBERS = 1 << RANK_BITS;

    private InvitationCodec() {
        super(InvitationMessage.class, TYPES, "an invitation message");
    }

    @Override
    protected byte[] encodeBody(int type, InvitationMessage m) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        putId(out, m.from());
        putLong(out, m.group().counter());
        putId(out, m.group().coordinator());
        putLong(out, nonNegative("messageId", m.messageId()));
        switch (type) {
            case ARE_YOU_COORDINATOR, ARE_YOU_THERE, INVITATION -> {}
            case ARE_YOU_COORDINATOR_ANSWER -> {
                AreYouCoordinatorAnswer a = (AreYouCoordinatorAnswer) m;
                putLong(out, nonNegative("inReplyTo", a.inReplyTo()));
                out.write(a.coordinator() ? 1 : 0);
            }
            case ARE_YOU_THERE_ANSWER -> {
                AreYouThereAnswer a = (AreYouThereAnswer) m;
                putLong(out, nonNegative("inReplyTo", a.inReplyTo()));
                out.write(a.yes() ? 1 : 0);
            }
            case ACCEPT -> putLong(out, nonNegative("inReplyTo", ((Accept) m).inReplyTo()));
            case READY_ACK -> putLong(out, nonNegative("inReplyTo", ((ReadyAck) m).inReplyTo()));
            case READY -> {
                List<NodeId> members = ((Ready) m).members();
                if (members.size() >= MAX_MEMBERS) {
                    throw new IllegalArgumentException(
                            "Ready lists " + members.size() + " members: allowed at most " + (MAX_MEMBERS - 1));
                }
                Wire.putCount(out, members.size());
                members.forEach(id -> Wire.putId(out, id));
            }
            default -> throw new IllegalStateException("unhandled type " + type);
        }
        return out.toByteArray();
    }

    @Override
    public ElectorMessage decode(int type, byte[] body) {
        if (body == null) {
            throw new MalformedMessageException("invitation message type " + type + " has no body");
        }
        if (type < ARE_YOU_COORDINATOR || type > READY_ACK) {
            throw new MalformedMessageException("unknown invitation message type " + type + ": allowed 1 to 8");
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            NodeId from = id(type, "from", in);
            long counter = Counters.decoded("invitation message type " + type, "group counter", in.getLong());
            GroupNumber group = new GroupNumber(counter, id(type, "group coordinator", in));
            long messageId = nonNegativeLong(type, "messageId", in);
            InvitationMessage message =
                    switch (type) {
                        case ARE_YOU_COORDINATOR -> new AreYouCoordinator(from, group, messageId);
                        case ARE_YOU_COORDINATOR_ANSWER -> new AreYouCoordinatorAnswer(
                                from, group, messageId, nonNegativeLong(type, "inReplyTo", in), flag(type, in));
                        case ARE_YOU_THERE -> new AreYouThere(from, group, messageId);
                        case ARE_YOU_THERE_ANSWER -> new AreYouThereAnswer(
                                from, group, messageId, nonNegativeLong(type, "inReplyTo", in), flag(type, in));
                        case INVITATION -> new Invitation(from, group, messageId);
                        case ACCEPT -> new Accept(from, group, messageId, nonNegativeLong(type, "inReplyTo", in));
                        case READY -> new Ready(from, group, messageId, members(type, in));
                        case READY_ACK -> new ReadyAck(from, group, messageId, nonNegativeLong(type, "inReplyTo", in));
                        default -> throw new IllegalStateException("unhandled type " + type);
                    };
            if (in.hasRemaining()) {
                throw new MalformedMessageException("invitation message type " + type + " has " + in.remaining()
                        + " trailing bytes after a complete " + message.type());
            }
            return message;
        } catch (BufferUnderflowException e) {
            throw new MalformedMessageException(
                    "invitation message type " + type + " is truncated (" + body.length + " bytes)", e);
        }
    }

    private static List<NodeId> members(int type, ByteBuffer in) {
        int count = ((in.get() & 0xFF) << 8) | (in.get() & 0xFF);
        // Every id takes at least two bytes: refuse an impossible count before allocating for it.
        if (count * 2L > in.remaining()) {
            throw new MalformedMessageException(
                    "invitation message type " + type + " lists " + count + " members in " + in.remaining() + " bytes");
        }
        List<NodeId> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(id(type, "member", in));
        }
        return members;
    }

    private static boolean flag(int type, ByteBuffer in) {
        byte b = in.get();
        if (b != 0 && b != 1) {
            throw new MalformedMessageException(
                    "invitation message type " + type + " has flag byte " + b + ": allowed 0 or 1");
        }
        return b == 1;
    }

    private static NodeId id(int type, String field, ByteBuffer in) {
        int length = in.get() & 0xFF;
        if (length < 1 || length > 64) {
            throw new MalformedMessageException(
                    "invitation message type " + type + " has " + field + " length " + length + ": allowed 1 to 64");
        }
        if (in.remaining() < length) {
            throw new MalformedMessageException("invitation message type " + type + " has " + field + " of " + length
                    + " bytes but only " + in.remaining() + " remain");
        }
        return Wire.readIdBytes(in, length, "invitation message type " + type, field);
    }

    private static long nonNegativeLong(int type, String field, ByteBuffer in) {
        return Wire.readNonNegative(in, "invitation message type " + type, field);
    }

    private static void putId(ByteArrayOutputStream out, NodeId id) {
        Wire.putId(out, id);
    }

    private static void putLong(ByteArrayOutputStream out, long value) {
        Wire.putLong(out, value);
    }

    private static long nonNegative(String field, long value) {
        return Wire.nonNegative(field, value, null);
    }

    @Override
    public String toString() {
        return "InvitationCodec";
    }
}
