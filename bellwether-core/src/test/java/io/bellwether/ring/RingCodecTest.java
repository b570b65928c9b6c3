package io.bellwether.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.ring.RingMessage.Ack;
import io.bellwether.ring.RingMessage.Coordinator;
import io.bellwether.ring.RingMessage.Election;
import io.bellwether.ring.RingMessage.ElectionId;
import io.bellwether.ring.RingMessage.Heartbeat;
import io.bellwether.ring.RingMessage.HeartbeatAck;
import io.bellwether.ring.RingMessage.Query;
import io.bellwether.ring.RingMessage.Resign;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RingCodecTest {
    private final RingCodec codec = RingCodec.INSTANCE;
    private static final NodeId A = NodeId.of("node-a.1_x");
    private static final NodeId B = NodeId.of("b");

    private static List<RingMessage> everyMessage() {
        return List.of(
                new Election(0, 1, new ElectionId(A, 5), 3, List.of(A)),
                new Election(
                        RankedEpoch.of(Counters.LIMIT - 1, RankedEpoch.MAX_MEMBERS - 1),
                        2,
                        new ElectionId(B, Long.MAX_VALUE),
                        Counters.LIMIT - 1,
                        List.of(B, A)),
                new Coordinator(5123, 3, new ElectionId(A, 6), B, List.of(A, B)),
                new Ack(1, 2, 3),
                new Heartbeat(1024, 4),
                new HeartbeatAck(1024, 5, 4),
                new Query(0, 6),
                new Resign(2048, 7));
    }

    @Test
    void messageTypesNameEveryKindOfMessageOnce() {
        List<String> kinds =
                everyMessage().stream().map(ElectorMessage::type).distinct().toList();

        assertThat(codec.messageTypes()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(kinds);
    }

    @Test
    void everyMessageSurvivesARoundTrip() {
        for (RingMessage m : everyMessage()) {
            assertThat(codec.decode(codec.typeOf(m), codec.encode(m)))
                    .as("%s", m)
                    .isEqualTo(m);
        }
    }

    @Test
    void typeIdsAreStableOneToSeven() {
        assertThat(everyMessage()).extracting(codec::typeOf).containsExactly(1, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void idsAreLengthPrefixedUtf8AndListsCountPrefixed() {
        byte[] body = codec.encode(new Election(0, 0, new ElectionId(B, 0), 0, List.of(B)));
        assertThat(Arrays.copyOfRange(body, 16, 18)).containsExactly(1, 'b');
        assertThat(Arrays.copyOfRange(body, body.length - 4, body.length)).containsExactly(0, 1, 1, 'b');
    }

    @Test
    void unknownTypesAreRefused() {
        for (int type : new int[] {0, 8, 255, -1}) {
            assertThatThrownBy(() -> codec.decode(type, new byte[16]))
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("unknown ring message type " + type);
        }
    }

    @Test
    void truncatedBodiesAndTrailingBytesAreRefused() {
        for (RingMessage m : everyMessage()) {
            int type = codec.typeOf(m);
            byte[] body = codec.encode(m);
            for (int cut = 0; cut < body.length; cut++) {
                byte[] shorter = Arrays.copyOf(body, cut);
                assertThatThrownBy(() -> codec.decode(type, shorter))
                        .as("%s cut to %d bytes", m, cut)
                        .isInstanceOf(MalformedMessageException.class);
            }
            assertThatThrownBy(() -> codec.decode(type, Arrays.copyOf(body, body.length + 1)))
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("trailing");
        }
    }

    @Test
    void emptyIdListsInvalidIdsAndNegativeNumbersAreRefused() {
        ByteBuffer empty = ByteBuffer.allocate(16 + 2 + 8 + 8 + 2);
        empty.putLong(0)
                .putLong(0)
                .put((byte) 1)
                .put((byte) 'b')
                .putLong(0)
                .putLong(0)
                .putShort((short) 0);
        assertThatThrownBy(() -> codec.decode(1, empty.array())).hasMessageContaining("lists 0 ids");

        ByteBuffer badId = ByteBuffer.allocate(16 + 2 + 8 + 8 + 4);
        badId.putLong(0)
                .putLong(0)
                .put((byte) 1)
                .put((byte) '!')
                .putLong(0)
                .putLong(0)
                .putShort((short) 1);
        badId.put((byte) 1).put((byte) 'b');
        assertThatThrownBy(() -> codec.decode(1, badId.array()))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("node id");

        byte[] negative =
                ByteBuffer.allocate(24).putLong(1).putLong(-2).putLong(3).array();
        assertThatThrownBy(() -> codec.decode(3, negative)).hasMessageContaining("messageId -2");
        assertThatThrownBy(() -> codec.encode(new Query(-1, 0))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void randomBodiesNeverThrowAnythingButMalformed() {
        SplittableRandom random = new SplittableRandom(9);
        for (int i = 0; i < 5_000; i++) {
            byte[] body = new byte[random.nextInt(60)];
            random.nextBytes(body);
            int type = random.nextInt(10) - 1;
            try {
                codec.decode(type, body);
            } catch (MalformedMessageException expected) {
                // fine
            }
        }
    }
}
