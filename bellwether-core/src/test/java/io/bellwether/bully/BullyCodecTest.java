package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.quorum.QuorumMessage;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BullyCodecTest {
    private final BullyCodec codec = BullyCodec.INSTANCE;

    private static List<BullyMessage> everyMessage() {
        return List.of(
                new Election(0, 0),
                new Ok(5121, 7, 6),
                new Coordinator(RankedEpoch.of(Counters.LIMIT - 1, RankedEpoch.MAX_MEMBERS - 1), Long.MAX_VALUE),
                new Heartbeat(1024, 99),
                new HeartbeatAck(2048, 100, 99),
                new Query(3, 4),
                new Resign(1025, 12),
                new Ack(1, 2, Long.MAX_VALUE),
                new Halt(3074, 21),
                new NewCoordinator(3074, 22),
                new Ready(RankedEpoch.of(Counters.LIMIT - 1, 0), 0),
                new Accepted(2050, 5, 21),
                new Refused(0, Long.MAX_VALUE, 22));
    }

    @Test
    void messageTypesNameEveryKindOfMessageOnce() {
        List<String> kinds =
                everyMessage().stream().map(ElectorMessage::type).distinct().toList();

        assertThat(codec.messageTypes()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(kinds);
    }

    @Test
    void everyMessageSurvivesARoundTrip() {
        for (BullyMessage m : everyMessage()) {
            assertThat(codec.decode(codec.typeOf(m), codec.encode(m)))
                    .as("%s", m)
                    .isEqualTo(m);
        }
    }

    @Test
    void typeIdsAreStableOneToThirteen() {
        assertThat(everyMessage()).extracting(codec::typeOf).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    }

    @Test
    void strictModeBodiesHaveTheSameLayoutAsTheSimpleOnes() {
        assertThat(codec.encode(new Halt(1, 2))).isEqualTo(codec.encode(new Heartbeat(1, 2)));
        assertThat(codec.encode(new Ready(1, 2))).hasSize(16);
        assertThat(codec.encode(new Refused(1, 2, 3))).isEqualTo(codec.encode(new Ok(1, 2, 3)));
        assertThat(codec.decode(12, codec.encode(new Ack(4, 5, 6)))).isEqualTo(new Accepted(4, 5, 6));
    }

    @Test
    void bodiesAreFixedSizeBigEndian() {
        assertThat(codec.encode(new Ok(1, 2, 3)))
                .containsExactly(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3);
        assertThat(codec.encode(new Heartbeat(1, 2))).hasSize(16);
    }

    @Test
    void unknownTypesAreRefused() {
        for (int type : new int[] {0, 14, 255, -1}) {
            assertThatThrownBy(() -> codec.decode(type, new byte[16]))
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("unknown bully message type " + type);
        }
    }

    @Test
    void wrongLengthsAndTrailingBytesAreRefused() {
        for (BullyMessage m : everyMessage()) {
            int type = codec.typeOf(m);
            byte[] body = codec.encode(m);
            assertThatThrownBy(() -> codec.decode(type, Arrays.copyOf(body, body.length - 1)))
                    .isInstanceOf(MalformedMessageException.class);
            assertThatThrownBy(() -> codec.decode(type, Arrays.copyOf(body, body.length + 1)))
                    .isInstanceOf(MalformedMessageException.class);
        }
        assertThatThrownBy(() -> codec.decode(1, null)).isInstanceOf(MalformedMessageException.class);
    }

    @Test
    void negativeFieldsAreRefusedOnTheWireAndWhenEncoding() {
        byte[] body = ByteBuffer.allocate(24).putLong(1).putLong(2).putLong(-3).array();
        assertThatThrownBy(() -> codec.decode(2, body))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("ackOf -3");
        for (int type : new int[] {12, 13}) {
            assertThatThrownBy(() -> codec.decode(type, body))
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("bully message type " + type + " has ackOf -3");
        }
        byte[] negativeEpoch = ByteBuffer.allocate(16).putLong(-1).putLong(2).array();
        for (int type : new int[] {9, 10, 11}) {
            assertThatThrownBy(() -> codec.decode(type, negativeEpoch))
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("epoch -1");
        }
        assertThatThrownBy(() -> codec.encode(new Refused(1, 2, -5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ackOf -5");
        assertThatThrownBy(() -> codec.encode(new Heartbeat(-1, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epoch -1");
    }

    @Test
    void foreignMessagesAreRefusedWhenEncoding() {
        assertThatThrownBy(() -> codec.encode(new QuorumMessage.ScoutingRequest(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a bully message");
    }

    @Test
    void randomBodiesNeverThrowAnythingButMalformed() {
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 5_000; i++) {
            byte[] body = new byte[random.nextInt(30)];
            random.nextBytes(body);
            int type = random.nextInt(16) - 1;
            try {
                codec.decode(type, body);
            } catch (MalformedMessageException expected) {
                // fine
            }
        }
    }
}
