package io.bellwether.server.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What an outsider on loopback throws at a cluster's ports, from seeded randomness and bounded in count, rate and
 * time: garbage on the peer ports, HTTP clients that send their request a byte at a time or abandon it halfway,
 * floods of server-sent-event clients that never read, and storms of connections opened and closed at once, all
 * from source addresses spread over 127.0.0.0/8. It counts what it saw the nodes do (closings, 503s), per target
 * port, so a test can compare that with what the nodes counted.
 */
final class HostileNoise implements AutoCloseable {
    /** Connections of each kind open at once, at most: every loop below is bounded by these and by the deadline. */
    static final int MAX_GARBAGE_IN_FLIGHT = 32;

    static final int SLOW_CLIENTS = 8;
    static final int MAX_HELD_EVENT_STREAMS = 600;
    static final int STORM_BURST = 100;

    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;
    /** How long a garbage connection waits for the node to close it: longer than any handshake deadline. */
    private static final int CLOSE_WAIT_MILLIS = 30_000;

    private final List<Integer> peerPorts;
    private final List<Integer> httpPorts;
    private final long seed;
    private final long deadlineNanos;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "hostile-noise");
        t.setDaemon(true);
        return t;
    });
    /** Runs each garbage connection until the node closes it; the semaphore keeps its queue empty. */
    private final ExecutorService garbageConnections = Executors.newFixedThreadPool(MAX_GARBAGE_IN_FLIGHT, r -> {
        Thread t = new Thread(r, "hostile-noise-garbage");
        t.setDaemon(true);
        return t;
    });

    private final Semaphore garbageInFlight = new Semaphore(MAX_GARBAGE_IN_FLIGHT);
    private final Deque<Socket> heldStreams = new ArrayDeque<>();

    /** Per target port: garbage connections the node closed. */
    final Map<Integer, AtomicLong> garbageClosed = new ConcurrentHashMap<>();
    /** Per target port: event-stream requests answered 503. */
    final Map<Integer, AtomicLong> streamsRefused = new ConcurrentHashMap<>();
    /** Per target port: event-stream requests answered 200 (then held without reading). */
    final Map<Integer, AtomicLong> streamsAccepted = new ConcurrentHashMap<>();
    /** Per target port: slow or abandoned HTTP clients the node closed before they finished their request. */
    final Map<Integer, AtomicLong> slowClosed = new ConcurrentHashMap<>();

    final AtomicLong garbageSent = new AtomicLong();
    final AtomicLong stormConnections = new AtomicLong();
    final AtomicLong slowStarted = new AtomicLong();

    HostileNoise(List<Integer> peerPorts, List<Integer> httpPorts, long seed, long durationNanos) {
        this.peerPorts = List.copyOf(peerPorts);
        this.httpPorts = List.copyOf(httpPorts);
        this.seed = seed;
        this.deadlineNanos = System.nanoTime() + durationNanos;
    }

    /** Starts every generator; each stops by itself at the deadline. */
    void start() {
        threads.execute(() -> garbage(new Random(seed)));
        for (int i = 0; i < SLOW_CLIENTS; i++) {
            long s = seed * 31 + i;
            threads.execute(() -> slowClient(new Random(s)));
        }
        threads.execute(() -> eventStreams(new Random(seed * 37)));
        threads.execute(() -> storms(new Random(seed * 41)));
    }

    /** Waits for every generator to end (they end at the deadline); then closes whatever they still hold. */
    void awaitEnd() throws InterruptedException {
        long left = deadlineNanos - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS + 10_000);
        threads.shutdown();
        boolean ended = threads.awaitTermination(Math.max(left, 0), TimeUnit.NANOSECONDS);
        garbageConnections.shutdown();
        ended &= garbageConnections.awaitTermination(CLOSE_WAIT_MILLIS + 10_000, TimeUnit.MILLISECONDS);
        close();
        if (!ended) {
            throw new IllegalStateException("noise generators did not stop after their deadline");
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
        garbageConnections.shutdownNow();
        synchronized (heldStreams) {
            heldStreams.forEach(HostileNoise::closeQuietly);
            heldStreams.clear();
        }
    }

    private boolean running() {
        return System.nanoTime() < deadlineNanos && !Thread.currentThread().isInterrupted();
    }

    /** A source address in 127.0.0.2–127.0.0.254, so the nodes see many strangers, not one. */
    private static InetSocketAddress source(Random random) throws IOException {
        byte[] a = {127, 0, 0, (byte) (2 + random.nextInt(253))};
        return new InetSocketAddress(InetAddress.getByAddress(a), 0);
    }

    private static Socket connect(Random random, int port) throws IOException {
        Socket s = new Socket();
        try {
            s.bind(source(random));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), CONNECT_TIMEOUT_MILLIS);
            return s;
        } catch (IOException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /** Ten garbage connections a second to the peer ports: random bytes, huge lengths, or a frame cut short. */
    private void garbage(Random random) {
        while (running()) {
            int port = peerPorts.get(random.nextInt(peerPorts.size()));
            byte[] junk = junk(random);
            if (!garbageInFlight.tryAcquire()) {
                pause(100);
                continue;
            }
            garbageConnections.execute(() -> {
                try (Socket s = connect(new Random(random.nextLong() ^ port), port)) {
                    s.getOutputStream().write(junk);
                    s.getOutputStream().flush();
                    garbageSent.incrementAndGet();
                    if (closedByPeer(s, CLOSE_WAIT_MILLIS)) {
                        garbageClosed
                                .computeIfAbsent(port, p -> new AtomicLong())
                                .incrementAndGet();
                    }
                } catch (IOException e) {
                    // refused or reset while writing: the node dropped us before we finished; not counted as sent
                } finally {
                    garbageInFlight.release();
                }
            });
            pause(100);
        }
    }

    private static byte[] junk(Random random) {
        switch (random.nextInt(4)) {
            case 0: { // a length prefix far over any frame limit
                return new byte[] {(byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1, 2, 3};
            }
            case 1: { // a plausible length, then fewer bytes than it promised
                byte[] b = new byte[40];
                random.nextBytes(b);
                b[0] = 0;
                b[1] = 0;
                b[2] = 1;
                b[3] = 0;
                return b;
            }
            case 2: // HTTP spoken to the peer port
                return "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            default: {
                byte[] b = new byte[1 + random.nextInt(2048)];
                random.nextBytes(b);
                return b;
            }
        }
    }

    /** A client that sends its request head a byte a second, or stops halfway and waits. */
    private void slowClient(Random random) {
        byte[] head = "GET /status HTTP/1.1\r\nHost: bellwether\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"
                .getBytes(StandardCharsets.US_ASCII);
        while (running()) {
            int port = httpPorts.get(random.nextInt(httpPorts.size()));
            boolean abandon = random.nextBoolean();
            slowStarted.incrementAndGet();
            try (Socket s = connect(random, port)) {
                s.setSoTimeout(1_000);
                OutputStream out = s.getOutputStream();
                int cut = abandon ? 1 + random.nextInt(head.length - 1) : head.length;
                boolean closed = false;
                for (int i = 0; i < cut && running() && !closed; i++) {
                    out.write(head[i]);
                    out.flush();
                    closed = closedByPeer(s, 1_000);
                }
                while (!closed && running()) { // abandoned, or the whole head sent without its end: just wait
                    closed = closedByPeer(s, 1_000);
                }
                if (closed) {
                    slowClosed.computeIfAbsent(port, p -> new AtomicLong()).incrementAndGet();
                }
            } catch (IOException e) {
                // reset while writing: the node closed us
                slowClosed.computeIfAbsent(port, p -> new AtomicLong()).incrementAndGet();
            }
        }
    }

    /** Opens event streams and never reads them, as many as the nodes take; drops the oldest beyond our own cap. */
    private void eventStreams(Random random) {
        byte[] request = "GET /events HTTP/1.1\r\nHost: bellwether\r\nAccept: text/event-stream\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII);
        while (running()) {
            int port = httpPorts.get(random.nextInt(httpPorts.size()));
            Socket s = null;
            try {
                s = connect(random, port);
                s.setSoTimeout(5_000);
                s.getOutputStream().write(request);
                s.getOutputStream().flush();
                String status = statusLine(s.getInputStream());
                if (status.contains(" 503")) {
                    streamsRefused.computeIfAbsent(port, p -> new AtomicLong()).incrementAndGet();
                    closeQuietly(s);
                } else if (status.contains(" 200")) {
                    streamsAccepted.computeIfAbsent(port, p -> new AtomicLong()).incrementAndGet();
                    s.setReceiveBufferSize(4096);
                    synchronized (heldStreams) {
                        heldStreams.addLast(s);
                        while (heldStreams.size() > MAX_HELD_EVENT_STREAMS) {
                            closeQuietly(heldStreams.removeFirst());
                        }
                    }
                } else {
                    closeQuietly(s);
                }
            } catch (IOException e) {
                closeQuietly(s);
            }
            pause(20);
        }
    }

    /** Every three seconds, a burst of connections opened and closed at once, on peer and HTTP ports alike. */
    private void storms(Random random) {
        List<Integer> ports = new ArrayList<>(peerPorts);
        ports.addAll(httpPorts);
        while (running()) {
            for (int i = 0; i < STORM_BURST && running(); i++) {
                try (Socket s = connect(random, ports.get(random.nextInt(ports.size())))) {
                    stormConnections.incrementAndGet();
                    if (random.nextBoolean()) {
                        s.setSoLinger(true, 0); // leave with a reset rather than a FIN
                    }
                } catch (IOException e) {
                    // refused: a node at its cap may do that
                }
            }
            pause(3_000);
        }
    }

    /** Whether the peer closed (or reset) the connection within {@code millis}; false if it is still open. */
    private static boolean closedByPeer(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[4096];
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            while (System.nanoTime() < end) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n' && line.length() < 200; c = in.read()) {
            line.append((char) c);
        }
        return line.toString();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // the noise's pace, not a wait for an outcome
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing noise
            }
        }
    }
}
