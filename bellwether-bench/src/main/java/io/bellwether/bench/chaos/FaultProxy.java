package io.bellwether.bench.chaos;

import io.bellwether.bench.chaos.ChaosNetwork.Rule;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fault-injecting TCP proxy for the connections endpoint {@code from} makes to endpoint {@code to}: listens on a
 * free loopback port and forwards each accepted connection to 127.0.0.1:{@code targetPort}, applying the {@link
 * ChaosNetwork}'s rule for {@code from → to} to the client-to-target bytes and its rule for {@code to → from} to the
 * target-to-client bytes. Rules are looked up for every chunk, so a change applies to open connections at once.
 *
 * <p>Blocking sockets, four threads per connection: a reader and a writer per direction with a queue between them
 * bounded at {@link #MAX_BUFFERED_BYTES} (a full queue stops the reader, so TCP flow control reaches the sender).
 * At most {@link #MAX_CONNECTIONS} connections; accepting one more resets the oldest.
 *
 * <p>A connection accepted while either direction is {@code DROP} or {@code STALL} is held: nothing is forwarded
 * and the target is not dialled. While {@code from → to} drops, the held connection's bytes are read and discarded;
 * otherwise they are left unread. When neither direction blocks any more, a held connection that discarded bytes
 * or whose client has closed its end meanwhile is reset, and any other is connected to the target, its unread bytes
 * flowing on.
 */
final class FaultProxy implements AutoCloseable {
    /** The most connections held open at once; accepting another resets the oldest. */
    static final int MAX_CONNECTIONS = 64;
    /** The most bytes a direction of a connection buffers (DELAY, STALL, THROTTLE) before it stops reading. */
    static final int MAX_BUFFERED_BYTES = 4 << 20;
    /** The prefix of every thread's name. */
    static final String THREAD_PREFIX = "chaos-proxy-";

    private static final int CHUNK_BYTES = 16 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    /** How often a held connection that drops re-reads its rule while blocked reading the client. */
    private static final int HOLD_POLL_MILLIS = 50;
    /** A throttled write carries at most this share of a second's allowance, so the rate holds at a fine grain. */
    private static final int THROTTLE_SLICES_PER_SECOND = 50;

    private static final AtomicLong NEXT_ID = new AtomicLong();

    private final ChaosNetwork network;
    private final String from;
    private final String to;
    private final int targetPort;
    private final int port;
    /** The listening socket; null while {@linkplain #stopListening() refusing}. Guarded by this. */
    private ServerSocket server;
    /** The thread accepting on {@link #server}. Guarded by this. */
    private Thread acceptor;

    private final String name;
    /** Open connections, oldest first; guarded by itself. */
    private final ArrayDeque<Link> links = new ArrayDeque<>();

    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicLong droppedBytes = new AtomicLong();
    private volatile boolean closed;

    FaultProxy(ChaosNetwork network, String from, String to, int targetPort) throws IOException {
        this.network = network;
        this.from = from;
        this.to = to;
        this.targetPort = targetPort;
        this.name = THREAD_PREFIX + from + "-" + to;
        ServerSocket s = bind(0);
        this.port = s.getLocalPort();
        this.server = s;
        acceptor = start(name + "-accept", () -> acceptLoop(s));
    }

    int port() {
        return port;
    }

    /**
     * Closes the listening socket, so that dials are refused ({@code ECONNREFUSED}) as on a host where nothing
     * listens; open connections stay.
     */
    synchronized void stopListening() {
        if (server != null) {
            closeQuietly(server);
            server = null;
            // The socket's descriptor is released only once the thread blocked in accept() has left it; until
            // then the kernel would still complete handshakes.
            try {
                acceptor.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Listens again on the same port after {@link #stopListening()}; does nothing if listening or closed.
     *
     * @throws IOException if the port cannot be bound again (another socket took it meanwhile)
     */
    synchronized void listen() throws IOException {
        if (server != null || closed) {
            return;
        }
        ServerSocket s = bind(port);
        server = s;
        acceptor = start(name + "-accept", () -> acceptLoop(s));
    }

    synchronized boolean listening() {
        return server != null;
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        try {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            return s;
        } catch (IOException e) {
            closeQuietly(s);
            throw new IOException("cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
    }

    String from() {
        return from;
    }

    String to() {
        return to;
    }

    /** Wakes every connection to re-read its rules, and resets those that dropped bytes and drop no more. */
    void rulesChanged() {
        for (Link link : snapshot()) {
            if (link.dirty && !link.dropping()) {
                link.close(true);
            } else {
                link.signal();
            }
        }
    }

    /** Resets every open connection. */
    void resetAll() {
        for (Link link : snapshot()) {
            link.close(true);
        }
    }

    /** @return the open connections (held ones included) */
    int connections() {
        synchronized (links) {
            return links.size();
        }
    }

    /** @return the bytes discarded by DROP rules so far, both directions */
    long droppedBytes() {
        return droppedBytes.get();
    }

    /** @return the bytes queued in the proxy in both directions of all connections */
    long bufferedBytes() {
        long sum = 0;
        for (Link link : snapshot()) {
            sum += link.bufferedBytes();
        }
        return sum;
    }

    /**
     * Stops accepting, resets every connection and waits (at most until {@code deadlineNanos}) for the proxy's
     * threads to end.
     */
    void close(long deadlineNanos) {
        closed = true;
        stopListening();
        resetAll();
        // A connection being set up may start threads after the reset; they see it closed and end at once.
        while (!threads.isEmpty()) {
            for (Thread t : List.copyOf(threads)) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }

    private List<Link> snapshot() {
        synchronized (links) {
            return new ArrayList<>(links);
        }
    }

    private void acceptLoop(ServerSocket server) {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            Link link = new Link(client, NEXT_ID.incrementAndGet());
            Link evicted = null;
            synchronized (links) {
                if (closed) {
                    link.close(true);
                    return;
                }
                links.addLast(link);
                if (links.size() > MAX_CONNECTIONS) {
                    evicted = links.pollFirst();
                }
            }
            if (evicted != null) {
                evicted.close(true);
            }
            start(name + "#" + link.id + "-up", link::run);
        }
    }

    private Thread start(String threadName, Runnable body) {
        Thread t = new Thread(
                () -> {
                    try {
                        body.run();
                    } finally {
                        threads.remove(Thread.currentThread());
                    }
                },
                threadName);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    /** One chunk read and not yet written; {@code data == null} is the end of the stream (a FIN). */
    private static final class Chunk {
        final byte[] data;
        final long readAtNanos;
        int offset;

        Chunk(byte[] data, long readAtNanos) {
            this.data = data;
            this.readAtNanos = readAtNanos;
        }

        int remaining() {
            return data == null ? 0 : data.length - offset;
        }
    }

    /** One direction of a connection: the queue between its reader and its writer, guarded by the link's lock. */
    private static final class Pipe {
        final String source;
        final String destination;
        final ArrayDeque<Chunk> queue = new ArrayDeque<>();
        long queuedBytes;
        /** THROTTLE: the earliest time the next slice may be written. */
        long nextWriteNanos;
        /** The end of the stream was passed on. */
        boolean finished;

        Pipe(String source, String destination) {
            this.source = source;
            this.destination = destination;
        }
    }

    /** One accepted connection and, once connected, its connection to the target. */
    private final class Link {
        final long id;
        final Socket client;
        volatile Socket target;
        final Pipe up = new Pipe(from, to);
        final Pipe down = new Pipe(to, from);
        /** Bytes (or a FIN) were discarded by a DROP: the stream is no longer whole. */
        volatile boolean dirty;
        /** Accepted while a direction blocked: the target was dialled late, if at all. Owned by the first thread. */
        boolean held;

        final AtomicBoolean closed = new AtomicBoolean();
        final ReentrantLock lock = new ReentrantLock();
        /** Signalled on every rule change, queue change and close. */
        final Condition changed = lock.newCondition();

        Link(Socket client, long id) {
            this.client = client;
            this.id = id;
        }

        Rule rule(Pipe pipe) {
            return network.rule(pipe.source, pipe.destination);
        }

        boolean dropping() {
            return rule(up).kind() == ChaosNetwork.Kind.DROP || rule(down).kind() == ChaosNetwork.Kind.DROP;
        }

        boolean blocked() {
            return rule(up).blocks() || rule(down).blocks();
        }

        void signal() {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        long bufferedBytes() {
            lock.lock();
            try {
                return up.queuedBytes + down.queuedBytes;
            } finally {
                lock.unlock();
            }
        }

        /** Closes both sockets; with {@code reset}, with an RST rather than a FIN. */
        void close(boolean reset) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            synchronized (links) {
                links.remove(this);
            }
            signal();
            closeSocket(client, reset);
            Socket t = target;
            if (t != null) {
                closeSocket(t, reset);
            }
        }

        /** The first thread of the connection: holds it while blocked, connects, then reads client → target. */
        void run() {
            try {
                client.setTcpNoDelay(true);
                if (!hold()) {
                    return;
                }
                if (dirty || (held && abandoned())) {
                    close(true);
                    return;
                }
                Socket t = new Socket();
                try {
                    t.setTcpNoDelay(true);
                    t.connect(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort),
                            CONNECT_TIMEOUT_MILLIS);
                } catch (IOException e) {
                    // Refused (the target process is gone): an RST tells the dialer at once, as a dead host's
                    // kernel would, instead of a connection that looks open and never answers.
                    closeQuietly(t);
                    close(true);
                    return;
                }
                lock.lock();
                try {
                    if (closed.get()) {
                        closeSocket(t, true);
                        return;
                    }
                    target = t;
                } finally {
                    lock.unlock();
                }
                start(name + "#" + id + "-up-write", () -> write(up, t));
                start(name + "#" + id + "-down-read", () -> read(down, t));
                start(name + "#" + id + "-down-write", () -> write(down, client));
                read(up, client);
            } catch (IOException e) {
                close(true);
            }
        }

        /**
         * Holds a connection accepted while a direction blocks, until neither does.
         *
         * @return false if the connection was closed meanwhile
         */
        private boolean hold() throws IOException {
            byte[] discard = null;
            while (!closed.get()) {
                Rule upRule = rule(up);
                if (!blocked()) {
                    client.setSoTimeout(0);
                    return true;
                }
                held = true;
                if (upRule.kind() == ChaosNetwork.Kind.DROP) {
                    // The sender's writes succeed and vanish; the read times out now and then to see rule changes.
                    if (discard == null) {
                        discard = new byte[CHUNK_BYTES];
                        client.setSoTimeout(HOLD_POLL_MILLIS);
                    }
                    int n;
                    try {
                        n = client.getInputStream().read(discard);
                    } catch (SocketTimeoutException e) {
                        continue;
                    }
                    if (n < 0) {
                        close(false);
                        return false;
                    }
                    dirty = true;
                    droppedBytes.addAndGet(n);
                    continue;
                }
                lock.lock();
                try {
                    if (!closed.get() && blocked() && rule(up).kind() != ChaosNetwork.Kind.DROP) {
                        changed.await();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } finally {
                    lock.unlock();
                }
            }
            close(true);
            return false;
        }

        /**
         * After a hold, takes in what the client sent meanwhile (up to the buffer bound) and tells whether it closed
         * its end: a dialer that gave up during the partition must not hand the target a stale conversation.
         */
        private boolean abandoned() throws IOException {
            byte[] buffer = new byte[CHUNK_BYTES];
            client.setSoTimeout(1);
            try {
                InputStream in = client.getInputStream();
                while (true) {
                    int n;
                    try {
                        n = in.read(buffer);
                    } catch (SocketTimeoutException e) {
                        return false;
                    }
                    if (n < 0) {
                        return true;
                    }
                    lock.lock();
                    try {
                        up.queue.addLast(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime()));
                        up.queuedBytes += n;
                        if (up.queuedBytes >= MAX_BUFFERED_BYTES) {
                            return false;
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            } finally {
                client.setSoTimeout(0);
            }
        }

        /** Reads {@code socket} into {@code pipe} while the rule lets it. */
        private void read(Pipe pipe, Socket socket) {
            byte[] buffer = new byte[CHUNK_BYTES];
            try {
                InputStream in = socket.getInputStream();
                while (true) {
                    lock.lock();
                    try {
                        // STALL: leave the bytes in the socket, so the sender's TCP window closes as in a partition.
                        while (!closed.get()
                                && (rule(pipe).kind() == ChaosNetwork.Kind.STALL
                                        || pipe.queuedBytes >= MAX_BUFFERED_BYTES)) {
                            changed.await();
                        }
                        if (closed.get()) {
                            return;
                        }
                    } finally {
                        lock.unlock();
                    }
                    int n = in.read(buffer);
                    long now = System.nanoTime();
                    lock.lock();
                    try {
                        if (closed.get()) {
                            return;
                        }
                        if (rule(pipe).kind() == ChaosNetwork.Kind.DROP) {
                            // Discarded, the end of the stream too: a partition eats FINs as well.
                            dirty = true;
                            if (n < 0) {
                                return;
                            }
                            droppedBytes.addAndGet(n);
                            continue;
                        }
                        Chunk chunk = new Chunk(n < 0 ? null : Arrays.copyOf(buffer, n), now);
                        pipe.queue.addLast(chunk);
                        pipe.queuedBytes += chunk.remaining();
                        changed.signalAll();
                        if (n < 0) {
                            return;
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            } catch (IOException e) {
                close(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close(true);
            }
        }

        /** Writes {@code pipe} to {@code socket} as the rule lets it. */
        private void write(Pipe pipe, Socket socket) {
            try {
                OutputStream out = socket.getOutputStream();
                while (true) {
                    byte[] data;
                    int offset;
                    int length;
                    lock.lock();
                    try {
                        Chunk head;
                        while (true) {
                            if (closed.get()) {
                                return;
                            }
                            head = pipe.queue.peekFirst();
                            if (head == null) {
                                changed.await();
                                continue;
                            }
                            Rule rule = rule(pipe);
                            long now = System.nanoTime();
                            long waitNanos = 0;
                            switch (rule.kind()) {
                                case DROP -> {
                                    pipe.queue.pollFirst();
                                    pipe.queuedBytes -= head.remaining();
                                    droppedBytes.addAndGet(head.remaining());
                                    dirty = true;
                                    changed.signalAll();
                                    continue;
                                }
                                case STALL -> waitNanos = Long.MAX_VALUE;
                                case DELAY -> waitNanos =
                                        head.readAtNanos + rule.delay().toNanos() - now;
                                case THROTTLE -> waitNanos = pipe.nextWriteNanos - now;
                                case PASS -> waitNanos = 0;
                            }
                            if (waitNanos == Long.MAX_VALUE) {
                                changed.await();
                            } else if (waitNanos > 0) {
                                changed.awaitNanos(waitNanos);
                            } else {
                                break;
                            }
                        }
                        if (head.data == null) {
                            pipe.queue.pollFirst();
                            data = null;
                            offset = 0;
                            length = 0;
                        } else {
                            Rule rule = rule(pipe);
                            length = head.remaining();
                            if (rule.kind() == ChaosNetwork.Kind.THROTTLE) {
                                long perSecond = rule.bytesPerSecond();
                                length = (int) Math.max(1, Math.min(length, perSecond / THROTTLE_SLICES_PER_SECOND));
                                long now = System.nanoTime();
                                pipe.nextWriteNanos = Math.max(pipe.nextWriteNanos, now)
                                        + Math.max(1, length * 1_000_000_000L / perSecond);
                            }
                            data = head.data;
                            offset = head.offset;
                            head.offset += length;
                            pipe.queuedBytes -= length;
                            if (head.remaining() == 0) {
                                pipe.queue.pollFirst();
                            }
                            changed.signalAll();
                        }
                    } finally {
                        lock.unlock();
                    }
                    if (data == null) {
                        finish(pipe, socket);
                        return;
                    }
                    out.write(data, offset, length);
                }
            } catch (IOException e) {
                close(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close(true);
            }
        }

        /** Passes the end of the stream on; once both directions ended, the connection closes. */
        private void finish(Pipe pipe, Socket socket) throws IOException {
            socket.shutdownOutput();
            boolean both;
            lock.lock();
            try {
                pipe.finished = true;
                both = up.finished && down.finished;
            } finally {
                lock.unlock();
            }
            if (both) {
                close(false);
            }
        }
    }

    private static void closeSocket(Socket socket, boolean reset) {
        if (reset) {
            try {
                socket.setSoLinger(true, 0);
            } catch (IOException e) {
                // already closed
            }
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }
}
