package io.bellwether.invitation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.invitation.InvitationMessage.Accept;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinator;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinatorAnswer;
import io.bellwether.invitation.InvitationMessage.AreYouThere;
import io.bellwether.invitation.InvitationMessage.AreYouThereAnswer;
import io.bellwether.invitation.InvitationMessage.Invitation;
import io.bellwether.invitation.InvitationMessage.Ready;
import io.bellwether.invitation.InvitationMessage.ReadyAck;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class InvitationCodecTest {
    private static final NodeId A = NodeId.of("node-a.1_x");
    private static final NodeId B = NodeId.of("b");
    private static final GroupNumber G = new GroupNumber(42, B);
    private final InvitationCodec codec = InvitationCodec.INSTANCE;

    private static List<InvitationMessage> everyMessage() {
        return List.of(
                new AreYouCoordinator(A, G, 0),
                new AreYouCoordinatorAnswer(A, G, 5, 4, true),
                new AreYouCoordinatorAnswer(B, new GroupNumber(GroupNumber.MAX_COUNTER, A), Long.MAX_VALUE, 0, false),
                new AreYouThere(A, G, 9),
                new AreYouThereAnswer(B, G, 10, 9, true),
                new AreYouThereAnswer(B, G, 10, 9, false),
                new Invitation(B, new GroupNumber(0, A), 11),
                new Accept(A, G, 12, 11),
                new Ready(B, G, 13, List.of(A, B)),
                new Ready(B, G, 13, List.of()),
                new ReadyAck(A, G, 14, 13));
    }

    @Test
    void messageTypesNameEveryKindOfMessageOnce() {
        List<String> kinds =
                everyMessage().stream().map(ElectorMessage::type).distinct().toList();

        assertThat(codec.messageTypes()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(kinds);
    }

    @Test
    void everyMessageSurvivesARoundTrip() {
        for (InvitationMessage m : everyMessage()) {
            assertThat(codec.decode(codec.typeOf(m), codec.encode(m)))
                    .as("%s", m)
                    .isEqualTo(m);
        }
    }

    @Test
    void typeIdsAreStableOneToEight() {
        assertThat(everyMessage().stream().map(codec::typeOf).distinct().toList())
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void bodyStartsWithTheCommonHeader() {
        byte[] body = codec.encode(new AreYouCoordinator(B, new GroupNumber(1, B), 2));
        assertThat(body).containsExactly(1, 'b', 0, 0, 0, 0, 0, 0, 0, 1, 1, 'b', 0, 0, 0, 0, 0, 0, 0, 2);
    }

    @Test
    void everyTruncationIsRefusedAsMalformed() {
        for (InvitationMessage m : everyMessage()) {
            byte[] body = codec.encode(m);
            int type = codec.typeOf(m);
            for (int length = 0; length < body.length; length++) {
                byte[] cut = Arrays.copyOf(body, length);
                assertThatThrownBy(() -> codec.decode(type, cut))
                        .as("%s cut to %d bytes", m, length)
                        .isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] body = codec.encode(new Accept(A, G, 1, 2));
        byte[] longer = Arrays.copyOf(body, body.length + 1);
        assertThatThrownBy(() -> codec.decode(InvitationCodec.ACCEPT, longer))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("trailing");
    }

    @Test
    void unknownTypeAndMissingBodyAreRefused() {
        byte[] body = codec.encode(new AreYouThere(A, G, 1));
        assertThatThrownBy(() -> codec.decode(0, body))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("allowed 1 to 8");
        assertThatThrownBy(() -> codec.decode(9, body)).isInstanceOf(MalformedMessageException.class);
        assertThatThrownBy(() -> codec.decode(3, null)).isInstanceOf(MalformedMessageException.class);
    }

    @Test
    void negativeIdsCountersAboveTheMaximumAndBadFlagsAreRefused() {
        byte[] ok = codec.encode(new AreYouThereAnswer(B, G, 10, 9, true));
        int counterAt = 2; // after from "b"
        int messageIdAt = 2 + 8 + 2;
        int inReplyToAt = messageIdAt + 8;
        int flagAt = inReplyToAt + 8;

        byte[] negativeCounter = ok.clone();
        negativeCounter[counterAt] = (byte) 0x80;
        byte[] hugeCounter = ok.clone();
        hugeCounter[counterAt] = 0x7F;
        byte[] negativeId = ok.clone();
        negativeId[messageIdAt] = (byte) 0xFF;
        byte[] negativeReply = ok.clone();
        negativeReply[inReplyToAt] = (byte) 0xFF;
        byte[] badFlag = ok.clone();
        badFlag[flagAt] = 2;

        for (byte[] bad : List.of(negativeCounter, hugeCounter, negativeId, negativeReply, badFlag)) {
            assertThatThrownBy(() -> codec.decode(InvitationCodec.ARE_YOU_THERE_ANSWER, bad))
                    .isInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void invalidNodeIdsAreRefused() {
        byte[] ok = codec.encode(new AreYouThere(B, G, 1));
        byte[] emptyId = ok.clone();
        emptyId[0] = 0;
        byte[] badChar = ok.clone();
        badChar[1] = '/';
        byte[] badUtf8 = ok.clone();
        badUtf8[1] = (byte) 0xC3;
        byte[] tooLong = ok.clone();
        tooLong[0] = 65;
        for (byte[] bad : List.of(emptyId, badChar, badUtf8, tooLong)) {
            assertThatThrownBy(() -> codec.decode(InvitationCodec.ARE_YOU_THERE, bad))
                    .isInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void readyWithAnImpossibleMemberCountIsRefusedWithoutAllocatingForIt() {
        byte[] ok = codec.encode(new Ready(B, G, 13, List.of()));
        byte[] bad = ok.clone();
        bad[bad.length - 2] = (byte) 0xFF;
        bad[bad.length - 1] = (byte) 0xFF;
        assertThatThrownBy(() -> codec.decode(InvitationCodec.READY, bad))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("members");
    }

    @Test
    void randomBytesOnlyEverDecodeOrThrowMalformed() {
        long seed = 20261122L;
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> seeds = everyMessage().stream().map(codec::encode).toList();
        for (int i = 0; i < 20_000; i++) {
            int type = 1 + random.nextInt(8);
            byte[] body;
            if (random.nextBoolean()) {
                body = new byte[random.nextInt(80)];
                random.nextBytes(body);
            } else {
                body = seeds.get(random.nextInt(seeds.size())).clone();
                body[random.nextInt(body.length)] = (byte) random.nextInt(256);
            }
            try {
                ElectorMessage m = codec.decode(type, body);
                assertThat(codec.decode(type, codec.encode(m))).isEqualTo(m);
            } catch (MalformedMessageException expected) {
                // the only failure allowed
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + " iteration " + i + ": " + e, e);
            }
        }
    }

    @Test
    void encodingAForeignMessageIsAProgrammingError() {
        ElectorMessage foreign = new ElectorMessage() {};
        assertThatThrownBy(() -> codec.typeOf(foreign)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.encode(new AreYouThere(A, G, -1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messageId");
    }
}
