package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.testkit.Ports;
import io.bellwether.transport.tcp.TcpTransport.PeerStatus;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Transports that learn where their members are from a resolver (a fake one, or real DNS for localhost). */
class DiscoveryTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final Duration CEILING = Duration.ofSeconds(Recorder.CEILING_SECONDS);
    private static final Duration INTERVAL = Duration.ofMillis(100);

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** A resolver whose answer tests set; counts its calls. */
    static final class FakeDns implements PeerResolver {
        private volatile List<NodeAddress> answer = List.of();
        private volatile String failure;
        final AtomicInteger calls = new AtomicInteger();

        FakeDns answer(NodeAddress... addresses) {
            answer = List.of(addresses);
            failure = null;
            return this;
        }

        void fail(String why) {
            failure = why;
        }

        @Override
        public List<NodeAddress> resolve() throws UnknownHostException {
            calls.incrementAndGet();
            if (failure != null) {
                throw new UnknownHostException(failure);
            }
            return answer;
        }

        @Override
        public String toString() {
            return "fake dns";
        }
    }

    private static NodeAddress loopback() {
        return new NodeAddress("127.0.0.1", Ports.free());
    }

    /** Listening on every interface, as a pod does: its own resolved address is then recognised by dialing it. */
    private static NodeAddress wildcard(NodeAddress address) {
        return new NodeAddress("0.0.0.0", address.port());
    }

    private static List<NodeId> ids(String... ids) {
        return Arrays.stream(ids).map(NodeId::of).toList();
    }

    private static TcpTransport.Builder builder(String id, NodeAddress listen, PeerResolver dns, String... members) {
        return TcpTransport.builder()
                .cluster("test-cluster")
                .self(NodeId.of(id))
                .listen(listen)
                .discover(ids(members), dns)
                .secret(Cluster.SECRET)
                .resolveIntervalForTests(INTERVAL);
    }

    private TcpTransport start(TcpTransport.Builder builder) {
        TcpTransport t = builder.build();
        toClose.add(t);
        t.start();
        return t;
    }

    /** Starts {@code builder}'s transport with {@code group} registered to a new recorder, returned. */
    private Recorder startRegistered(TcpTransport.Builder builder, String id) {
        Recorder r = new Recorder();
        start(builder).register("alpha", NodeId.of(id), QuorumCodec.INSTANCE, r);
        return r;
    }

    /** Every disconnect reported follows a connect and the reports alternate: no close goes unreported. */
    private static void assertEveryCloseReported(Recorder r, NodeId peer) {
        List<String> kinds = r.connections.stream()
                .filter(e -> e.peer().equals(peer))
                .map(Recorder.Event::kind)
                .toList();
        for (int i = 0; i < kinds.size(); i++) {
            assertThat(kinds.get(i))
                    .as("connection events for %s: %s", peer, kinds)
                    .isEqualTo(i % 2 == 0 ? "connected" : "disconnected");
        }
    }

    private static Optional<NodeId> memberAt(TcpTransport t, NodeAddress address) {
        return t.discovery().orElseThrow().addresses().stream()
                .filter(r -> r.address().equals(address))
                .findFirst()
                .flatMap(DiscoveryStatus.Resolved::member);
    }

    @RepeatedTest(3)
    void threeMembersFindEachOtherKeepOneConnectionPerPairAndRecogniseTheirOwnAddress() throws Exception {
        NodeAddress[] at = {loopback(), loopback(), loopback()};
        FakeDns dns = new FakeDns().answer(at);
        List<NodeId> members = ids("a", "b", "c");
        Map<NodeId, TcpTransport> transports = new LinkedHashMap<>();
        Map<NodeId, Recorder> recorders = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            NodeId id = members.get(i);
            TcpTransport t = start(builder(id.value(), wildcard(at[i]), dns, "a", "b", "c"));
            Recorder r = new Recorder();
            t.register("alpha", id, QuorumCodec.INSTANCE, r);
            transports.put(id, t);
            recorders.put(id, r);
        }
        await().atMost(CEILING)
                .untilAsserted(() -> transports.forEach((id, t) -> {
                    assertThat(t.peers())
                            .allSatisfy((peer, s) -> assertThat(s.state()).isEqualTo(PeerStatus.State.CONNECTED));
                    assertThat(t.establishedConnections())
                            .as("connections of %s", id)
                            .isEqualTo(2);
                    for (int i = 0; i < 3; i++) {
                        assertThat(memberAt(t, at[i]))
                                .as("who %s finds at %s", id, at[i])
                                .contains(members.get(i));
                    }
                }));
        for (NodeId from : members) {
            for (NodeId to : members) {
                if (!from.equals(to)) {
                    transports.get(from).send("alpha", to, new ScoutingRequest(from.hashCode()));
                }
            }
        }
        for (NodeId to : members) {
            for (NodeId from : members) {
                if (!from.equals(to)) {
                    assertThat(recorders.get(to).awaitMessage(from)).isEqualTo(new ScoutingRequest(from.hashCode()));
                }
            }
        }
        for (int i = 0; i < 3; i++) {
            NodeId id = members.get(i);
            for (int j = 0; j < 3; j++) {
                if (i != j) {
                    assertThat(transports.get(id).peers().get(members.get(j)).address())
                            .isEqualTo(at[j]);
                    assertEveryCloseReported(recorders.get(id), members.get(j));
                }
            }
        }
    }

    @ParameterizedTest(name = "{1} comes back at a new address, {0} stays")
    @CsvSource({"a, b", "b, a"})
    void aMemberThatComesBackAtANewAddressIsReconnectedThereAndItsOldAddressDropped(String stays, String moves)
            throws Exception {
        NodeId staying = NodeId.of(stays);
        NodeId moving = NodeId.of(moves);
        NodeAddress stayAt = loopback();
        NodeAddress oldAt = loopback();
        NodeAddress newAt = loopback();
        FakeDns dns = new FakeDns().answer(stayAt, oldAt);
        TcpTransport stayer = start(builder(stays, stayAt, dns, "a", "b"));
        Recorder atStayer = new Recorder();
        stayer.register("alpha", staying, QuorumCodec.INSTANCE, atStayer);
        TcpTransport mover = start(builder(moves, oldAt, dns, "a", "b"));
        mover.register("alpha", moving, QuorumCodec.INSTANCE, new Recorder());
        atStayer.await("connected", moving);

        mover.close(); // the pod goes; its replacement gets another IP
        atStayer.await("disconnected", moving);
        dns.answer(stayAt, newAt);
        Recorder atMoved = startRegistered(builder(moves, newAt, dns, "a", "b"), moves);

        atStayer.await("connected", moving);
        atMoved.await("connected", staying);
        await().atMost(CEILING).untilAsserted(() -> {
            assertThat(stayer.peers().get(moving).address()).isEqualTo(newAt);
            assertThat(stayer.discovery().orElseThrow().addresses())
                    .extracting(DiscoveryStatus.Resolved::address)
                    .containsExactly(stayAt, newAt);
        });
        stayer.send("alpha", moving, new Heartbeat(7, 1));
        assertThat(atMoved.awaitMessage(staying)).isEqualTo(new Heartbeat(7, 1));
        assertEveryCloseReported(atStayer, moving);
    }

    @Test
    void anAddressThatLeadsBackToThisNodeIsRecognisedAndNotDialedAgain() throws Exception {
        NodeAddress at = loopback();
        Forwarder toSelf = new Forwarder(at);
        toClose.add(toSelf);
        FakeDns dns = new FakeDns().answer(toSelf.address());
        Recorder observer = new Recorder();
        TcpTransport a = start(builder("a", at, dns, "a", "b").observer(observer));

        await().atMost(CEILING).until(() -> memberAt(a, toSelf.address()).equals(Optional.of(A)));
        int calls = dns.calls.get();
        await().atMost(CEILING).until(() -> dns.calls.get() >= calls + 5);

        assertThat(toSelf.accepted())
                .as("connections through the address that leads back")
                .isEqualTo(1);
        assertThat(observer.rejected).isEmpty();
        assertThat(a.peers().get(B).state()).isEqualTo(PeerStatus.State.DISCONNECTED);
    }

    @Test
    void aReplayedHelloOfThisNodeIsRefusedAndDoesNotMakeAnAddressItsOwn() throws Exception {
        NodeAddress aAt = loopback();
        try (java.net.ServerSocket replayer = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            NodeAddress replayerAt = new NodeAddress("127.0.0.1", replayer.getLocalPort());
            FakeDns dns = new FakeDns().answer(aAt);
            Recorder observer = new Recorder();
            TcpTransport a = start(builder("a", aAt, dns, "a", "b").observer(observer));

            // Someone holding the secret connects to a, records a's HELLO, and fails the handshake.
            byte[] recorded;
            try (RawPeer b = new RawPeer(aAt, "test-cluster", B, Cluster.SECRET)) {
                byte[] hello = b.read();
                recorded = new byte[4 + hello.length];
                java.nio.ByteBuffer.wrap(recorded).putInt(hello.length).put(hello);
                b.write(Frames.login(b.mac, "test-cluster", B, b.nonce, new byte[Frames.NONCE_BYTES], A, 1));
                observer.awaitRejected("replay");
            }
            // ... and replays it, from an address that the name now resolves to, when a dials there.
            dns.answer(aAt, replayerAt);
            try (java.net.Socket fromA = replayer.accept()) {
                fromA.getOutputStream().write(recorded);
                observer.awaitRejected("unknown-node");
            }
            assertThat(memberAt(a, replayerAt)).isEmpty();
        }
    }

    @Test
    void aSecondAddressOfAConnectedMemberDoesNotDisturbItsConnection() throws Exception {
        NodeAddress aAt = loopback();
        NodeAddress bAt = loopback();
        Forwarder alsoB = new Forwarder(bAt); // B's second record, as an IPv6 one would be
        toClose.add(alsoB);
        FakeDns dns = new FakeDns().answer(aAt, bAt);
        // b finds only itself at first, so only a dials: two dials at once would meet in a tie, which the lower
        // id's connection settles by replacing the other, reported as a disconnection and a connection. That is
        // the transport's rule for ties, not what this test is about.
        FakeDns dnsAtB = new FakeDns().answer(bAt);
        Recorder atA = startRegistered(builder("a", aAt, dns, "a", "b"), "a");
        Recorder atB = startRegistered(builder("b", bAt, dnsAtB, "a", "b"), "b");
        atA.await("connected", B);
        atB.await("connected", A);

        dns.answer(aAt, bAt, alsoB.address());
        dnsAtB.answer(aAt, bAt, alsoB.address());
        await().atMost(CEILING).until(() -> alsoB.accepted() >= 2); // both ends tried it
        int calls = dns.calls.get();
        int callsAtB = dnsAtB.calls.get();
        await().atMost(CEILING).until(() -> dns.calls.get() >= calls + 5 && dnsAtB.calls.get() >= callsAtB + 5);

        assertThat(alsoB.accepted())
                .as("dials of the second address once its member is known")
                .isEqualTo(2);
        assertThat(atA.connections).extracting(Recorder.Event::kind).containsExactly("connected");
        assertThat(atB.connections).extracting(Recorder.Event::kind).containsExactly("connected");
    }

    @Test
    void aNodeWhoseIdIsNotAMemberIsRefusedAtADiscoveredAddressAndChangesNothing() throws Exception {
        NodeAddress aAt = loopback();
        NodeAddress bAt = loopback();
        NodeAddress intruderAt = loopback();
        FakeDns dns = new FakeDns().answer(aAt, bAt, intruderAt);
        Recorder observerA = new Recorder();
        TcpTransport a = start(builder("a", aAt, dns, "a", "b").observer(observerA));
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        Recorder atB = startRegistered(builder("b", bAt, dns, "a", "b"), "b");
        // It holds the secret and counts itself a member: only a's member list stands in its way.
        Recorder atIntruder = startRegistered(builder("x", intruderAt, dns, "a", "b", "x"), "x");

        observerA.awaitRejected("unknown-node");
        atA.await("connected", B);
        atB.await("connected", A);
        assertThat(memberAt(a, intruderAt)).isEmpty();
        assertThat(a.peers()).containsOnlyKeys(B);
        assertThat(atA.connections).allSatisfy(e -> assertThat(e.peer()).isEqualTo(B));
        assertThat(atA.messages).isEmpty();
        assertThat(atIntruder.connections).noneSatisfy(e -> assertThat(e.kind()).isEqualTo("connected"));
    }

    @Test
    void aNodeWithAnotherSecretOrClusterAtADiscoveredAddressIsRefused() throws Exception {
        NodeAddress aAt = loopback();
        NodeAddress otherSecretAt = loopback();
        NodeAddress otherClusterAt = loopback();
        FakeDns dns = new FakeDns().answer(aAt, otherSecretAt, otherClusterAt);
        Recorder observerA = new Recorder();
        TcpTransport a = start(builder("a", aAt, dns, "a", "b", "c").observer(observerA));
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        start(builder("b", otherSecretAt, dns, "a", "b", "c")
                .secret("another-secret-of-some-32-bytes!".getBytes(StandardCharsets.US_ASCII)));
        start(builder("c", otherClusterAt, dns, "a", "b", "c").cluster("other-cluster"));

        observerA.awaitRejected("bad-mac");
        observerA.awaitRejected("wrong-cluster");
        assertThat(atA.connections).isEmpty();
        assertThat(memberAt(a, otherSecretAt)).isEmpty();
        assertThat(memberAt(a, otherClusterAt)).isEmpty();
    }

    @Test
    void failedResolutionsKeepTheAddressesKnownBefore() throws Exception {
        NodeAddress aAt = loopback();
        NodeAddress bAt = loopback();
        FakeDns dns = new FakeDns().answer(aAt, bAt);
        TcpTransport a = start(builder("a", aAt, dns, "a", "b"));
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        TcpTransport b = start(builder("b", bAt, new FakeDns().answer(aAt, bAt), "a", "b"));
        b.register("alpha", B, QuorumCodec.INSTANCE, new Recorder());
        atA.await("connected", B);
        // Connected says nothing of a's own resolution (b may have dialled a first): wait until a has resolved both.
        await().atMost(CEILING)
                .until(() -> a.discovery().orElseThrow().addresses().size() == 2);

        dns.fail("SERVFAIL");
        await().atMost(CEILING).until(() -> a.discovery().orElseThrow().lastError() != null);
        DiscoveryStatus status = a.discovery().orElseThrow();
        assertThat(status.lastError()).contains("SERVFAIL");
        assertThat(status.addresses())
                .extracting(DiscoveryStatus.Resolved::address)
                .containsExactly(aAt, bAt);

        // b restarts at the same address, while a still cannot resolve: a finds it where it was.
        b.close();
        atA.await("disconnected", B);
        Recorder atB = startRegistered(builder("b", bAt, new FakeDns().answer(bAt), "a", "b"), "b");
        atA.await("connected", B);
        atB.await("connected", A);
        assertThat(a.discovery().orElseThrow().lastError()).contains("SERVFAIL");
    }

    @Test
    void aResolverThatNeverAnswersHoldsUpNothing() throws Exception {
        NodeAddress aAt = loopback();
        NodeAddress bAt = loopback();
        CountDownLatch never = new CountDownLatch(1);
        try {
            PeerResolver stuck = () -> {
                never.await();
                return List.of();
            };
            TcpTransport a = start(builder("a", aAt, stuck, "a", "b"));
            Recorder atA = new Recorder();
            a.register("alpha", A, QuorumCodec.INSTANCE, atA);
            Recorder atB = startRegistered(builder("b", bAt, new FakeDns().answer(aAt, bAt), "a", "b"), "b");

            atA.await("connected", B); // b found a; a, whose resolver hangs, accepted it
            atB.await("connected", A);
            a.send("alpha", B, new ScoutingRequest(3));
            assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(3));
            assertThat(a.discovery().orElseThrow().resolvedAtNanos()).isEqualTo(-1);
            a.close();
            atB.await("disconnected", A);
        } finally {
            never.countDown();
        }
    }

    @Test
    void twoMembersFindEachOtherThroughRealDnsForLocalhost() throws Exception {
        NodeAddress aAt = loopback();
        NodeAddress bAt = loopback();
        // On loopback both members share the one address localhost has: each resolves it with the other's port.
        TcpTransport a = start(builder("a", aAt, PeerResolver.dns("localhost", bAt.port()), "a", "b"));
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        Recorder atB = startRegistered(builder("b", bAt, PeerResolver.dns("localhost", aAt.port()), "a", "b"), "b");

        atA.await("connected", B);
        atB.await("connected", A);
        assertThat(a.discovery().orElseThrow().source()).isEqualTo("dns localhost:" + bAt.port());
        assertThat(a.discovery().orElseThrow().addresses())
                .extracting(DiscoveryStatus.Resolved::address)
                .contains(new NodeAddress(InetAddress.getByName("localhost").getHostAddress(), bAt.port()));
    }

    @Test
    void buildingChecksTheDiscoveredMembers() {
        NodeAddress at = loopback();
        FakeDns dns = new FakeDns();
        assertThatThrownBy(() -> builder("z", at, dns, "a", "b").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("self = z is not one of the members [a, b]");
        assertThatThrownBy(() -> builder("a", at, dns, "a", "b", "a").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("repeat an id");
        assertThatThrownBy(() -> TcpTransport.builder()
                        .cluster("c")
                        .self(A)
                        .discover(ids("a", "b"), dns)
                        .insecure()
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listen is required");
        assertThatThrownBy(() ->
                        builder("a", at, dns, "a", "b").members(Map.of(A, at)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("members and discover are both set");
        assertThatThrownBy(() -> TcpTransport.builder().resolveInterval(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("999 ms")
                .hasMessageContaining("allowed 1 s to 10 min");
    }

    @Test
    void aPeerAddressGivenByHostNameIsLookedUpOffTheIoThread() throws Exception {
        Cluster cluster = new Cluster("a", "b");
        toClose.add(cluster);
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>(cluster.members);
        members.put(C, new NodeAddress("c.slow.test", Ports.free())); // a dials b, then c
        CountDownLatch dnsAnswers = new CountDownLatch(1);
        try {
            TcpTransport a = cluster.builder("a")
                    .members(members)
                    .nameLookup(host -> {
                        try {
                            dnsAnswers.await(60, java.util.concurrent.TimeUnit.SECONDS); // a slow DNS server
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new UnknownHostException(host);
                    })
                    .build();
            toClose.add(a);
            TcpTransport b = cluster.builder("b").members(members).build();
            toClose.add(b);
            Recorder atA = new Recorder();
            Recorder atB = new Recorder();
            // Registered before start: a lookup on the I/O thread would block registering, not fail the test.
            a.register("alpha", A, QuorumCodec.INSTANCE, atA);
            b.register("alpha", B, QuorumCodec.INSTANCE, atB);
            b.start();
            a.start();

            atA.await("connected", B);
            a.send("alpha", B, new ScoutingRequest(11));
            assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(11));
        } finally {
            dnsAnswers.countDown();
        }
    }

    @Test
    void aFixedPeerGivenByHostNameIsReached() throws Exception {
        Cluster cluster = new Cluster("a", "b");
        toClose.add(cluster);
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>(cluster.members);
        members.put(B, new NodeAddress("localhost", cluster.address("b").port()));
        TcpTransport a = cluster.start(cluster.builder("a").members(members));
        TcpTransport b = cluster.start(cluster.builder("b").listen(cluster.address("b")));
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, new Recorder());
        atA.await("connected", B);
    }
}
