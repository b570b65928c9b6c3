package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.spi.TransportListener;
import io.bellwether.testkit.Ports;
import io.bellwether.transport.tcp.TcpTransport.PeerStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TcpTransportTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final Duration CEILING = Duration.ofSeconds(Recorder.CEILING_SECONDS);

    private final Cluster cluster = new Cluster("a", "b", "c");

    @AfterEach
    void closeAll() {
        cluster.close();
    }

    @Test
    void threeTransportsExchangeMessagesForTwoGroups() throws Exception {
        Map<NodeId, TcpTransport> transports = Map.of(
                A, cluster.start("a", new Recorder()),
                B, cluster.start("b", new Recorder()),
                C, cluster.start("c", new Recorder()));
        Map<NodeId, Recorder> alpha = Map.of(A, new Recorder(), B, new Recorder(), C, new Recorder());
        Map<NodeId, Recorder> beta = Map.of(A, new Recorder(), B, new Recorder(), C, new Recorder());
        for (NodeId id : transports.keySet()) {
            transports.get(id).register("alpha", id, QuorumCodec.INSTANCE, alpha.get(id));
            transports.get(id).register("beta", id, QuorumCodec.INSTANCE, beta.get(id));
        }
        for (NodeId from : transports.keySet()) {
            for (NodeId to : transports.keySet()) {
                if (!from.equals(to)) {
                    alpha.get(from).await("connected", to);
                    beta.get(from).await("connected", to);
                }
            }
        }
        for (NodeId from : transports.keySet()) {
            for (NodeId to : transports.keySet()) {
                if (!from.equals(to)) {
                    long term = from.value().charAt(0) * 100L + to.value().charAt(0);
                    transports.get(from).send("alpha", to, new Heartbeat(term, 1));
                    transports.get(from).send("beta", to, new ScoutingRequest(term));
                }
            }
        }
        for (NodeId to : transports.keySet()) {
            for (NodeId from : transports.keySet()) {
                if (!from.equals(to)) {
                    long term = from.value().charAt(0) * 100L + to.value().charAt(0);
                    assertThat(alpha.get(to).awaitMessage(from)).isEqualTo(new Heartbeat(term, 1));
                    assertThat(beta.get(to).awaitMessage(from)).isEqualTo(new ScoutingRequest(term));
                }
            }
        }
        assertThat(transports.get(A).peers()).containsOnlyKeys(B, C).allSatisfy((id, s) -> assertThat(s.state())
                .isEqualTo(PeerStatus.State.CONNECTED));
    }

    @Test
    void messagesKeepTheirOrderOnAConnection() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        atA.await("connected", B);
        for (int i = 1; i <= 200; i++) {
            a.send("alpha", B, new HeartbeatResponse(3, i));
        }
        for (int i = 1; i <= 200; i++) {
            assertThat(atB.awaitMessage(A)).isEqualTo(new HeartbeatResponse(3, i));
        }
    }

    @Test
    void theSharedLoopIsTheThreadThatDeliversAndWhatItSendsGoesOutInOrder() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        java.util.concurrent.BlockingQueue<String> deliveredOn = new java.util.concurrent.LinkedBlockingQueue<>();
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, new TransportListener() {
            @Override
            public void onMessage(NodeId from, io.bellwether.elector.ElectorMessage message) {
                deliveredOn.add(Thread.currentThread().getName());
                atB.onMessage(from, message);
            }

            @Override
            public void onPeerConnected(NodeId peer) {
                atB.onPeerConnected(peer);
            }

            @Override
            public void onPeerDisconnected(NodeId peer) {
                atB.onPeerDisconnected(peer);
            }
        });
        atA.await("connected", B);

        // An election on A's I/O thread sends straight from it (no queue hop): the frames keep their order.
        a.sharedLoop().orElseThrow().execute(() -> {
            for (int i = 1; i <= 50; i++) {
                a.send("alpha", B, new HeartbeatResponse(4, i));
            }
        });
        for (int i = 1; i <= 50; i++) {
            assertThat(atB.awaitMessage(A)).isEqualTo(new HeartbeatResponse(4, i));
        }
        String bLoop = b.sharedLoop()
                .orElseThrow()
                .submit(() -> Thread.currentThread().getName())
                .get(Recorder.CEILING_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(bLoop).startsWith("bellwether-tcp-io");
        assertThat(deliveredOn).hasSize(50).containsOnly(bLoop);
    }

    @Test
    void aGroupRegisteredAfterTheConnectionIsToldOfConnectedPeers() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder first = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, first);
        first.await("connected", B);
        Recorder late = new Recorder();
        a.register("beta", A, QuorumCodec.INSTANCE, late);
        late.await("connected", B);
        await().atMost(CEILING).until(() -> b.peers().get(A).state() == PeerStatus.State.CONNECTED);
    }

    @Test
    void aMessageForAGroupNotRegisteredThereIsCountedAndTheConnectionKept() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", observerB);
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        a.register("beta", A, QuorumCodec.INSTANCE, new Recorder());
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        atA.await("connected", B);
        a.send("beta", B, new ScoutingRequest(1));
        observerB.awaitRejected("unknown-group");
        a.send("alpha", B, new ScoutingRequest(2));
        assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(2));
        assertThat(atB.connections).extracting(Recorder.Event::kind).containsExactly("connected");
    }

    @Test
    void theRemoteClosingIsReportedAsADisconnectAtOnce() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        atA.await("connected", B);
        atB.await("connected", A);

        a.close(); // a dialed: the accepting side learns of the close
        atB.await("disconnected", A);
        await().atMost(CEILING).until(() -> b.peers().get(A).state() == PeerStatus.State.DISCONNECTED);
    }

    @Test
    void closingTheDialedSideIsReportedToTheDialerWhichThenReconnectsToTheRestartedPeer() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, new Recorder());
        atA.await("connected", B);

        b.close();
        atA.await("disconnected", B);

        TcpTransport restarted = cluster.start("b", new Recorder());
        Recorder atRestarted = new Recorder();
        restarted.register("alpha", B, QuorumCodec.INSTANCE, atRestarted);
        atA.await("connected", B);
        atRestarted.await("connected", A);
        a.send("alpha", B, new Heartbeat(9, 9));
        assertThat(atRestarted.awaitMessage(A)).isEqualTo(new Heartbeat(9, 9));
        assertThat(atA.connections)
                .extracting(Recorder.Event::kind)
                .containsExactly("connected", "disconnected", "connected");
    }

    @Test
    void aRestartedDialerReplacesItsOldConnection() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        atB.await("connected", A);
        a.close();
        atB.await("disconnected", A);
        TcpTransport again = cluster.start("a", new Recorder());
        Recorder atAgain = new Recorder();
        again.register("alpha", A, QuorumCodec.INSTANCE, atAgain);
        atB.await("connected", A);
        atAgain.await("connected", B);
        again.send("alpha", B, new ScoutingRequest(5));
        assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(5));
    }

    @Test
    void aPeerWithAnotherSecretIsRefusedCountedAndDeliversNothing() throws Exception {
        Recorder observerB = new Recorder();
        Recorder observerA = new Recorder();
        TcpTransport a = cluster.start(cluster.builder("a")
                .secret("another-secret-of-some-32-bytes!".getBytes(StandardCharsets.US_ASCII))
                .observer(observerA));
        TcpTransport b = cluster.start("b", observerB);
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerA.awaitRejected("bad-mac"); // b's HELLO, at a, which dialed
        a.send("alpha", B, new ScoutingRequest(1));
        assertThat(atB.connections).isEmpty();
        assertThat(atB.messages).isEmpty();
        assertThat(atA.connections).isEmpty();
        await().atMost(CEILING).until(() -> a.peers().get(B).lastError() != null);
        assertThat(b.peers().get(A).state()).isNotEqualTo(PeerStatus.State.CONNECTED);
    }

    @Test
    void aPeerOfAnotherClusterIsRefusedCountedAndDeliversNothing() throws Exception {
        Recorder observerA = new Recorder();
        TcpTransport a =
                cluster.start(cluster.builder("a").cluster("other-cluster").observer(observerA));
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerA.awaitRejected("wrong-cluster"); // b's HELLO, at a, which dialed
        assertThat(atB.connections).isEmpty();
        assertThat(atB.messages).isEmpty();
        assertThat(atA.connections).isEmpty();
    }

    @Test
    void aNodeThatIsNotAMemberIsRefusedCountedAndDeliversNothing() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start("b", observerB);
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        // "0-intruder" sorts before "b", so it dials b, which does not know it.
        TcpTransport intruder = cluster.start(TcpTransport.builder()
                .cluster("test-cluster")
                .self(NodeId.of("0-intruder"))
                .members(Map.of(
                        NodeId.of("0-intruder"), new NodeAddress("127.0.0.1", Ports.free()), B, cluster.address("b")))
                .secret(Cluster.SECRET));
        intruder.register("alpha", NodeId.of("0-intruder"), QuorumCodec.INSTANCE, new Recorder());
        observerB.awaitRejected("unknown-node");
        intruder.send("alpha", B, new ScoutingRequest(1));
        assertThat(atB.connections).isEmpty();
        assertThat(atB.messages).isEmpty();
    }

    /** A plain connection to {@code to} from the loopback address {@code from}, that sends nothing. */
    private static java.net.Socket idleConnection(String from, NodeAddress to) throws java.io.IOException {
        java.net.Socket s = new java.net.Socket();
        s.bind(new java.net.InetSocketAddress(from, 0));
        s.connect(new java.net.InetSocketAddress(to.host(), to.port()), 10_000);
        s.setSoTimeout((int) CEILING.toMillis());
        return s;
    }

    /** Whether the transport admitted this connection: it opens the handshake with a frame, or else closes it. */
    private static boolean admitted(java.net.Socket s) throws java.io.IOException {
        return s.getInputStream().read() != -1;
    }

    /** Whether the transport closed {@code s}, admitted before (its HELLO's first byte read). */
    private static boolean closed(java.net.Socket s) throws java.io.IOException {
        try {
            while (s.getInputStream().read() != -1) {
                // the rest of the HELLO
            }
            return true;
        } catch (java.net.SocketException e) {
            return true;
        }
    }

    @Test
    void connectionsThatDoNotAuthenticateAreBoundedInAllAndPerAddressWhilePeersStillConnect() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start(
                cluster.builder("b").maxUnauthenticatedConnections(4).observer(observerB));
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        NodeAddress at = cluster.address("b");
        List<java.net.Socket> idle = new java.util.ArrayList<>();
        long waitMillis = HandshakeSlots.EVICTABLE_AFTER_MILLIS + 50;
        try {
            // One slot per address (a quarter of 4): a second idle connection from 127.0.0.2 is refused while the
            // first is young, and takes its place once the first has waited long enough.
            idle.add(idleConnection("127.0.0.2", at));
            assertThat(admitted(idle.get(0))).isTrue();
            try (java.net.Socket second = idleConnection("127.0.0.2", at)) {
                assertThat(admitted(second))
                        .as("a second at once from the same address")
                        .isFalse();
            }
            assertThat(observerB.rejections("connection-limit")).isEqualTo(1);
            Thread.sleep(waitMillis); // the age that makes the first evictable: a duration under test, not a wait
            java.net.Socket third = idleConnection("127.0.0.2", at);
            assertThat(admitted(third)).as("a third, later").isTrue();
            assertThat(closed(idle.get(0))).as("the oldest closed for it").isTrue();
            idle.set(0, third);

            // A member (from 127.0.0.1) still gets in and is heard while that idle connection holds its slot.
            TcpTransport a = cluster.start("a", new Recorder());
            Recorder atA = new Recorder();
            a.register("alpha", A, QuorumCodec.INSTANCE, atA);
            atB.await("connected", A);
            atA.await("connected", B);
            a.send("alpha", B, new ScoutingRequest(3));
            assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(3));

            // Four in all: three more addresses fill the slots; a fifth stranger is refused while they are young,
            // then takes the oldest one's place.
            for (String from : List.of("127.0.0.3", "127.0.0.4", "127.0.0.5")) {
                java.net.Socket s = idleConnection(from, at);
                idle.add(s);
                assertThat(admitted(s)).as("from %s", from).isTrue();
            }
            Thread.sleep(waitMillis);
            java.net.Socket fifth = idleConnection("127.0.0.6", at);
            idle.add(fifth);
            assertThat(admitted(fifth)).as("a fifth").isTrue();
            assertThat(closed(idle.get(0)))
                    .as("the oldest, from 127.0.0.2, closed for it")
                    .isTrue();
        } finally {
            for (java.net.Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void aReplayedFrameIsRefusedOnTheSameConnectionAndOnAnotherOne() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start(cluster.builder("b").observer(observerB));
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        byte[] recorded;
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B);
            atB.await("connected", A);
            byte[] frame = a.message("alpha", 5, QuorumCodec.INSTANCE.encode(new Heartbeat(4, 1)));
            a.write(frame);
            assertThat(atB.awaitMessage(A)).isEqualTo(new Heartbeat(4, 1));
            recorded = a.sent.toByteArray();

            a.write(frame); // the same bytes again, on the same connection
            observerB.awaitRejected("replay");
            assertThat(a.closedByRemote()).isTrue();
        }
        atB.await("disconnected", A);

        try (RawPeer replayer = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            replayer.read(); // b's HELLO, with a fresh nonce the recorded LOGIN does not answer
            replayer.write(recorded);
            await().atMost(CEILING).until(() -> observerB.rejections("replay") == 2);
            assertThat(replayer.closedByRemote()).isTrue();
        }
        assertThat(atB.messages).hasSize(1);
        assertThat(atB.connections).extracting(Recorder.Event::kind).containsExactly("connected", "disconnected");
    }

    @Test
    void aPeerSpeakingAnotherProtocolVersionIsRefused() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start(cluster.builder("b").observer(observerB));
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.readHello();
            byte[] login = a.login(B);
            login[4 + 4] = (byte) (Frames.VERSION - 1); // the version byte, after the length prefix and the magic
            a.write(login);
            observerB.awaitRejected("bad-version");
            assertThat(a.closedByRemote()).isTrue();
        }
        assertThat(atB.connections).isEmpty();
    }

    @Test
    void theVersionRefusalNamesBothVersions() {
        byte[] hello = Frames.hello(Frames.newMac(Cluster.SECRET), "c", A, new byte[16]);
        hello[8] = 7;
        assertThatThrownBy(() -> Frames.parse(java.util.Arrays.copyOfRange(hello, 4, hello.length)))
                .isInstanceOf(Frames.Rejection.class)
                .hasMessageContaining("version 7")
                .hasMessageContaining("version " + Frames.VERSION);
    }

    @Test
    void aFrameOverTheMaximumSizeIsRefusedBeforeItIsRead() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start(cluster.builder("b").maxFrameBytes(4096).observer(observerB));
        b.register("alpha", B, QuorumCodec.INSTANCE, new Recorder());
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B);
            a.write(a.message("alpha", 1, new byte[5000]));
            observerB.awaitRejected("too-large");
            assertThat(a.closedByRemote()).isTrue();
        }
    }

    @Test
    void aSenderRefusesToSendAFrameOverTheMaximumSize() throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        var bigCodec = new io.bellwether.elector.MessageCodec() {
            @Override
            public int typeOf(io.bellwether.elector.ElectorMessage message) {
                return 1;
            }

            @Override
            public byte[] encode(io.bellwether.elector.ElectorMessage message) {
                return message instanceof ScoutingRequest r && r.term() == 0 ? new byte[70_000] : new byte[8];
            }

            @Override
            public io.bellwether.elector.ElectorMessage decode(int type, byte[] body) {
                return new ScoutingRequest(body.length);
            }
        };
        a.register("alpha", A, bigCodec, atA);
        b.register("alpha", B, bigCodec, atB);
        atA.await("connected", B);
        a.send("alpha", B, new ScoutingRequest(0)); // dropped at the sender
        a.send("alpha", B, new ScoutingRequest(1));
        assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(8));
        assertThat(atB.messages).hasSize(1);
    }

    @Test
    void sendingNeverThrowsWhenThePeerIsUnreachableOrUnknown() {
        TcpTransport a = cluster.start("a", new Recorder());
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        a.send("alpha", B, new ScoutingRequest(1));
        a.send("alpha", NodeId.of("zz"), new ScoutingRequest(1));
        a.send("nope", B, new ScoutingRequest(1));
        assertThat(a.peers().get(B).state()).isNotEqualTo(PeerStatus.State.CONNECTED);
    }

    @Test
    void withoutASecretOrAnExplicitInsecureBuildingFails() {
        TcpTransport.Builder builder =
                TcpTransport.builder().cluster("c").self(A).members(Map.of(A, new NodeAddress("127.0.0.1", 7101)));
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("secret is required")
                .hasMessageContaining("insecure");
        builder.insecure().build().close();
    }

    @Test
    void insecureTransportsTalkToEachOtherButNotToSecureOnes() throws Exception {
        TcpTransport a = cluster.start(TcpTransport.builder()
                .cluster("test-cluster")
                .self(A)
                .members(cluster.members)
                .insecure());
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start(TcpTransport.builder()
                .cluster("test-cluster")
                .self(B)
                .members(cluster.members)
                .insecure()
                .observer(observerB));
        cluster.start("c", new Recorder());
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        atB.await("connected", A);
        observerB.awaitRejected("bad-mac"); // c's HELLO, at b, which dialed c
    }

    @Test
    void aShortSecretIsRefusedWithItsLength() {
        assertThatThrownBy(() -> TcpTransport.builder().secret(new byte[15]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("15 bytes")
                .hasMessageContaining("at least 16");
    }

    @Test
    void registeringWithoutACodecIsRefused() {
        TcpTransport a = cluster.start("a", new Recorder());
        TransportListener listener = new Recorder();
        assertThatThrownBy(() -> a.register("alpha", A, listener))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MessageCodec");
    }

    @Test
    void registeringAGroupTwiceOrForAnotherNodeIsRefused() {
        TcpTransport a = cluster.start("a", new Recorder());
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        assertThatThrownBy(() -> a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already registered");
        assertThatThrownBy(() -> a.register("beta", B, QuorumCodec.INSTANCE, new Recorder()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not match");
        a.unregister("alpha", A);
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
    }

    @Test
    void bindingAnAddressInUseFailsWithTheAddress() throws IOException {
        try (java.net.ServerSocket taken =
                new java.net.ServerSocket(cluster.address("a").port(), 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThat(taken.isBound()).isTrue();
            TcpTransport a = cluster.builder("a").build();
            assertThatThrownBy(a::start)
                    .isInstanceOf(java.io.UncheckedIOException.class)
                    .hasMessageContaining(cluster.address("a").toString());
        }
    }
}
