package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.testkit.Ports;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an outsider on loopback can do to a cluster's connections: fill the handshake slots before a member
 * restarts, replay a captured LOGIN, hold a handshake open, start a second process with a member's id.
 */
class HostileConnectionsTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final Duration CEILING = Duration.ofSeconds(Recorder.CEILING_SECONDS);

    private final Cluster cluster = new Cluster("a", "b", "c");
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        cluster.close();
    }

    /**
     * Strangers on 127.0.0.1 that hold every handshake slot of their address: each reads the HELLO, sends nothing,
     * and is replaced at once when the transport closes it. Bounded: at most {@code maxConnections} connections in
     * all, and none after {@code deadline}.
     */
    private static final class Squatters implements AutoCloseable {
        final AtomicInteger opened = new AtomicInteger();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();
        private final List<Socket> sockets = java.util.Collections.synchronizedList(new ArrayList<>());

        Squatters(NodeAddress target, int slots, int maxConnections, Duration lifetime) throws Exception {
            long deadline = System.nanoTime() + lifetime.toNanos();
            java.util.concurrent.CountDownLatch admitted = new java.util.concurrent.CountDownLatch(slots);
            for (int i = 0; i < slots; i++) {
                Thread t = new Thread(() -> {
                    boolean first = true;
                    while (!stop.get() && System.nanoTime() < deadline && opened.incrementAndGet() <= maxConnections) {
                        try (Socket s = new Socket()) {
                            sockets.add(s);
                            s.connect(new InetSocketAddress("127.0.0.1", target.port()), 10_000);
                            DataInputStream in = new DataInputStream(s.getInputStream());
                            in.readFully(new byte[in.readInt()]); // the HELLO: admitted
                            if (first) {
                                admitted.countDown();
                                first = false;
                            }
                            while (in.read() != -1) {
                                // hold the slot until the transport closes it
                            }
                        } catch (IOException e) {
                            // closed or refused: take the slot again
                        }
                    }
                });
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
            assertThat(admitted.await(CEILING.toSeconds(), TimeUnit.SECONDS))
                    .as("every squatter admitted")
                    .isTrue();
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            synchronized (sockets) {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            for (Thread t : threads) {
                t.join(CEILING.toMillis());
            }
        }
    }

    @Test
    void aMemberRestartingWhileStrangersOnItsHostHoldEveryHandshakeSlotRejoins() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start("b", observerB);
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        TcpTransport a = cluster.start("a", new Recorder());
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        atB.await("connected", A);
        a.close();
        atB.await("disconnected", A);

        // Every slot of 127.0.0.1 (a quarter of the default 64), kept full for up to a minute.
        Squatters squatters = new Squatters(
                cluster.address("b"),
                TcpTransport.DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS / 4,
                5_000,
                Duration.ofMinutes(1));
        toClose.add(squatters);

        TcpTransport again = cluster.start("a", new Recorder());
        Recorder atAgain = new Recorder();
        again.register("alpha", A, QuorumCodec.INSTANCE, atAgain);
        atB.await("connected", A);
        atAgain.await("connected", B);
        again.send("alpha", B, new ScoutingRequest(8));
        assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(8));
        assertThat(observerB.rejections("connection-limit")).isPositive();
    }

    @Test
    void aLoginReplayedOnANewConnectionOrToAnotherMemberDrawsNoAuthAndIsCounted() throws Exception {
        Recorder observerB = new Recorder();
        Recorder observerC = new Recorder();
        cluster.start("b", observerB).register("alpha", B, QuorumCodec.INSTANCE, new Recorder());
        cluster.start("c", observerC).register("alpha", NodeId.of("c"), QuorumCodec.INSTANCE, new Recorder());
        byte[] login;
        try (RawPeer a = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            a.handshake(B); // the LOGIN worked once, on its own connection
            login = a.login(B);
        }
        for (String member : List.of("b", "c")) {
            Recorder observer = member.equals("b") ? observerB : observerC;
            try (RawPeer replayer = new RawPeer(cluster.address(member), "test-cluster", A, Cluster.SECRET)) {
                replayer.readHello();
                replayer.write(login);
                assertThat(framesUntilClosed(replayer))
                        .as("frames %s sent after the replay", member)
                        .isZero();
                observer.awaitRejected("replay");
            }
        }
    }

    /** Counts the frames {@code peer} receives until the transport closes the connection. */
    private static int framesUntilClosed(RawPeer peer) throws IOException {
        int frames = 0;
        try {
            while (frames < 100) {
                peer.read();
                frames++;
            }
        } catch (java.io.EOFException | SocketException e) {
            return frames;
        }
        return frames;
    }

    @Test
    void idleAndSlowHandshakesTimeOutAndAreCounted() throws Exception {
        Recorder observerB = new Recorder();
        cluster.start("b", observerB).register("alpha", B, QuorumCodec.INSTANCE, new Recorder());
        try (RawPeer idle = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET);
                RawPeer slow = new RawPeer(cluster.address("b"), "test-cluster", A, Cluster.SECRET)) {
            slow.readHello();
            byte[] login = slow.login(B);
            slow.write(java.util.Arrays.copyOf(login, 10)); // and then nothing: the rest never comes
            assertThat(framesUntilClosed(idle)).isEqualTo(1); // the HELLO, then the close
            assertThat(framesUntilClosed(slow)).isZero();
        }
        await().atMost(CEILING).until(() -> observerB.rejections("handshake-timeout") == 2);
    }

    @Test
    void aSecondProcessWithAMembersIdIsRefusedLoggedOnceAndCountedWhileTheFirstStaysConnected() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport b = cluster.start("b", observerB);
        Recorder atB = new Recorder();
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        TcpTransport a = cluster.start("a", new Recorder());
        Recorder atA = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        atB.await("connected", A);

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(new Tee(err, log), true, StandardCharsets.UTF_8));
        try {
            // Another process calls itself a too (its own listen address) and dials b, again and again.
            Map<NodeId, NodeAddress> members = new LinkedHashMap<>(cluster.members);
            members.put(A, new NodeAddress("127.0.0.1", Ports.free()));
            TcpTransport twin = cluster.start(TcpTransport.builder()
                    .cluster("test-cluster")
                    .self(A)
                    .members(members)
                    .secret(Cluster.SECRET));
            twin.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
            await().atMost(CEILING).until(() -> observerB.rejections("duplicate-id") >= 3);
            twin.close();
        } finally {
            System.setErr(err);
        }
        String lines = log.toString(StandardCharsets.UTF_8);
        assertThat(lines.lines().filter(l -> l.contains("ERROR") && l.contains("two live processes use the id 'a'")))
                .as("one ERROR line within the rate limit's window, naming both addresses")
                .hasSize(1)
                .allMatch(l -> l.contains("127.0.0.1:") && l.indexOf("127.0.0.1:") != l.lastIndexOf("127.0.0.1:"));
        assertThat(atB.connections).extracting(Recorder.Event::kind).containsExactly("connected");
        assertThat(atA.connections).extracting(Recorder.Event::kind).containsExactly("connected");
        a.send("alpha", B, new ScoutingRequest(4));
        assertThat(atB.awaitMessage(A)).isEqualTo(new ScoutingRequest(4));
    }

    /** Writes to two streams. */
    private static final class Tee extends java.io.OutputStream {
        private final java.io.OutputStream one;
        private final java.io.OutputStream two;

        Tee(java.io.OutputStream one, java.io.OutputStream two) {
            this.one = one;
            this.two = two;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            one.write(b);
            two.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            one.write(b, off, len);
            two.write(b, off, len);
        }
    }
}
