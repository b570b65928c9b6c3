package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.transport.tcp.Peers.Group;
import io.bellwether.transport.tcp.Peers.Peer;
import io.bellwether.transport.tcp.TcpTransport.Observer;
import io.bellwether.transport.tcp.TcpTransport.PeerStatus;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connection management: one connection per peer, made, kept and written to. Of each pair the lower id dials and
 * the other accepts (with discovered peers either may dial, and {@link PeerDirectory} keeps one); a dialer retries
 * with capped exponential backoff and ±20% jitter, and a connection's end is reported to the groups and followed
 * by a {@link DepartureProbe}. The handshake on each connection is {@link Handshakes}' business; this class learns its
 * outcome ({@link #established}, {@link #closed}, {@link #lost}).
 *
 * <p>On the transport's I/O thread, except {@link #send}, {@link #onLoop} and the closed flag (any thread).
 */
final class PeerLinks implements PeerDirectory.Links {
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    static final long BACKOFF_MIN_MILLIS = 50;
    static final long BACKOFF_MAX_MILLIS = 2_000;
    static final double BACKOFF_JITTER = 0.2;
    static final int CONNECT_TIMEOUT_MILLIS = 1_000;

    private final String cluster;
    private final NodeId self;
    private final int maxFrameBytes;
    private final Observer observer;
    private final Peers peers;
    private final EventLoop loop;
    private final ChannelGroup channels;
    private final Lookups lookups;
    private final byte[] key;
    // Null without TLS.
    private final TlsLayer tls;
    // Null with fixed member addresses.
    private final PeerDirectory directory;
    private final SplittableRandom jitter = new SplittableRandom(new SecureRandom().nextLong());
    private Handshakes host;
    private volatile boolean closed;

    PeerLinks(
            String cluster,
            NodeId self,
            int maxFrameBytes,
            Observer observer,
            Peers peers,
            EventLoop loop,
            Lookups lookups,
            byte[] key,
            TlsLayer tls,
            PeerDirectory directory) {
        this.cluster = cluster;
        this.self = self;
        this.maxFrameBytes = maxFrameBytes;
        this.observer = observer;
        this.peers = peers;
        this.loop = loop;
        this.channels = new DefaultChannelGroup("bellwether-tcp", loop);
        this.lookups = lookups;
        this.key = key;
        this.tls = tls;
        this.directory = directory;
    }

    /** Sets what runs the handshake of every connection; once, before {@link #start}. */
    void host(Handshakes host) {
        this.host = host;
    }

    /** Dials the peers this node dials, and starts discovery if peers are discovered. */
    void start() {
        peers.all().stream().filter(p -> p.dials).forEach(this::dial);
        if (directory != null) {
            directory.start(this);
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Stops dialing and reporting: from now on nothing new is reported to the groups. Any thread. */
    void markClosed() {
        closed = true;
    }

    /**
     * Ends every connection: cancels the retries, reports each connection closed, then closes the listener (a peer
     * that sees its connection close probes this address at once, and must find it refused) and the connections.
     */
    void closeAll(Channel listener) {
        if (directory != null) {
            directory.close();
        }
        for (Peer p : peers.all()) {
            if (p.retry != null) {
                p.retry.cancel(false);
                p.retry = null;
            }
            Connection c = p.current;
            if (c != null) {
                p.current = null;
                peers.reportDisconnected(p);
            }
            peers.setState(p, PeerStatus.State.DISCONNECTED, "transport closed");
        }
        peers.unregisterAll();
        if (listener != null) {
            // The port refuses before any connection ends: a peer that sees its connection end probes this address
            // at once (DepartureProbe), and must find it refused, not still listening. The listener runs on the
            // accept loop, never this one, so waiting here cannot deadlock.
            listener.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        // What was sent goes out before the end (on the loop, here: a connection writes and flushes once per pass of
        // the loop, and a message sent just before this close would otherwise be dropped with the channel).
        for (Channel ch : channels) {
            Connection c = ch.pipeline().get(Connection.class);
            if (c != null) {
                c.flushPending();
            }
        }
        channels.close();
    }

    /** How many open connections have completed their handshake (each pair should have one). */
    int connectedCount() {
        return (int) channels.stream()
                .map(ch -> ch.pipeline().get(Connection.class))
                .filter(c -> c != null && c.state() == Connection.State.ESTABLISHED)
                .count();
    }

    /** Runs {@code task} on the I/O thread and returns its result; at once if called there. */
    <T> T onLoop(Callable<T> task) {
        if (loop.inEventLoop()) {
            try {
                return task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        try {
            return loop.submit(task).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the transport's I/O thread", e);
        }
    }

    static WriteBufferWaterMark waterMark() {
        return new WriteBufferWaterMark(64 * 1024, 256 * 1024);
    }

    /** Sets up an accepted connection, unless the handshake slots refuse it. */
    void accepted(SocketChannel ch) {
        if (!host.admit(ch)) {
            return;
        }
        channels.add(ch);
        if (tls != null) {
            ch.pipeline().addLast(tls.serverHandler(ch));
        }
        ch.pipeline().addLast(new Connection(host, key, null));
    }

    private void dial(Peer p) {
        if (closed || p.current != null || p.dialChannel != null) {
            return;
        }
        NodeAddress target = p.address;
        if (directory != null && (target == null || !directory.dialable(p.id, target))) {
            return; // not (or no longer) resolved there: discovery dials it when it finds it
        }
        peers.setState(p, PeerStatus.State.CONNECTING, null);
        // With discovered peers whoever answers is learned in the handshake (the address may have a new owner).
        ChannelFuture connecting = connect(target, directory == null ? p.id : null);
        Channel ch = connecting.channel();
        p.dialChannel = ch;
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                p.lastError = "connect to " + target + " failed: " + f.cause().getMessage();
                ch.close();
            }
        });
        ch.closeFuture().addListener(f -> dialEnded(p, ch));
    }

    @Override
    public ChannelFuture connect(NodeAddress address) {
        return connect(address, null);
    }

    /** Dials {@code address}; {@code expectedPeer} null learns who answers there. */
    private ChannelFuture connect(NodeAddress address, NodeId expectedPeer) {
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .resolver(lookups.resolverGroup())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        if (tls != null) {
                            ch.pipeline().addLast(tls.clientHandler(ch, address));
                        }
                        ch.pipeline().addLast(new Connection(host, key, expectedPeer, address));
                    }
                });
        return bootstrap.connect(address.host(), address.port());
    }

    private void dialEnded(Peer p, Channel ch) {
        if (p.dialChannel != ch) {
            return;
        }
        p.dialChannel = null;
        if (p.current != null && p.current.channel() == ch) {
            lost(p, p.current);
        }
        redialLater(p);
    }

    /** Schedules the next dial of {@code p} with backoff, unless one is under way or it is connected. */
    private void redialLater(Peer p) {
        if (closed || p.current != null || p.dialChannel != null || p.retry != null) {
            return;
        }
        long ceiling = Math.min(BACKOFF_MAX_MILLIS, BACKOFF_MIN_MILLIS << Math.min(p.attempts, 16));
        long delay = Math.max(1, Math.round(ceiling * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * jitter.nextDouble())));
        p.attempts++;
        peers.setState(p, PeerStatus.State.DISCONNECTED, p.lastError);
        log.debug("node {}: reconnecting to {} in {} ms (attempt {})", self, p.id, delay, p.attempts);
        p.retry = loop.schedule(
                () -> {
                    p.retry = null;
                    dial(p);
                },
                delay,
                TimeUnit.MILLISECONDS);
    }

    /** {@code c} completed its handshake with {@code p}: it becomes the peer's connection, or is closed. */
    void established(Peer p, Connection c) {
        if (closed || p == null) {
            c.close();
            return;
        }
        Connection old = p.current;
        if (old != null && old != c && !PeerDirectory.replaces(self, c, old)) {
            // Both dialed at once (discovered peers): the lower id's connection stays, at both ends.
            log.debug("node {}: keeping the connection with {} that the lower id dialed; closing {}", self, p.id, c);
            c.close();
            return;
        }
        if (old != null && old != c) {
            // The peer dialed again while we still held its old connection: it restarted or lost that
            // one without our seeing it. The new one wins; the old one is reported closed first.
            log.info("node {}: {} connected again; closing its previous connection", self, p.id);
            p.current = null;
            peers.reportDisconnected(p);
            old.close();
        }
        p.current = c;
        p.closings++; // a probe under way no longer proves anything about this peer
        p.attempts = 0;
        p.lastError = null;
        if (c.dialedAddress() != null && !c.dialedAddress().equals(p.address)) {
            p.address = c.dialedAddress(); // a discovered peer, or one that moved
        }
        peers.setState(p, PeerStatus.State.CONNECTED, null);
        log.info("node {}: connected to {} ({})", self, p.id, c.channel().remoteAddress());
        peers.reportConnected(p);
    }

    /** {@code c}, a connection with {@code p}, closed (for any reason). */
    void closed(Peer p, Connection c) {
        if (!c.wasEstablished() && p.lastError == null && p.current == null) {
            p.lastError =
                    "connection closed during the handshake (the peer may have refused this node: see" + " its log)";
        }
        lost(p, c);
    }

    /** {@code c} is no longer {@code p}'s connection: reported, probed, and (discovered peers) redialed. */
    void lost(Peer p, Connection c) {
        if (p.current != c) {
            return;
        }
        p.current = null;
        peers.setState(
                p,
                p.dialChannel != null && p.dialChannel.isActive()
                        ? PeerStatus.State.CONNECTING
                        : PeerStatus.State.DISCONNECTED,
                p.lastError);
        log.info("node {}: connection to {} closed", self, p.id);
        if (!closed) {
            peers.reportDisconnected(p);
            probeDeparture(p);
        }
        if (directory != null && p.dials) {
            // With discovered peers the lost connection may not be this node's dial (the peer dialed, or a probe
            // found it); the lower id redials all the same, at the address it last reached the peer at.
            redialLater(p);
        }
    }

    /**
     * Asks at once whether the peer is gone (see {@link DepartureProbe}): electors act on a closing only once it is
     * proven, and the regular redial waits out a backoff (and is the other end's job half the time). The proof
     * holds only while no connection to the peer has been made since the closing.
     */
    private void probeDeparture(Peer p) {
        NodeAddress target = p.address;
        if (target == null) {
            return; // a discovered peer never reached at an address: only the timeouts can tell
        }
        probeDeparture(p, target, ++p.closings, 0);
    }

    /**
     * A dying process's connections may close a moment before its listener does, so an accepted probe is tried
     * again twice, 5 and 30 ms later; a live peer costs three bare connections per closing.
     */
    private void probeDeparture(Peer p, NodeAddress target, int closing, int attempt) {
        DepartureProbe.probe(
                loop,
                lookups.resolverGroup(),
                target,
                () -> {
                    if (!closed && p.current == null && p.closings == closing) {
                        log.info("node {}: {} is gone (connection to {} refused)", self, p.id, target);
                        peers.reportGone(p);
                    }
                },
                () -> {
                    if (attempt < 2 && !closed && p.current == null && p.closings == closing) {
                        loop.schedule(
                                () -> probeDeparture(p, target, closing, attempt + 1),
                                attempt == 0 ? 5 : 25,
                                TimeUnit.MILLISECONDS);
                    }
                });
    }

    /** See {@link TcpTransport#send}: never blocks, never throws; drops what cannot go out now. */
    void send(String group, NodeId to, ElectorMessage message) {
        Group g = peers.group(group);
        Peer p = peers.get(to);
        if (g == null || p == null || message == null) {
            return;
        }
        Connection c = p.current;
        if (c == null) {
            return;
        }
        int type;
        byte[] body;
        try {
            type = g.codec().typeOf(message);
            body = g.codec().encode(message);
        } catch (RuntimeException e) {
            log.warn("group {}: cannot encode {} for {}; dropped", group, message, to, e);
            return;
        }
        if (type < 1 || type > 255 || Frames.messageFrameBytes(cluster, self, group, body.length) > maxFrameBytes) {
            log.warn(
                    "group {}: {} for {} has type {} and a {}-byte body, over the frame limit of {} bytes or"
                            + " out of type range 1-255; dropped",
                    group,
                    message.type(),
                    to,
                    type,
                    body.length,
                    maxFrameBytes);
            return;
        }
        String typeName = message.type();
        if (loop.inEventLoop()) {
            // An election running on this thread (see sharedLoop): everything before is done, so writing now keeps
            // the frame and its counter in order with the handshake and the earlier writes.
            write(p, c, group, type, body, typeName);
            return;
        }
        try {
            // From another thread, through the loop's queue, for the same reason.
            loop.execute(() -> write(p, c, group, type, body, typeName));
        } catch (RejectedExecutionException e) {
            // closed: best effort means dropping
        }
    }

    /** Writes one message frame on the loop, if {@code c} is still the peer's connection. */
    private void write(Peer p, Connection c, String group, int type, byte[] body, String typeName) {
        if (p.current == c && c.send(group, type, body)) {
            try {
                observer.messageSent(typeName);
            } catch (RuntimeException e) {
                log.warn("messageSent callback threw; ignored", e);
            }
        }
    }

    @Override
    public boolean connected(NodeId member) {
        Peer p = peers.get(member);
        return p != null && p.current != null;
    }

    @Override
    public boolean redials(NodeId member, NodeAddress address) {
        Peer p = peers.get(member);
        if (p == null || !p.dials || !address.equals(p.address)) {
            return false;
        }
        if (p.dialChannel == null && p.retry == null) {
            dial(p);
        }
        return true;
    }
}
