package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.AbstractCodec;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.Priorities;
import io.bellwether.elector.Wire;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
import io.bellwether.quorum.QuorumMessage.HandoverReady;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.bellwether.quorum.QuorumMessage.StandbyConfirm;
import io.bellwether.quorum.QuorumMessage.StandbyReady;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import io.bellwether.quorum.QuorumMessage.StandbyRound;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The wire form of {@link QuorumMessage}s: a stable type id per record and a compact big-endian body.
 *
 * <table>
 *   <caption>Types and bodies</caption>
 *   <tr><th>type</th><th>message</th><th>body</th></tr>
 *   <tr><td>1</td><td>ScoutingRequest</td><td>term (8)</td></tr>
 *   <tr><td>2</td><td>ScoutingResponse</td><td>term (8), willVote (1: 0 or 1), responderTerm (8)</td></tr>
 *   <tr><td>3</td><td>ElectionProposal</td><td>term (8), transferFrom length (1), transferFrom UTF-8</td></tr>
 *   <tr><td>4</td><td>ElectionResponse</td><td>term (8)</td></tr>
 *   <tr><td>5</td><td>Heartbeat</td><td>term (8), sequence (8)</td></tr>
 *   <tr><td>6</td><td>HeartbeatResponse</td><td>term (8), sequence (8), priority (4, only when not 0)</td></tr>
 *   <tr><td>7</td><td>LeadershipCession</td><td>term (8), successor length (1; 0 = none), successor (UTF-8)</td></tr>
 *   <tr><td>8</td><td>HandoverRequest</td><td>term (8)</td></tr>
 *   <tr><td>9</td><td>HandoverReady</td><td>term (8)</td></tr>
 *   <tr><td>10</td><td>StandbyRequest</td><td>term (8), pledgeTerm (8)</td></tr>
 *   <tr><td>11</td><td>StandbyRound</td><td>term (8), pledgeTerm (8), sequence (8)</td></tr>
 *   <tr><td>12</td><td>StandbyConfirm</td><td>term (8), pledgeTerm (8), sequence (8)</td></tr>
 *   <tr><td>13</td><td>StandbyReady</td><td>term (8), pledgeTerm (8)</td></tr>
 * </table>
 *
 * <p>Terms and sequences are counters in {@link Counters}' range on the wire: a body with one that is negative
 * or not below {@link Counters#LIMIT}, an unknown type, a wrong length, trailing bytes or an invalid node id is
 * refused with {@link MalformedMessageException}, and {@link #encode} refuses to write one.
 * Stateless and thread-safe.
 */
public final class QuorumCodec extends AbstractCodec<QuorumMessage> {
    /** The messages in wire-type order: a message's type is its place here, counting from 1. */
    private static final List<Class<?>> TYPES = List.of(
            ScoutingRequest.class,
            ScoutingResponse.class,
            ElectionProposal.class,
            ElectionResponse.class,
            Heartbeat.class,
            HeartbeatResponse.class,
            LeadershipCession.class,
            HandoverRequest.class,
            HandoverReady.class,
            StandbyRequest.class,
            StandbyRound.class,
            StandbyConfirm.class,
            StandbyReady.class);

    /** The one instance (declared after the table its constructor reads). */
    public static final QuorumCodec INSTANCE = new QuorumCodec();

    static final int SCOUTING_REQUEST = 1;
    static final int SCOUTING_RESPONSE = 2;
    static final int ELECTION_PROPOSAL = 3;
    static final int ELECTION_RESPONSE = 4;
    static final int HEARTBEAT = 5;
    static final int HEARTBEAT_RESPONSE = 6;
    static final int LEADERSHIP_CESSION = 7;
    static final int HANDOVER_REQUEST = 8;
    static final int HANDOVER_READY = 9;
    static final int STANDBY_REQUEST = 10;
    static final int STANDBY_ROUND = 11;
    static final int STANDBY_CONFIRM = 12;
    static final int STANDBY_READY = 13;

    private QuorumCodec() {
        super(QuorumMessage.class, TYPES, "a quorum message");
    }

    @Override
    protected byte[] encodeBody(int type, QuorumMessage m) {
        Counters.checked("term", m, m.term());
        return switch (type) {
            case ELECTION_PROPOSAL -> termAndOptionalId(m.term(), ((ElectionProposal) m).transferFrom());
            case LEADERSHIP_CESSION -> termAndOptionalId(m.term(), ((LeadershipCession) m).successor());
            case SCOUTING_REQUEST, ELECTION_RESPONSE, HANDOVER_REQUEST, HANDOVER_READY -> longs(m.term());
            case SCOUTING_RESPONSE -> {
                ScoutingResponse r = (ScoutingResponse) m;
                yield ByteBuffer.allocate(17)
                        .putLong(r.term())
                        .put((byte) (r.willVote() ? 1 : 0))
                        .putLong(nonNegative("responderTerm", r.responderTerm()))
                        .array();
            }
                // A term and a sequence, or a term and a pledge term.
            case HEARTBEAT -> longs(m.term(), nonNegative("sequence", ((Heartbeat) m).sequence()));
            case HEARTBEAT_RESPONSE -> {
                HeartbeatResponse r = (HeartbeatResponse) m;
                byte[] termAndSequence = longs(r.term(), nonNegative("sequence", r.sequence()));
                // Priority 0 is left out, so that a group without priorities speaks the format older members read.
                yield r.priority() == 0
                        ? termAndSequence
                        : ByteBuffer.allocate(20)
                                .put(termAndSequence)
                                .putInt(Priorities.checked(r.priority()))
                                .array();
            }
            case STANDBY_REQUEST -> longs(m.term(), nonNegative("pledgeTerm", ((StandbyRequest) m).pledgeTerm()));
            case STANDBY_READY -> longs(m.term(), nonNegative("pledgeTerm", ((StandbyReady) m).pledgeTerm()));
            case STANDBY_ROUND -> {
                StandbyRound r = (StandbyRound) m;
                yield longs(r.term(), nonNegative("pledgeTerm", r.pledgeTerm()), nonNegative("sequence", r.sequence()));
            }
            case STANDBY_CONFIRM -> {
                StandbyConfirm c = (StandbyConfirm) m;
                yield longs(c.term(), nonNegative("pledgeTerm", c.pledgeTerm()), nonNegative("sequence", c.sequence()));
            }
            default -> throw new IllegalStateException("unhandled type " + type);
        };
    }

    @Override
    public ElectorMessage decode(int type, byte[] body) {
        if (body == null) {
            throw new MalformedMessageException("quorum message type " + type + " has no body");
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        ElectorMessage message =
                switch (type) {
                    case SCOUTING_REQUEST -> new ScoutingRequest(term(type, in, 8));
                    case ELECTION_PROPOSAL -> {
                        long term = termBeforeOptionalId("ElectionProposal", type, body, in);
                        yield new ElectionProposal(term, optionalId(in));
                    }
                    case ELECTION_RESPONSE -> new ElectionResponse(term(type, in, 8));
                    case HANDOVER_REQUEST -> new HandoverRequest(term(type, in, 8));
                    case HANDOVER_READY -> new HandoverReady(term(type, in, 8));
                    case SCOUTING_RESPONSE -> {
                        long term = term(type, in, 17);
                        byte willVote = in.get();
                        if (willVote != 0 && willVote != 1) {
                            throw new MalformedMessageException(
                                    "ScoutingResponse willVote byte is " + willVote + ": allowed 0 or 1");
                        }
                        yield new ScoutingResponse(term, willVote == 1, nonNegativeLong(type, "responderTerm", in));
                    }
                    case HEARTBEAT -> new Heartbeat(term(type, in, 16), nonNegativeLong(type, "sequence", in));
                    case HEARTBEAT_RESPONSE -> {
                        long term = term(type, in, body.length == 20 ? 20 : 16);
                        long sequence = nonNegativeLong(type, "sequence", in);
                        yield new HeartbeatResponse(term, sequence, body.length == 20 ? priority(in) : 0);
                    }
                    case LEADERSHIP_CESSION -> {
                        long term = termBeforeOptionalId("LeadershipCession", type, body, in);
                        yield new LeadershipCession(term, optionalId(in));
                    }
                    case STANDBY_REQUEST -> new StandbyRequest(
                            term(type, in, 16), nonNegativeLong(type, "pledgeTerm", in));
                    case STANDBY_READY -> new StandbyReady(term(type, in, 16), nonNegativeLong(type, "pledgeTerm", in));
                    case STANDBY_ROUND -> new StandbyRound(
                            term(type, in, 24),
                            nonNegativeLong(type, "pledgeTerm", in),
                            nonNegativeLong(type, "sequence", in));
                    case STANDBY_CONFIRM -> new StandbyConfirm(
                            term(type, in, 24),
                            nonNegativeLong(type, "pledgeTerm", in),
                            nonNegativeLong(type, "sequence", in));
                    default -> throw new MalformedMessageException(
                            "unknown quorum message type " + type + ": allowed 1 to 13");
                };
        return message;
    }

    /**
     * Whether every term, pledge term and sequence of {@code m} is in {@link Counters}' range, and a priority in
     * {@link Priorities}' range: what {@link
     * #decode} accepts. Electors check it too, for drivers that pass messages without encoding them.
     */
    static boolean countersInRange(QuorumMessage m) {
        if (!Counters.inRange(m.term())) {
            return false;
        }
        if (m instanceof ScoutingResponse r) {
            return Counters.inRange(r.responderTerm());
        } else if (m instanceof Heartbeat h) {
            return Counters.inRange(h.sequence());
        } else if (m instanceof HeartbeatResponse h) {
            return Counters.inRange(h.sequence()) && h.priority() >= Priorities.MIN && h.priority() <= Priorities.MAX;
        } else if (m instanceof StandbyRequest r) {
            return Counters.inRange(r.pledgeTerm());
        } else if (m instanceof StandbyReady r) {
            return Counters.inRange(r.pledgeTerm());
        } else if (m instanceof StandbyRound r) {
            return Counters.inRange(r.pledgeTerm()) && Counters.inRange(r.sequence());
        } else if (m instanceof StandbyConfirm c) {
            return Counters.inRange(c.pledgeTerm()) && Counters.inRange(c.sequence());
        }
        return true;
    }

    private static byte[] longs(long... values) {
        ByteBuffer out = ByteBuffer.allocate(8 * values.length);
        for (long v : values) {
            out.putLong(v);
        }
        return out.array();
    }

    private static byte[] termAndOptionalId(long term, Optional<NodeId> id) {
        byte[] bytes = id.map(n -> n.value().getBytes(StandardCharsets.UTF_8)).orElse(new byte[0]);
        return ByteBuffer.allocate(9 + bytes.length)
                .putLong(term)
                .put((byte) bytes.length)
                .put(bytes)
                .array();
    }

    /** Checks the length of a term-plus-optional-id body and reads its term, leaving the id's length next. */
    private static long termBeforeOptionalId(String name, int type, byte[] body, ByteBuffer in) {
        if (body.length < 9) {
            throw new MalformedMessageException(
                    name + " body is " + body.length + " bytes: at least 9 needed (term and id length)");
        }
        long term = nonNegativeLong(type, "term", in);
        int length = body[8] & 0xFF;
        if (body.length != 9 + length) {
            throw new MalformedMessageException(
                    name + " body is " + body.length + " bytes but its id length says " + (9 + length));
        }
        return term;
    }

    private static Optional<NodeId> optionalId(ByteBuffer in) {
        int length = in.get() & 0xFF;
        return length == 0 ? Optional.empty() : Optional.of(nodeId(in));
    }

    /** Checks the body length for a fixed-size type and reads its leading term. */
    private static long term(int type, ByteBuffer in, int expectedLength) {
        if (in.remaining() != expectedLength) {
            throw new MalformedMessageException("quorum message type " + type + " has a body of " + in.remaining()
                    + " bytes: expected " + expectedLength);
        }
        return nonNegativeLong(type, "term", in);
    }

    /** A responder's priority: in {@link Priorities}' range, and never 0 on the wire (0 is left out). */
    private static int priority(ByteBuffer in) {
        int value = in.getInt();
        if (value == 0 || value < Priorities.MIN || value > Priorities.MAX) {
            throw new MalformedMessageException("HeartbeatResponse priority is " + value + ": allowed " + Priorities.MIN
                    + " to " + Priorities.MAX + ", not 0 (a priority of 0 is left out)");
        }
        return value;
    }

    private static long nonNegativeLong(int type, String field, ByteBuffer in) {
        return Counters.decoded("quorum message type " + type, field, in.getLong());
    }

    private static NodeId nodeId(ByteBuffer in) {
        String text;
        try {
            text = Wire.strictUtf8(in);
        } catch (CharacterCodingException e) {
            throw new MalformedMessageException("node id is not valid UTF-8", e);
        }
        try {
            return new NodeId(text);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("LeadershipCession successor: " + e.getMessage(), e);
        }
    }

    private static long nonNegative(String field, long value) {
        return Counters.checked(field, value);
    }

    @Override
    public String toString() {
        return "QuorumCodec";
    }
}
