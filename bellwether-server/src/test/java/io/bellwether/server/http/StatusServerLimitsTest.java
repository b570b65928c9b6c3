package io.bellwether.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.NodeId;
import io.bellwether.server.node.NodeMetrics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The status server under hostile clients on loopback: caps on connections and event streams, a deadline for
 * slow requests, a bounded backlog for event clients that do not read. Every probe loop is bounded in count and
 * time.
 */
class StatusServerLimitsTest {
    private static final Duration CEILING = Duration.ofSeconds(30);
    private static final long SEED = 20261201L;
    private static final NodeId N1 = NodeId.of("n1");

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private InProcessCluster cluster;

    private void start(HttpLimits limits) {
        cluster = new InProcessCluster(3, SEED, limits);
        cluster.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        for (Thread t : threads) {
            t.interrupt();
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private NodeMetrics metrics() {
        return cluster.metrics.get(N1);
    }

    private EventStream events() throws Exception {
        var field = StatusServer.class.getDeclaredField("events");
        field.setAccessible(true);
        return (EventStream) field.get(cluster.servers.get(N1));
    }

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.url(N1, path)))
                .timeout(Duration.ofSeconds(10))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A raw connection to n1, optionally with a tiny receive window (set before connecting, so it sticks). */
    private Socket connect(int receiveBuffer) throws IOException {
        InetSocketAddress address = cluster.servers.get(N1).address();
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(address, 5000);
        socket.setSoTimeout((int) CEILING.toMillis());
        sockets.add(socket);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static final String EVENTS_REQUEST =
            "GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";

    private static String statusLine(Socket socket) throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
        String line = in.readLine();
        return line == null ? "(closed)" : line;
    }

    /** Reads until the server closes the connection (true) or the ceiling passes (false). */
    private static boolean closedByServer(Socket socket) throws IOException {
        byte[] buffer = new byte[4096];
        long deadline = System.nanoTime() + CEILING.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (socket.getInputStream().read(buffer) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset: closed all the same
        }
        return false;
    }

    @Test
    void anEventClientBeyondTheCapGets503AndTheNodeKeepsServingStatus() throws Exception {
        int cap = 3;
        start(HttpLimits.DEFAULTS.withMaxEventClients(cap));
        List<Socket> subscribed = new ArrayList<>();
        for (int i = 0; i < cap; i++) {
            Socket s = connect(0);
            send(s, EVENTS_REQUEST);
            subscribed.add(s);
        }
        for (Socket s : subscribed) {
            assertThat(statusLine(s)).isEqualTo("HTTP/1.1 200 OK");
        }
        EventStream events = events();
        await().atMost(CEILING).until(() -> events.clients() == cap);

        Socket extra = connect(0);
        send(extra, EVENTS_REQUEST);

        assertThat(statusLine(extra)).isEqualTo("HTTP/1.1 503 Service Unavailable");
        assertThat(closedByServer(extra)).isTrue();
        assertThat(metrics().httpRefusals("event-clients")).isEqualTo(1);
        assertThat(events.clients()).isEqualTo(cap);
        HttpResponse<String> status = get("status");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"node\":\"n1\"");
        assertThat(get("metrics").body())
                .containsPattern("bellwether_http_refused_total\\{[^}]*reason=\"event-clients\"[^}]*} 1.0");

        // A place given back is free again.
        subscribed.get(0).close();
        await().atMost(CEILING).until(() -> events.clients() == cap - 1);
        Socket again = connect(0);
        send(again, EVENTS_REQUEST);
        assertThat(statusLine(again)).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void anEventClientThatDoesNotReadIsDroppedAtItsBacklogLimitWhileAReadingOneStays() throws Exception {
        start(HttpLimits.DEFAULTS);
        EventStream events = events();
        Socket stalled = connect(4096);
        send(stalled, EVENTS_REQUEST); // and never reads
        Socket reading = connect(0);
        send(reading, EVENTS_REQUEST);
        long[] readBytes = {0};
        Thread reader = new Thread(
                () -> {
                    byte[] buffer = new byte[64 * 1024];
                    try {
                        for (int n = reading.getInputStream().read(buffer);
                                n >= 0;
                                n = reading.getInputStream().read(buffer)) {
                            synchronized (readBytes) {
                                readBytes[0] += n;
                            }
                        }
                    } catch (IOException e) {
                        // closed by the test
                    }
                },
                "sse-test-reader");
        reader.setDaemon(true);
        reader.start();
        threads.add(reader);
        await().atMost(CEILING).until(() -> events.clients() == 2);

        // 1 KiB events, 16 at a time, at most 20,000 of them (20 MiB) and within the ceiling: far beyond the stalled
        // client's socket buffers and its backlog. The next batch waits until the reading client has read all but
        // 16 KiB, so that it stays well within its own backlog however slowly this machine runs it.
        String data = "\"" + "x".repeat(1024) + "\"";
        int eventBytes = EventStream.format("filler", data).length();
        long[] published = {0};
        await().atMost(CEILING).pollInterval(Duration.ofMillis(2)).until(() -> {
            long read;
            synchronized (readBytes) {
                read = readBytes[0];
            }
            if (read >= (published[0] - 16) * eventBytes) {
                for (int i = 0; i < 16 && published[0] < 20_000; i++) {
                    events.publish("filler", () -> data);
                    published[0]++;
                }
            }
            return metrics().httpRefusals("slow-event-client") >= 1;
        });

        await().atMost(CEILING).until(() -> events.clients() == 1);
        assertThat(closedByServer(stalled))
                .as("the stalled client's connection is closed")
                .isTrue();
        assertThat(metrics().httpRefusals("slow-event-client")).isEqualTo(1);
        long before;
        synchronized (readBytes) {
            before = readBytes[0];
        }
        events.publish("after", () -> "1");
        await().atMost(CEILING).until(() -> {
            synchronized (readBytes) {
                return readBytes[0] > before;
            }
        });
        assertThat(events.clients())
                .as("the reading client is still subscribed")
                .isEqualTo(1);
    }

