package io.bellwether.bench.chaos;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ChaosNetwork} against a recording (and optionally echoing) server on loopback. Endpoint {@code a} is the
 * client, {@code b} the server: {@code proxy("a", "b", ...)} carries a → b bytes client-to-target.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ChaosNetworkTest {
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final Duration CEILING = Duration.ofSeconds(5);
    private static final int MIB = 1 << 20;

    private ChaosNetwork net;
    private Server server;
    private final List<Socket> clients = new ArrayList<>();
    private final List<Thread> helpers = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        net = new ChaosNetwork();
        server = new Server(false);
    }

    @AfterEach
    void stop() throws InterruptedException {
        net.close();
        server.close();
        for (Socket s : clients) {
            closeQuietly(s);
        }
        for (Thread t : helpers) {
            t.join(5_000);
        }
    }

    @Test
    void passForwardsBothWays() throws Exception {
        Socket client = connect(net.proxy("a", "b", server.port()));
        Conn conn = established(client);

        conn.send("world");

        assertThat(readString(client, 5)).isEqualTo("world");
        assertThat(conn.receivedString()).isEqualTo("hi");
    }

    @Test
    void dropDiscardsOneDirectionOnlyOnAnOpenConnection() throws Exception {
        Socket client = connect(net.proxy("a", "b", server.port()));
        Conn conn = established(client);

        net.drop("a", "b");
        write(client, "lost");
        conn.send("back");

        // b → a still flows. Were the rule applied to both directions (the mutation: a direction-blind DROP), this
        // read would time out after 5 s and fail the test.
        assertThat(readString(client, 4)).isEqualTo("back");
        // a → b is gone: the sender's write succeeded, the proxy read and discarded the bytes.
        await().atMost(CEILING).until(() -> net.droppedBytes() == 4);
        assertThat(conn.receivedString()).isEqualTo("hi");
    }

    @Test
    void ruleForADirectionAppliesToTheConnectionsTheReceiverDialled() throws Exception {
        // b dials a here, so a → b bytes run target-to-client.
        Socket client = connect(net.proxy("b", "a", server.port()));
        Conn conn = established(client);

        net.drop("a", "b");
        conn.send("lost");
        write(client, "kept");
        await().atMost(CEILING).until(() -> net.droppedBytes() == 4);

        await().atMost(CEILING).until(() -> conn.receivedString().equals("hikept"));
        assertThat(readOutcome(client, QUIET)).isEqualTo(Outcome.TIMEOUT);
    }

    @Test
    void healAfterDropResetsTheConnectionThatLostBytesAndANewConnectionWorks() throws Exception {
        int port = net.proxy("a", "b", server.port());
        Socket client = connect(port);
        Conn conn = established(client);
        net.drop("a", "b");
        write(client, "lost");
        await().atMost(CEILING).until(() -> net.droppedBytes() == 4);

        net.heal("a", "b");

        assertThat(readOutcome(client, CEILING)).isIn(Outcome.EOF, Outcome.RESET);
        await().atMost(CEILING).until(conn::ended);
        Socket again = connect(port);
        Conn second = established(again);
        second.send("ok");
        assertThat(readString(again, 2)).isEqualTo("ok");
    }

    @Test
    void healAfterDropThatLostNothingKeepsTheConnection() throws Exception {
        Socket client = connect(net.proxy("a", "b", server.port()));
        Conn conn = established(client);
        net.drop("a", "b");
        net.heal("a", "b");

        write(client, "still");

        await().atMost(CEILING).until(() -> conn.receivedString().equals("histill"));
    }

    @Test
    void stallHoldsTheBytesUnreadAndDeliversAllInOrderAfterHeal() throws Exception {
        Socket client = connect(net.proxy("a", "b", server.port()));
        Conn conn = established(client);
        byte[] payload = pattern(MIB);

        net.stall("a", "b");
        background(() -> client.getOutputStream().write(payload));

        await().during(QUIET).atMost(CEILING).until(() -> conn.receivedCount() == 2);
        // Held in the sender's socket, not in the proxy: at most the one chunk read when the rule changed.
        assertThat(net.bufferedBytes()).isLessThanOrEqualTo(16 * 1024);

        net.heal("a", "b");

        await().atMost(CEILING).until(() -> conn.receivedCount() == 2 + payload.length);
        byte[] received = conn.received();
        assertThat(new String(received, 0, 2, US_ASCII)).isEqualTo("hi");
        assertThat(Arrays.copyOfRange(received, 2, received.length)).isEqualTo(payload);
    }

    @Test
    void delayDelaysEachChunkByAtLeastTheDelayInOrder() throws Exception {
        server.close();
        server = new Server(true);
        Socket client = connect(net.proxy("a", "b", server.port()));
        write(client, "x");
        assertThat(readString(client, 1)).isEqualTo("x");
        Duration delay = Duration.ofMillis(300);

        net.delay("a", "b", delay);
        long start = System.nanoTime();
        write(client, "1");
        write(client, "2");
        write(client, "3");
        String echoed = readString(client, 3);
        long elapsed = System.nanoTime() - start;

        assertThat(echoed).isEqualTo("123");
        // A lower bound only: a slow machine delays more, never less.
        assertThat(elapsed).isGreaterThanOrEqualTo(delay.toNanos());
    }

    @Test
    void throttleKeepsAMebibyteAtTheRate() throws Exception {
        Socket client = connect(net.proxy("a", "b", server.port()));
        Conn conn = established(client);
        long bytesPerSecond = MIB;

        net.throttle("a", "b", bytesPerSecond);
        long start = System.nanoTime();
        background(() -> client.getOutputStream().write(pattern(MIB)));
        await().atMost(Duration.ofSeconds(10)).until(() -> conn.receivedCount() == 2 + MIB);
        long elapsed = System.nanoTime() - start;

        long ideal = TimeUnit.SECONDS.toNanos(1) * MIB / bytesPerSecond;
        assertThat(elapsed).isGreaterThanOrEqualTo(ideal * 8 / 10);
    }

    @Test
    void refusedTargetResetsTheClientPromptly() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        Socket client = connect(net.proxy("a", "b", deadPort));

        assertThat(readOutcome(client, CEILING)).isIn(Outcome.EOF, Outcome.RESET);
    }

    @Test
    void refusingConnectionsRefusesDialsOnTheSamePortUntilAcceptingAgain() throws Exception {
        int port = net.proxy("a", "b", server.port());
        Socket open = connect(port);
        Conn conn = established(open);

        net.refuseConnections("b");

        assertThatThrownBy(() -> connect(port)).isInstanceOf(ConnectException.class);
        assertThat(net.describe()).isEqualTo("b REFUSED");
        conn.send("open connections stay");
        assertThat(readString(open, 21)).isEqualTo("open connections stay");

        net.acceptConnections("b");

        established(connect(port));
        assertThat(net.describe()).isEqualTo("all PASS");
    }

    @Test
    void connectionAcceptedWhileStalledIsHeldAndFlowsOnHeal() throws Exception {
        int port = net.proxy("a", "b", server.port());
        net.stall("b", "a");

        Socket client = connect(port);
        write(client, "early");
        // Accepted by the proxy (the connect above succeeded) but the target is not dialled.
        await().during(QUIET).atMost(CEILING).until(() -> server.accepted.isEmpty() && net.connections() == 1);

        net.heal("b", "a");

        Conn conn = server.next();
        await().atMost(CEILING).until(() -> conn.receivedString().equals("early"));
    }

    @Test
    void connectionHeldWhileStalledWhoseClientGaveUpIsNotDialledOnHeal() throws Exception {
        int port = net.proxy("a", "b", server.port());
        net.stall("a", "b");
        Socket client = connect(port);
        write(client, "stale");
        await().atMost(CEILING).until(() -> net.connections() == 1);

        client.close();
        net.heal("a", "b");

        await().atMost(CEILING).until(() -> net.connections() == 0);
        assertThat(server.accepted)
                .as("the target is not dialled for a dead conversation")
                .isEmpty();
    }

    @Test
    void connectionAcceptedWhileDroppingIsResetOnHeal() throws Exception {
        int port = net.proxy("a", "b", server.port());
        net.drop("a", "b");

        Socket client = connect(port);
        write(client, "lost");
        await().atMost(CEILING).until(() -> net.droppedBytes() == 4);
        assertThat(server.accepted).as("the target is not dialled").isEmpty();

        net.heal("a", "b");

        assertThat(readOutcome(client, CEILING)).isIn(Outcome.EOF, Outcome.RESET);
        assertThat(server.accepted).isEmpty();
        Socket again = connect(port);
        established(again);
    }

    @Test
    void delayedBytesBeyondTheBufferBoundStopTheReader() throws Exception {
        Socket client = connect(net.proxy("a", "b", server.port()));
        established(client);
        net.delay("a", "b", Duration.ofSeconds(60));

        // Far more than the proxy's bound plus the loopback socket buffers (receive buffers may grow to 32 MiB):
        // the writer must block.
        Thread writer = background(() -> {
            byte[] mebibyte = new byte[MIB];
            for (int i = 0; i < 128; i++) {
                client.getOutputStream().write(mebibyte);
            }
        });

        await().atMost(CEILING).until(() -> net.bufferedBytes() >= FaultProxy.MAX_BUFFERED_BYTES);
        await().during(QUIET)
                .atMost(CEILING)
                .until(() -> net.bufferedBytes() <= FaultProxy.MAX_BUFFERED_BYTES + 16 * 1024 && writer.isAlive());
    }

    @Test
    void connectionsBeyondTheLimitResetTheOldest() throws Exception {
        int port = net.proxy("a", "b", server.port());
        // Held connections: one thread each, cheap to open many.
        net.stall("a", "b");
        List<Socket> opened = new ArrayList<>();
        for (int i = 0; i < FaultProxy.MAX_CONNECTIONS; i++) {
            opened.add(connect(port));
        }
        await().atMost(CEILING).until(() -> net.connections() == FaultProxy.MAX_CONNECTIONS);

        connect(port);

        assertThat(readOutcome(opened.get(0), CEILING)).isIn(Outcome.EOF, Outcome.RESET);
        await().atMost(CEILING).until(() -> net.connections() == FaultProxy.MAX_CONNECTIONS);
    }

    @Test
    void closeStopsEveryThread() throws Exception {
        int before = proxyThreads();
        server.close();
        server = new Server(true);
        int port = net.proxy("a", "b", server.port());
        net.proxy("b", "a", server.port());
        Socket flowing = connect(port);
        write(flowing, "x");
        assertThat(readString(flowing, 1)).isEqualTo("x");
        Socket delayed = connect(port);
        write(delayed, "y");
        assertThat(readString(delayed, 1)).isEqualTo("y");
        net.delay("a", "b", Duration.ofSeconds(30));
        write(delayed, "held in the queue");
        net.stall("b", "a");
        connect(port);
        assertThat(proxyThreads()).isGreaterThan(before);

        net.close();

        // close() waits for the threads, so there is nothing to await.
        assertThat(proxyThreads()).isEqualTo(before);
        assertThat(readOutcome(flowing, CEILING)).isIn(Outcome.EOF, Outcome.RESET);
    }

    @Test
    void partitionAndIsolateCutBothDirectionsAndDescribeListsTheRules() throws Exception {
        net.proxy("n1", "n2", server.port());
        net.proxy("n1", "n3", server.port());
        net.proxy("n2", "n3", server.port());

        net.partition(List.of("n1"), List.of("n2", "n3"), true);
        assertThat(net.describe()).isEqualTo("n1->n2 STALL, n1->n3 STALL, n2->n1 STALL, n3->n1 STALL");

        net.healAll();
        assertThat(net.describe()).isEqualTo("all PASS");

        net.isolate("n3", false);
        assertThat(net.describe())
                .isEqualTo("n1->n3 DROP, n2->n3 DROP, n3->n1 DROP, n3->n2 DROP, n3->store DROP, store->n3 DROP");

        net.heal("n3", "store");
        net.delay("n1", "n2", Duration.ofMillis(250));
        net.throttle("n2", "n1", 1000);
        assertThat(net.rule("n3", "store")).isEqualTo(ChaosNetwork.Rule.PASS);
        assertThat(net.describe()).startsWith("n1->n2 DELAY 250 ms, n1->n3 DROP, n2->n1 THROTTLE 1000 B/s,");
    }

    @Test
    void badArgumentsAreRejectedNamingTheValue() {
        assertThatThrownBy(() -> net.delay("a", "b", Duration.ZERO)).hasMessageContaining("delay=PT0S");
        assertThatThrownBy(() -> net.throttle("a", "b", 0)).hasMessageContaining("bytesPerSecond=0");
        assertThatThrownBy(() -> net.drop("a", "a")).hasMessageContaining("from=to=a");
        assertThatThrownBy(() -> net.drop(" ", "a")).hasMessageContaining("from= ");
        assertThatThrownBy(() -> net.proxy("a", "b", 0)).hasMessageContaining("targetPort=0");
        assertThatThrownBy(() -> net.partition(List.of("a"), List.of("a", "b"), true))
                .hasMessageContaining("share a");
    }

    // --- helpers ---

    private enum Outcome {
        DATA,
        EOF,
        RESET,
        TIMEOUT
    }

    private Socket connect(int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setTcpNoDelay(true);
        s.setSoTimeout((int) CEILING.toMillis());
        clients.add(s);
        return s;
    }

    /** Sends "hi" and returns the server's side once it arrived: the connection is through to the target. */
    private Conn established(Socket client) throws Exception {
        write(client, "hi");
        Conn conn = server.next();
        await().atMost(CEILING).until(() -> conn.receivedString().equals("hi"));
        return conn;
    }

    private static void write(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(US_ASCII));
    }

    private static String readString(Socket s, int length) throws IOException {
        byte[] buffer = s.getInputStream().readNBytes(length);
        return new String(buffer, US_ASCII);
    }

    private static Outcome readOutcome(Socket s, Duration timeout) throws IOException {
        s.setSoTimeout((int) timeout.toMillis());
        try {
            return s.getInputStream().read() < 0 ? Outcome.EOF : Outcome.DATA;
        } catch (SocketTimeoutException e) {
            return Outcome.TIMEOUT;
        } catch (SocketException e) {
            return Outcome.RESET;
        } finally {
            s.setSoTimeout((int) CEILING.toMillis());
        }
    }

    /** A deterministic byte pattern whose shifts and losses show in a comparison. */
    private static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 % 251);
        }
        return bytes;
    }

    private static int proxyThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(FaultProxy.THREAD_PREFIX))
                .count();
    }

    private interface IoAction {
        void run() throws IOException;
    }

    /** Runs {@code action} on a thread joined after the test; a socket closed under it ends it. */
    private Thread background(IoAction action) {
        Thread t = new Thread(
                () -> {
                    try {
                        action.run();
                    } catch (IOException e) {
                        // the test closed the socket
                    }
                },
                "test-writer");
        t.setDaemon(true);
        helpers.add(t);
        t.start();
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }

    /** One connection the server accepted: what it received, and a way to send. */
    private static final class Conn {
        final Socket socket;
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private volatile boolean ended;

        Conn(Socket socket) {
            this.socket = socket;
        }

        synchronized void append(byte[] bytes, int length) {
            received.write(bytes, 0, length);
        }

        synchronized byte[] received() {
            return received.toByteArray();
        }

        synchronized int receivedCount() {
            return received.size();
        }

        String receivedString() {
            return new String(received(), US_ASCII);
        }

        boolean ended() {
            return ended;
        }

        void send(String text) throws IOException {
            socket.getOutputStream().write(text.getBytes(US_ASCII));
        }
    }

    /** A loopback server recording each connection's bytes, echoing them if asked. */
    private static final class Server implements AutoCloseable {
        final ServerSocket socket;
        final boolean echo;
        final BlockingQueue<Conn> accepted = new LinkedBlockingQueue<>();
        final Set<Socket> open = ConcurrentHashMap.newKeySet();
        final AtomicReference<Thread> acceptor = new AtomicReference<>();

        Server(boolean echo) throws IOException {
            this.echo = echo;
            this.socket = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
            Thread t = new Thread(this::acceptLoop, "test-server-accept");
            t.setDaemon(true);
            acceptor.set(t);
            t.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        Conn next() throws InterruptedException {
            Conn conn = accepted.poll(CEILING.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(conn).as("a connection reached the server").isNotNull();
            return conn;
        }

        private void acceptLoop() {
            while (true) {
                Socket s;
                try {
                    s = socket.accept();
                    s.setTcpNoDelay(true);
                } catch (IOException e) {
                    return;
                }
                open.add(s);
                Conn conn = new Conn(s);
                accepted.add(conn);
                Thread t = new Thread(() -> serve(conn), "test-server-conn");
                t.setDaemon(true);
                t.start();
            }
        }

        private void serve(Conn conn) {
            byte[] buffer = new byte[64 * 1024];
            try (Socket s = conn.socket) {
                InputStream in = s.getInputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    conn.append(buffer, n);
                    if (echo) {
                        s.getOutputStream().write(buffer, 0, n);
                    }
                }
            } catch (IOException e) {
                // reset by the proxy
            } finally {
                conn.ended = true;
                open.remove(conn.socket);
            }
        }

        @Override
        public void close() {
            closeQuietly(socket);
            for (Socket s : open) {
                closeQuietly(s);
            }
            Thread t = acceptor.get();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
