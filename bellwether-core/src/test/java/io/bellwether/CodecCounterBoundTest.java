package io.bellwether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.bully.BullyCodec;
import io.bellwether.bully.BullyMessage;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.MessageCodec;
import io.bellwether.invitation.GroupNumber;
import io.bellwether.invitation.InvitationCodec;
import io.bellwether.invitation.InvitationMessage;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage;
import io.bellwether.ring.RingCodec;
import io.bellwether.ring.RingMessage;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every codec refuses a well-formed body whose term, counter, epoch counter or sequence is out of {@link
 * Counters}' range, as a {@link MalformedMessageException} (the transport drops and counts the frame), and
 * accepts the last value of the range. Each case overwrites one 8-byte field of a valid body.
 */
class CodecCounterBoundTest {
    private static final NodeId N1 = NodeId.of("n1");

    /**
     * One field of one message: the codec, a valid message, the field's byte offset in its body, and what a
     * counter of the field's value is packed into (1 for plain counters, 2^10 for bully and ring epochs).
     */
    record Field(MessageCodec codec, ElectorMessage message, String field, int offset, long scale) {
        @Override
        public String toString() {
            return message.type() + "." + field;
        }
    }

    static List<Field> fields() {
        long epoch = 1L << Counters.EPOCH_RANK_BITS;
        QuorumCodec q = QuorumCodec.INSTANCE;
        RingMessage.ElectionId eid = new RingMessage.ElectionId(N1, 5);
        return List.of(
                new Field(q, new QuorumMessage.ScoutingRequest(3), "term", 0, 1),
                new Field(q, new QuorumMessage.ScoutingResponse(3, true, 2), "responderTerm", 9, 1),
                new Field(q, new QuorumMessage.ElectionProposal(3, Optional.of(N1)), "term", 0, 1),
                new Field(q, new QuorumMessage.ElectionResponse(3), "term", 0, 1),
                new Field(q, new QuorumMessage.Heartbeat(3, 4), "term", 0, 1),
                new Field(q, new QuorumMessage.Heartbeat(3, 4), "sequence", 8, 1),
                new Field(q, new QuorumMessage.HeartbeatResponse(3, 4), "term", 0, 1),
                new Field(q, new QuorumMessage.LeadershipCession(3, Optional.empty()), "term", 0, 1),
                new Field(q, new QuorumMessage.StandbyRequest(3, 5), "pledgeTerm", 8, 1),
                new Field(q, new QuorumMessage.StandbyRound(3, 5, 6), "sequence", 16, 1),
                new Field(BullyCodec.INSTANCE, new BullyMessage.Coordinator(epoch, 9), "epoch", 0, epoch),
                new Field(BullyCodec.INSTANCE, new BullyMessage.Ok(epoch, 9, 8), "epoch", 0, epoch),
                new Field(RingCodec.INSTANCE, new RingMessage.Heartbeat(epoch, 9), "epoch", 0, epoch),
                new Field(
                        RingCodec.INSTANCE,
                        new RingMessage.Election(epoch, 9, eid, 3, List.of(N1)),
                        "maxCounter",
                        16 + 1 + 2 + 8,
                        1),
                new Field(
                        InvitationCodec.INSTANCE,
                        new InvitationMessage.AreYouCoordinator(N1, new GroupNumber(3, N1), 9),
                        "group counter",
                        1 + 2,
                        1));
    }

    static Stream<Arguments> extremes() {
        return fields().stream().flatMap(f -> Stream.of(
                        Long.MAX_VALUE,
                        Long.MAX_VALUE - 1,
                        Counters.LIMIT * f.scale(),
                        (Counters.LIMIT + 1) * f.scale(),
                        -1L,
                        Long.MIN_VALUE)
                .map(v -> Arguments.of(f, v)));
    }

    private static byte[] withField(Field f, long value) {
        byte[] body = f.codec().encode(f.message());
        ByteBuffer.wrap(body).putLong(f.offset(), value);
        return body;
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("extremes")
    void aFieldOutOfRangeIsAMalformedMessage(Field f, long value) {
        int type = f.codec().typeOf(f.message());
        assertThatThrownBy(() -> f.codec().decode(type, withField(f, value)))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining(f.field())
                .hasMessageContaining("allowed 0 to " + (Counters.LIMIT - 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fields")
    void theLastValueOfTheRangeIsAccepted(Field f) {
        int type = f.codec().typeOf(f.message());
        // The original body decodes to the message; the last counter of the range is accepted too.
        assertThat(f.codec().decode(type, f.codec().encode(f.message()))).isEqualTo(f.message());
        long last = (Counters.LIMIT - 1) * f.scale();
        ElectorMessage decoded = f.codec().decode(type, withField(f, last));
        assertThat(f.codec().encode(decoded)).isEqualTo(withField(f, last));
    }
}