    @Test
    void slowHeaderClientsDoNotStopStatusAndAreCutOffAfterTheRequestTimeout() throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        start(HttpLimits.DEFAULTS.withRequestTimeout(timeout));
        int slow = 8;
        List<Socket> slowSockets = new ArrayList<>();
        for (int i = 0; i < slow; i++) {
            Socket s = connect(0);
            send(s, "GET /status HTTP/1.1\r\n");
            slowSockets.add(s);
            int id = i;
            // One header line every 500 ms, never the blank line that ends the head; at most 60 lines (30 s).
            Thread t = new Thread(
                    () -> {
                        try {
                            for (int line = 0;
                                    line < 60 && !Thread.currentThread().isInterrupted();
                                    line++) {
                                send(s, "X-Slow-" + id + "-" + line + ": y\r\n");
                                Thread.sleep(500); // the attack's pace, not a wait for an outcome
                            }
                        } catch (IOException | InterruptedException e) {
                            // cut off by the server, or the test ended
                        }
                    },
                    "slow-client-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }

        // While they trickle, /status answers (each within the client's 10 s timeout, a generous ceiling).
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> status = get("status");
            assertThat(status.statusCode()).isEqualTo(200);
        }

        for (Socket s : slowSockets) {
            assertThat(statusLine(s)).isEqualTo("HTTP/1.1 408 Request Timeout");
            assertThat(closedByServer(s)).isTrue();
        }
        assertThat(metrics().httpRefusals("request-timeout")).isGreaterThanOrEqualTo(slow);
        assertThat(get("status").statusCode()).isEqualTo(200);
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAtTheRequestTimeoutWithoutAResponse() throws Exception {
        start(HttpLimits.DEFAULTS.withRequestTimeout(Duration.ofMillis(500)));
        Socket s = connect(0);
        send(s, "GET /status HTTP/1.1\r\nHost: localhost\r\n\r\n");
        java.io.InputStream in = s.getInputStream();
        // The whole response: head, then as many body bytes as Content-Length says.
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("the response's head").isNotNegative();
            head.append((char) b);
        }
        assertThat(head.toString()).startsWith("HTTP/1.1 200");
        java.util.regex.Matcher length =
                java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        assertThat(length.find()).as("a Content-Length in %s", head).isTrue();
        assertThat(in.readNBytes(Integer.parseInt(length.group(1)))).hasSize(Integer.parseInt(length.group(1)));
        // Then nothing: past the timeout the server closes the idle connection and sends no 408, which a client
        // reusing the connection would take for the answer to its next request.
        assertThat(in.read())
                .as("what follows the response on the idle connection")
                .isEqualTo(-1);
        assertThat(metrics().httpRefusals("request-timeout")).isZero();
    }

    @Test
    void aConnectionBeyondTheCapGets503AndOnesClosedGiveTheirPlaceBack() throws Exception {
        int cap = 4;
        start(HttpLimits.DEFAULTS.withMaxConnections(cap).withRequestTimeout(Duration.ofMinutes(1)));
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < cap; i++) {
            idle.add(connect(0));
        }
        // Accepted in order, one I/O thread: once a later connection is refused, the first ones hold the places.
        Socket extra = connect(0);
        send(extra, "GET /status HTTP/1.1\r\nHost: localhost\r\n\r\n");

        assertThat(statusLine(extra)).isEqualTo("HTTP/1.1 503 Service Unavailable");
        assertThat(closedByServer(extra)).isTrue();
        assertThat(metrics().httpRefusals("connections")).isEqualTo(1);

        for (Socket s : idle) {
            s.close();
        }
        await().atMost(CEILING).ignoreExceptions().until(() -> get("status").statusCode() == 200);
    }

    @Test
    void aRequestHeadOverTheLimitIsRefusedWith431() throws Exception {
        start(HttpLimits.DEFAULTS.withMaxRequestBytes(HttpLimits.MIN_REQUEST_BYTES));
        Socket s = connect(0);
        send(s, "GET /status HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(4 * 1024) + "\r\n\r\n");

        assertThat(statusLine(s)).isEqualTo("HTTP/1.1 431 Request Header Fields Too Large");
        assertThat(closedByServer(s)).isTrue();
        assertThat(metrics().httpRefusals("request-too-large")).isEqualTo(1);
    }
}
