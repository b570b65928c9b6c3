package io.bellwether.bench;

import io.bellwether.server.demo.LocalCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Listens to the {@code /events} streams of some nodes and notes the moment the first of them reports itself
 * LEADER above a given epoch. Server-sent events are pushed as the change happens, so the measurement adds no
 * polling load to the nodes it measures and no polling interval to the result.
 *
 * <p>It also follows the old leader's stream, if given, for the event in which that leader stops being LEADER,
 * and keeps the time each node stamped on the two events ({@code at}: the wall clock, read by the node as the
 * change reaches its listeners; to the microsecond on Linux, and one clock for every process of the machine).
 * Their difference is how long no node acted as leader, without the delay of the streams themselves.
 *
 * <p>Each stream is read by one thread over a plain socket (HTTP/1.1, chunked), not through an HTTP client
 * library: the nodes and this process share the machine's cores, and the watch must cost the failover it
 * measures as little CPU as possible.
 */
final class LeaderWatch implements AutoCloseable {
    private static final Pattern LEADER_EPOCH = Pattern.compile("\"role\":\"LEADER\".*?\"epoch\":(\\d+)");
    private static final Pattern ROLE = Pattern.compile("\"role\":\"([A-Z_]+)\"");
    private static final Pattern AT = Pattern.compile("\"at\":\"([^\"]+)\"");

    private final CompletableFuture<Long> elected = new CompletableFuture<>();
    private final CompletableFuture<Void> revoked = new CompletableFuture<>();
    /** The new leader's own stamp on the event that reported it, in nanoseconds since the epoch. */
    private volatile long electedAtNanos = -1;
    /** The old leader's own stamp on the event in which it stopped being LEADER; -1 if none was seen. */
    private volatile long revokedAtNanos = -1;

    private final List<Socket> sockets = new ArrayList<>();

    /**
     * Subscribes to every given member's events and returns once each stream has delivered its first
     * (snapshot) event, so that nothing that happens afterwards can be missed.
     */
    static LeaderWatch above(LocalCluster cluster, String oldLeader, List<String> members, long epoch)
            throws IOException, InterruptedException {
        LeaderWatch watch = new LeaderWatch();
        List<String> watched = new ArrayList<>(members);
        watched.add(oldLeader);
        CountDownLatch subscribed = new CountDownLatch(watched.size());
        for (String id : watched) {
            boolean old = id.equals(oldLeader);
            URI uri = cluster.member(id).httpUri("/events");
            Socket socket = new Socket();
            watch.sockets.add(socket);
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                            + "\r\nAccept: text/event-stream\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread reader = new Thread(
                    () -> {
                        try {
                            watch.read(socket.getInputStream(), old, epoch, subscribed);
                        } catch (IOException e) {
                            // the stream was closed: by close(), or by the node going away
                        } finally {
                            if (old) {
                                watch.revoked.complete(null); // ended: no revocation is coming
                            }
                        }
                    },
                    "leader-watch-" + id);
            reader.setDaemon(true);
            reader.start();
        }
        if (!subscribed.await(30, TimeUnit.SECONDS)) {
            watch.close();
            throw new IllegalStateException("event streams did not start within 30 s");
        }
        return watch;
    }

    /** Reads the response head, then the chunked body's lines, checking every {@code data:} line. */
    private void read(InputStream in, boolean oldLeader, long epoch, CountDownLatch subscribed) throws IOException {
        String status = line(in);
        if (status == null || !status.contains(" 200")) {
            throw new IOException("unexpected response: " + status);
        }
        String header;
        while ((header = line(in)) != null && !header.isEmpty()) {
            // headers: the body is chunked (the JDK server streams an unknown length that way)
        }
        boolean first = true;
        while (true) {
            String size = line(in);
            if (size == null) {
                return;
            }
            int length = Integer.parseInt(size.split(";")[0].trim(), 16);
            if (length == 0) {
                return;
            }
            byte[] chunk = in.readNBytes(length);
            line(in); // the CRLF after the chunk
            long now = System.nanoTime();
            for (String l : new String(chunk, StandardCharsets.UTF_8).split("\n")) {
                if (!l.startsWith("data:")) {
                    continue;
                }
                if (first) {
                    first = false;
                    subscribed.countDown();
                }
                if (oldLeader) {
                    Matcher role = ROLE.matcher(l);
                    if (revokedAtNanos < 0 && role.find() && !role.group(1).equals("LEADER")) {
                        revokedAtNanos = at(l);
                        revoked.complete(null);
                    }
                    continue;
                }
                Matcher m = LEADER_EPOCH.matcher(l);
                if (m.find() && Long.parseLong(m.group(1)) > epoch && !elected.isDone()) {
                    electedAtNanos = at(l);
                    elected.complete(now);
                }
            }
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                String s = buf.toString(StandardCharsets.US_ASCII);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            buf.write(b);
        }
        return buf.size() == 0 ? null : buf.toString(StandardCharsets.US_ASCII);
    }

    private static long at(String event) {
        Matcher m = AT.matcher(event);
        if (!m.find()) {
            return -1;
        }
        Instant at = Instant.parse(m.group(1));
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    /**
     * How long no node led, by the nodes' own stamps: from the old leader's event leaving LEADER to the new
     * leader's event. Call after {@link #awaitElected}; waits up to {@code ceiling} for the old leader's event,
     * which can reach this process after the new leader's. Empty when there was none (the old leader was killed
     * or paused, or its stream ended first).
     */
    Optional<Long> awaitLeaderless(Duration ceiling) throws Exception {
        try {
            revoked.get(ceiling.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return Optional.empty();
        }
        long r = revokedAtNanos;
        long electedAt = electedAtNanos;
        return r < 0 || electedAt < 0 ? Optional.empty() : Optional.of(electedAt - r);
    }

    /** The {@link System#nanoTime()} at which a new leader was first reported. */
    long awaitElected(Duration ceiling) throws Exception {
        return elected.get(ceiling.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
