package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.resolver.DefaultAddressResolverGroup;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A closed connection becomes a departure ({@code onPeerGone}) only when the peer's address refuses a new
 * connection: the proof the quorum elector needs before it acts on a closing.
 */
class DepartureProbeTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private final Cluster cluster = new Cluster("a", "b");
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void closeAll() throws Exception {
        cluster.close();
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
    }

    @Test
    void theAcceptingEndReportsTheDialerGoneWhenItsTransportCloses() throws Exception {
        closeAndExpectGone(true);
    }

    @Test
    void theDialerReportsTheAcceptingEndGoneWhenItsTransportCloses() throws Exception {
        closeAndExpectGone(false);
    }

    /** a (the lower id) dials, b only accepts: both ends must probe. */
    private void closeAndExpectGone(boolean closeDialer) throws Exception {
        TcpTransport a = cluster.start("a", new Recorder());
        TcpTransport b = cluster.start("b", new Recorder());
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("g", A, QuorumCodec.INSTANCE, atA);
        b.register("g", B, QuorumCodec.INSTANCE, atB);
        atA.await("connected", B);
        atB.await("connected", A);

        Recorder survivor = closeDialer ? atB : atA;
        NodeId gone = closeDialer ? A : B;
        (closeDialer ? a : b).close();
        survivor.await("disconnected", gone);
        survivor.await("gone", gone);
        assertThat(survivor.connections).extracting(Recorder.Event::kind).endsWith("disconnected");
        assertThat(survivor.departures).extracting(Recorder.Event::peer).containsExactly(gone);
    }

    @Test
    void aListeningAddressIsNotGoneAndARefusingOneIs() throws Exception {
        try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            NodeAddress live = new NodeAddress("127.0.0.1", listening.getLocalPort());
            CountDownLatch answered = new CountDownLatch(1);
            AtomicBoolean refused = new AtomicBoolean();
            DepartureProbe.probe(group.next(), DefaultAddressResolverGroup.INSTANCE, live, () -> refused.set(true));
            // The kernel completes the handshake from the backlog (nobody calls accept, as in a stopped process).
            group.next().schedule(answered::countDown, 500, TimeUnit.MILLISECONDS);
            assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(refused).as("a listening address proves nothing").isFalse();
        }
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        AtomicBoolean refused = new AtomicBoolean();
        DepartureProbe.probe(
                group.next(),
                DefaultAddressResolverGroup.INSTANCE,
                new NodeAddress("127.0.0.1", closedPort),
                () -> refused.set(true));
        await().atMost(Duration.ofSeconds(10)).untilTrue(refused);
    }
}
