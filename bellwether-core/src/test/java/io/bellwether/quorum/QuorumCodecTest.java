package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
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
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QuorumCodecTest {
    private final QuorumCodec codec = QuorumCodec.INSTANCE;

    private static List<QuorumMessage> everyMessage() {
        return List.of(
                new ScoutingRequest(7),
                new ScoutingResponse(7, true, 6),
                new ScoutingResponse(Counters.LIMIT - 1, false, 0),
                new ElectionProposal(0),
                new ElectionProposal(5, Optional.of(NodeId.of("n1"))),
                new ElectionResponse(123_456_789_012L),
                new Heartbeat(3, 1),
                new HeartbeatResponse(4, Counters.LIMIT - 1),
                new LeadershipCession(9, Optional.empty()),
                new LeadershipCession(9, Optional.of(NodeId.of("node-b.2_x"))),
                new HandoverRequest(11),
                new HandoverReady(Counters.LIMIT - 1),
                new StandbyRequest(8, 9),
                new StandbyRequest(8, 0),
                new StandbyRound(8, 10, 3),
                new StandbyConfirm(8, 10, Counters.LIMIT - 1),
                new StandbyReady(8, 10));
    }

    @Test
    void messageTypesNameEveryKindOfMessageOnce() {
        List<String> kinds =
                everyMessage().stream().map(ElectorMessage::type).distinct().toList();

        assertThat(codec.messageTypes()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(kinds);
    }

    @Test
    void everyMessageSurvivesARoundTrip() {
        for (QuorumMessage m : everyMessage()) {
            int type = codec.typeOf(m);
            assertThat(codec.decode(type, codec.encode(m))).as("%s", m).isEqualTo(m);
        }
    }

    @Test
    void typeIdsAreStableOneToThirteen() {
        assertThat(codec.typeOf(new ScoutingRequest(1))).isEqualTo(1);
        assertThat(codec.typeOf(new ScoutingResponse(1, true, 1))).isEqualTo(2);
        assertThat(codec.typeOf(new ElectionProposal(1))).isEqualTo(3);
        assertThat(codec.typeOf(new ElectionResponse(1))).isEqualTo(4);
        assertThat(codec.typeOf(new Heartbeat(1, 1))).isEqualTo(5);
        assertThat(codec.typeOf(new HeartbeatResponse(1, 1))).isEqualTo(6);
        assertThat(codec.typeOf(new LeadershipCession(1, Optional.empty()))).isEqualTo(7);
        assertThat(codec.typeOf(new HandoverRequest(1))).isEqualTo(8);
        assertThat(codec.typeOf(new HandoverReady(1))).isEqualTo(9);
        assertThat(codec.typeOf(new StandbyRequest(1, 2))).isEqualTo(10);
        assertThat(codec.typeOf(new StandbyRound(1, 2, 1))).isEqualTo(11);
        assertThat(codec.typeOf(new StandbyConfirm(1, 2, 1))).isEqualTo(12);
        assertThat(codec.typeOf(new StandbyReady(1, 2))).isEqualTo(13);
    }

    @Test
    void bodiesAreCompactBigEndian() {
        assertThat(codec.encode(new Heartbeat(1, 2))).containsExactly(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2);
        assertThat(codec.encode(new LeadershipCession(1, Optional.of(NodeId.of("ab")))))
                .containsExactly(0, 0, 0, 0, 0, 0, 0, 1, 2, 'a', 'b');
    }

    @Test
    void unknownTypesAreRefused() {
        for (int type : new int[] {0, 14, 255, -1}) {
            assertMalformed(type, new byte[8], "unknown quorum message type");
        }
    }

    @Test
    void wrongLengthsAndTrailingBytesAreRefused() {
        for (QuorumMessage m : everyMessage()) {
            int type = codec.typeOf(m);
            byte[] body = codec.encode(m);
            assertThatThrownBy(() -> codec.decode(type, Arrays.copyOf(body, body.length - 1)))
                    .as("truncated %s", m)
                    .isInstanceOf(MalformedMessageException.class);
            assertThatThrownBy(() -> codec.decode(type, Arrays.copyOf(body, body.length + 1)))
                    .as("extended %s", m)
                    .isInstanceOf(MalformedMessageException.class);
            assertThatThrownBy(() -> codec.decode(type, new byte[0]))
                    .as("empty %s", m)
                    .isInstanceOf(MalformedMessageException.class);
        }
        assertMalformed(7, new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 5, 'a'}, "id length");
        assertMalformed(3, new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 5, 'a'}, "id length");
        assertMalformed(1, null, "no body");
    }

    @Test
    void negativeTermsAndSequencesAreRefused() {
        assertMalformed(1, ByteBuffer.allocate(8).putLong(-1).array(), "term -1");
        assertMalformed(
                2, ByteBuffer.allocate(17).putLong(1).put((byte) 1).putLong(-5).array(), "responderTerm -5");
        assertMalformed(5, ByteBuffer.allocate(16).putLong(1).putLong(-2).array(), "sequence -2");
        assertMalformed(
                6, ByteBuffer.allocate(16).putLong(Long.MIN_VALUE).putLong(1).array(), "term");
        assertMalformed(7, ByteBuffer.allocate(9).putLong(-1).put((byte) 0).array(), "term -1");
        assertMalformed(10, ByteBuffer.allocate(16).putLong(1).putLong(-3).array(), "pledgeTerm -3");
        assertMalformed(
                11, ByteBuffer.allocate(24).putLong(1).putLong(2).putLong(-4).array(), "sequence -4");
        assertMalformed(
                12, ByteBuffer.allocate(24).putLong(1).putLong(-2).putLong(4).array(), "pledgeTerm -2");
        assertMalformed(13, ByteBuffer.allocate(16).putLong(-1).putLong(2).array(), "term -1");
    }

    @Test
    void aBooleanByteOtherThanZeroOrOneIsRefused() {
        assertMalformed(
                2, ByteBuffer.allocate(17).putLong(1).put((byte) 2).putLong(1).array(), "willVote");
    }

    @Test
    void badSuccessorIdsAreRefused() {
        assertMalformed(7, cession("bad id!".getBytes(StandardCharsets.UTF_8)), "successor");
        assertMalformed(7, cession(new byte[] {(byte) 0xC3, (byte) 0x28}), "UTF-8");
        assertMalformed(7, cession("x".repeat(65).getBytes(StandardCharsets.UTF_8)), "successor");
    }

    @Test
    void randomBodiesNeverThrowAnythingButMalformedMessageException() {
        long seed = 0x5EEDL;
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 50_000; i++) {
            int type = random.nextInt(14);
            byte[] body = new byte[random.nextInt(26)];
            for (int j = 0; j < body.length; j++) {
                body[j] = (byte) random.nextInt(256);
            }
            try {
                ElectorMessage m = codec.decode(type, body);
                assertThat(codec.encode(m)).as("seed %s, round %s", seed, i).isEqualTo(body);
            } catch (MalformedMessageException expected) {
                // refused, as it should be for most random bodies
            }
        }
    }

    @Test
    void encodingRefusesNonQuorumMessagesAndNegativeValues() {
        assertThatThrownBy(() -> codec.encode(new ElectorMessage() {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a quorum message");
        assertThatThrownBy(() -> codec.encode(new Heartbeat(-1, 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1 is out of range");
    }

    @Test
    void quorumConfigNamesThisCodec() {
        assertThat(QuorumConfig.defaults().codec()).isSameAs(QuorumCodec.INSTANCE);
    }

    private static byte[] cession(byte[] id) {
        return ByteBuffer.allocate(9 + id.length)
                .putLong(1)
                .put((byte) id.length)
                .put(id)
                .array();
    }

    private void assertMalformed(int type, byte[] body, String messagePart) {
        assertThatThrownBy(() -> codec.decode(type, body))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining(messagePart);
    }
}
