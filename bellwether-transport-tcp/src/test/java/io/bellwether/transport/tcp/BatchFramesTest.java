package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Messages written to one peer in one pass of the transport's loop travel as one BATCH frame (one header, counter and
 * MAC), up to the frame size limit; a BATCH that does not decode whole delivers nothing.
 */
class BatchFramesTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private final Cluster cluster = new Cluster("a", "b", "c");

    @AfterEach
    void closeAll() {
        cluster.close();
    }

    private static byte[] encode(ElectorMessage m) {
        return QuorumCodec.INSTANCE.encode(m);
    }

    private static int type(ElectorMessage m) {
        return QuorumCodec.INSTANCE.typeOf(m);
    }

    /** Reads frames until one carries messages (skipping liveness probes). */
    private static Frames.Frame nextCarrier(RawPeer peer) throws IOException, Frames.Rejection {
        while (true) {
            byte[] frame = peer.read();
            Frames.Frame f = Frames.parse(frame);
            if (f.kind() == Frames.MESSAGE || f.kind() == Frames.BATCH) {
                assertThat(Frames.macMatches(peer.mac, frame, peer.remoteNonce, peer.nonce))
                        .as("the frame's MAC, bound to both nonces")
                        .isTrue();
                return f;
            }
        }
    }

    @Test
    void messagesSentInOnePassOfTheLoopLeaveAsOneBatchFrameInOrder() throws Exception {
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        b.register("beta", B, QuorumCodec.INSTANCE, new Recorder());
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B);
            atB.await("connected", A);

            List<ElectorMessage> sent = new ArrayList<>();
            b.sharedLoop()
                    .orElseThrow()
                    .submit(() -> {
                        for (int i = 1; i <= 30; i++) {
                            ElectorMessage m = i % 2 == 0 ? new Heartbeat(7, i) : new ScoutingRequest(i);
                            sent.add(m);
                            b.send(i % 3 == 0 ? "beta" : "alpha", A, m);
                        }
                    })
                    .get(Recorder.CEILING_SECONDS, TimeUnit.SECONDS);

            Frames.Frame f = nextCarrier(a);
            assertThat(f.kind()).as("one frame for the whole pass").isEqualTo(Frames.BATCH);
            List<Frames.Entry> entries = Frames.entries(f.body());
            assertThat(entries).hasSize(30);
            for (int i = 0; i < 30; i++) {
                Frames.Entry e = entries.get(i);
                assertThat(e.group()).isEqualTo((i + 1) % 3 == 0 ? "beta" : "alpha");
                assertThat(QuorumCodec.INSTANCE.decode(e.type(), e.body())).isEqualTo(sent.get(i));
            }
        }
    }

    @Test
    void aPassThatOutgrowsOneBatchLeavesInSeveralFramesEachWithinTheSmallestLimitAnyPeerMayHave() throws Exception {
        // b has the default 64 KiB limit; its batches stay within 1 KiB, the smallest max-frame-bytes a peer may have
        int maxFrameBytes = Frames.MAX_BATCH_BYTES;
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B);
            atB.await("connected", A);
            int count = 200; // about 25 bytes each: several frames of at most 1 KiB
            b.sharedLoop()
                    .orElseThrow()
                    .submit(() -> {
                        for (int i = 1; i <= count; i++) {
                            b.send("alpha", A, new HeartbeatResponse(9, i));
                        }
                    })
                    .get(Recorder.CEILING_SECONDS, TimeUnit.SECONDS);

            List<ElectorMessage> received = new ArrayList<>();
            long lastCounter = 1; // b's AUTH
            int frames = 0;
            while (received.size() < count) {
                Frames.Frame f = nextCarrier(a);
                frames++;
                assertThat(f.counter()).as("counters follow the frames' order").isEqualTo(lastCounter + 1);
                lastCounter = f.counter();
                if (f.kind() == Frames.MESSAGE) {
                    received.add(QuorumCodec.INSTANCE.decode(f.type(), f.body()));
                } else {
                    assertThat(Frames.batchFrameBytes("test-cluster", B, f.body().length - 2))
                            .isLessThanOrEqualTo(maxFrameBytes);
                    for (Frames.Entry e : Frames.entries(f.body())) {
                        received.add(QuorumCodec.INSTANCE.decode(e.type(), e.body()));
                    }
                }
            }
            assertThat(frames).isGreaterThan(1).isLessThan(count);
            for (int i = 0; i < count; i++) {
                assertThat(received.get(i)).isEqualTo(new HeartbeatResponse(9, i + 1));
            }
        }
    }

    @Test
    void aBatchIsDeliveredInOrderToEachMessagesGroup() throws Exception {
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder alpha = new Recorder();
        Recorder beta = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, alpha);
        b.register("beta", B, QuorumCodec.INSTANCE, beta);
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B);
            alpha.await("connected", A);
            ElectorMessage one = new Heartbeat(4, 1);
            ElectorMessage two = new ScoutingRequest(5);
            ElectorMessage three = new Heartbeat(4, 2);
            a.writeBatch(List.of(
                    new Frames.Entry("alpha", type(one), encode(one)),
                    new Frames.Entry("beta", type(two), encode(two)),
                    new Frames.Entry("alpha", type(three), encode(three))));
            assertThat(alpha.awaitMessage(A)).isEqualTo(one);
            assertThat(alpha.awaitMessage(A)).isEqualTo(three);
            assertThat(beta.awaitMessage(A)).isEqualTo(two);
        }
    }

    @Test
    void aBatchWithOneMalformedMessageIsRefusedWholeAndDeliversNothing() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start(cluster.builder("b").observer(observerB));
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B);
            atB.await("connected", A);
            ElectorMessage good = new Heartbeat(4, 1);
            a.writeBatch(List.of(
                    new Frames.Entry("alpha", type(good), encode(good)),
                    new Frames.Entry("alpha", type(good), new byte[] {1, 2, 3}))); // truncated body
            observerB.awaitRejected("malformed");
            assertThat(a.closedByRemote()).isTrue();
        }
        atB.await("disconnected", A);
        assertThat(atB.messages).as("nothing of the refused frame").isEmpty();
    }

    @Test
    void entriesThatDoNotFillTheBodyExactlyOrAreFewerThanTwoAreMalformed() throws Exception {
        byte[] heartbeat = encode(new Heartbeat(1, 1));
        int type = type(new Heartbeat(1, 1));
        // a good body of two entries, then the ways to break it
        ByteBuffer good = ByteBuffer.allocate(2 + 2 * (1 + 5 + 1 + 4 + heartbeat.length));
        good.putShort((short) 2);
        for (int i = 0; i < 2; i++) {
            good.put((byte) 5).put("alpha".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            good.put((byte) type).putInt(heartbeat.length).put(heartbeat);
        }
        byte[] body = good.array();
        assertThat(Frames.entries(body)).hasSize(2);

        byte[] one = body.clone();
        one[1] = 1;
        assertMalformed(one, "at least 2");

        byte[] trailing = java.util.Arrays.copyOf(body, body.length + 1);
        assertMalformed(trailing, "unexpected bytes");

        byte[] truncated = java.util.Arrays.copyOf(body, body.length - 1);
        assertMalformed(truncated, "bytes; ");

        byte[] overlong = body.clone();
        ByteBuffer.wrap(overlong).putInt(2 + 1 + 5 + 1, Integer.MAX_VALUE); // the first entry's body length
        assertMalformed(overlong, "announces 2147483647 bytes");

        byte[] negative = body.clone();
        ByteBuffer.wrap(negative).putInt(2 + 1 + 5 + 1, -1);
        assertMalformed(negative, "announces 4294967295 bytes");

        byte[] badGroup = body.clone();
        badGroup[2 + 1] = (byte) ' ';
        assertMalformed(badGroup, "group is invalid");
    }

    private static void assertMalformed(byte[] body, String detail) {
        assertThatThrownBy(() -> Frames.entries(body))
                .isInstanceOfSatisfying(
                        Frames.Rejection.class, r -> assertThat(r.reason).isEqualTo("malformed"))
                .hasMessageContaining(detail);
    }
}
