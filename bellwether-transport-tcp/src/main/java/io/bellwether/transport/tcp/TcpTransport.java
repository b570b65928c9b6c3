package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MessageCodec;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import io.bellwether.state.GroupNames;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty transport: one authenticated, framed TCP connection per peer pair, shared by every election group of
 * the process.
 *
 * <p><b>Connections.</b> Of each pair of members the one with the lower id dials and the other accepts, so a
 * pair has one connection; an accepted connection from a peer that already has one replaces it (the peer
 * started over). A dialer retries with capped exponential backoff and ±20% jitter (50 ms doubling to 2 s),
 * and starts again from 50 ms after each successful handshake. A host name in an address is looked up again
 * at each attempt, off the I/O thread (see {@link Lookups}).
 *
 * <p><b>Discovered peers.</b> Instead of a fixed address per member, the transport can be given the member ids
 * and a {@link PeerResolver} ({@link Builder#discover}): it resolves the addresses every interval, dials those
 * whose member it does not know yet and learns who is there in the authenticated handshake. Either end may
 * then dial first; {@link PeerDirectory} keeps one connection per pair, recognises this node's own address and
 * follows a member to a new address. The member set itself never changes.
 *
 * <p><b>Wire and security.</b> Length-prefixed frames carrying a magic, the protocol version (a peer with
 * another version is logged with both versions and disconnected), the cluster name, the sender id, the group
 * and the message, each followed by an HMAC-SHA256 with the shared secret. A handshake exchanges fresh nonces
 * that every later MAC covers, together with a per-direction counter, so frames cannot be replayed on
 * another connection, nor replayed or reordered on the same one. A frame that fails any check (too large,
 * malformed, another version, another cluster, an unknown sender, a bad MAC, a replay, an undecodable message)
 * is dropped, its connection closed, the reason counted through {@link Observer#frameRejected} and logged at
 * WARN at most once per reason per 10 s. TLS (mutual when a trust file is given, each member's certificate then
 * naming its id: {@link TlsMemberIds}) can be layered under it. Accepted connections whose peer has not yet
 * proved it holds the secret are bounded ({@link Builder#maxUnauthenticatedConnections}, a quarter of it per
 * remote address; {@link HandshakeSlots} closes the oldest rather than turn a member away), and each has 5 s to
 * complete the handshake (else reason {@code handshake-timeout}). A second live process with a member's id is
 * refused (reason {@code duplicate-id}, logged at ERROR; {@link DuplicateIds}).
 *
 * <p><b>The {@link Transport} contract.</b> {@link TransportListener#onPeerConnected} is called when a
 * handshake completes, and {@link TransportListener#onPeerDisconnected} when that connection ends: closed by
 * the peer or the network, or closed by this node because the peer broke the protocol or this transport is
 * closing; this transport has no idle timeout, so it reports none. After a reported close nothing from that
 * connection is delivered. Right after reporting a close it probes the peer's address with a bare TCP connection
 * ({@link DepartureProbe}) and reports {@link TransportListener#onPeerGone} if that is refused and no connection
 * to the peer was made meanwhile: the proof electors need before they act on a closing, since the two ends of a
 * connection learn of its end at different times. Close this transport only after the elections registered on it
 * have stopped: its listener closing is what tells peers this process is gone. All listener callbacks run on
 * the transport's single I/O thread, in order.
 *
 * <p>Messages to a peer without a working connection, or whose connection is backed up, are dropped. {@link
 * #send} never blocks and never throws.
 *
 * <p>Threads: one acceptor thread ({@code bellwether-tcp-accept-*}) and one I/O thread ({@code
 * bellwether-tcp-io-*}), daemons. Thread-safe.
 */
public final class TcpTransport implements Transport, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    /** The default {@link Builder#maxUnauthenticatedConnections}. */
    public static final int DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS = 64;

    /** The default {@link Builder#maxFrameBytes}: 64 KiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 64 * 1024;

    static final int MIN_SECRET_BYTES = 16;
    static final long BACKOFF_MIN_MILLIS = 50;
    static final long BACKOFF_MAX_MILLIS = 2_000;
    static final double BACKOFF_JITTER = 0.2;
    static final int CONNECT_TIMEOUT_MILLIS = 1_000;
    static final long HANDSHAKE_TIMEOUT_MILLIS = 5_000;
    static final long REJECT_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final String DUPLICATE_ID = "duplicate-id";

    private final String cluster;
    private final NodeId self;
    private final NodeAddress listen;
    private final Map<NodeId, Peer> peers;
    private final byte[] key;
    private final SslContext serverSsl;
    private final SslContext clientSsl;
    private final boolean verifyHostname;
    private final String tlsServerName;
    private final int maxFrameBytes;
    private final boolean tlsBindsIds;
    private final Observer observer;
    // I/O thread only: accepted connections whose peer has not proved itself yet.
    private final HandshakeSlots slots;
    private final DuplicateIds duplicates;
    private final long instance;
    private final RejectLog rejectLog = new RejectLog(REJECT_LOG_INTERVAL_NANOS);
    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final SecureRandom nonces = new SecureRandom();
    private final SplittableRandom jitter = new SplittableRandom(new SecureRandom().nextLong());
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    // Every connection, every peer's state and every listener call live on this one thread.
    private final EventLoop loop;
    private final ChannelGroup channels;
    private final Host host = new Host();
    private final Lookups lookups;
    // Null with fixed member addresses.
    private final PeerDirectory directory;
    private Channel serverChannel;
    private boolean started;
    private volatile boolean closed;

    private TcpTransport(Builder b) {
        this.cluster = b.cluster;
        this.self = b.self;
        this.listen = b.listen != null ? b.listen : b.members.get(b.self);
        Map<NodeId, NodeAddress> members = b.members;
        if (members == null) {
            members = new TreeMap<>();
            for (NodeId id : b.discovered) {
                members.put(id, null); // where it listens is discovered
            }
        }
        this.key = b.secret != null ? b.secret.clone() : Frames.INSECURE_KEY;
        this.serverSsl = b.serverSsl;
        this.clientSsl = b.clientSsl;
        this.verifyHostname = b.verifyHostname;
        this.tlsServerName = b.tlsServerName;
        this.maxFrameBytes = b.maxFrameBytes;
        this.tlsBindsIds = b.serverSsl != null && b.trustedCertificates != null;
        this.observer = b.observer;
        this.slots = new HandshakeSlots(b.maxUnauthenticated, this::isMemberHost);
        this.instance = nonces.nextLong();
        Map<NodeId, Peer> p = new TreeMap<>();
        members.forEach((id, address) -> {
            if (!id.equals(self)) {
                p.put(id, new Peer(id, address, self.compareTo(id) < 0));
            }
        });
        this.peers = Collections.unmodifiableMap(p);
        this.acceptGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("bellwether-tcp-accept", true));
        this.ioGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("bellwether-tcp-io", true));
        this.loop = ioGroup.next();
        this.duplicates = new DuplicateIds(loop, this::refuseDuplicate);
        this.channels = new DefaultChannelGroup("bellwether-tcp", loop);
        this.lookups = new Lookups(b.nameLookup);
        this.directory = b.resolver == null
                ? null
                : new PeerDirectory(self, listen, b.resolver, b.resolveIntervalNanos, loop, lookups);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds the listen address and starts connecting to peers.
     *
     * @throws java.io.UncheckedIOException on bind failure
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the TCP transport of " + self + " is closed");
            }
            if (started) {
                throw new IllegalStateException("the TCP transport of " + self + " is already started");
            }
            started = true;
        }
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptGroup, ioGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!admit(ch)) {
                            return;
                        }
                        channels.add(ch);
                        if (serverSsl != null) {
                            ch.pipeline().addLast(serverSsl.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(new Connection(host, key, null));
                    }
                });
        ChannelFuture bound = bootstrap.bind(listen.host(), listen.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            close();
            IOException io = cause instanceof IOException e ? e : new IOException(cause);
            throw new UncheckedIOException(
                    "cannot listen on " + listen + " for node " + self + ": " + cause.getMessage(), io);
        }
        serverChannel = bound.channel();
        log.info(
                "node {} of cluster {} listening on {}{}",
                self,
                cluster,
                listen,
                serverSsl != null ? " (TLS)" : key == Frames.INSECURE_KEY ? " (INSECURE: no secret)" : "");
        loop.execute(() -> {
            peers.values().stream().filter(p -> p.dials).forEach(this::dial);
            if (directory != null) {
                directory.start(host);
            }
        });
    }

    /**
     * Connection state per configured peer (this node excluded), for status pages. With discovered peers, a
     * peer's address is where it was last reached, null before that.
     */
    public Map<NodeId, PeerStatus> peers() {
        Map<NodeId, PeerStatus> result = new TreeMap<>();
        peers.forEach((id, p) -> result.put(id, p.status));
        return Collections.unmodifiableMap(result);
    }

    /** What discovery last learned, when peers are discovered ({@link Builder#discover}). */
    public Optional<DiscoveryStatus> discovery() {
        return directory == null ? Optional.empty() : Optional.of(directory.status());
    }

    /** For tests: how many open connections have completed their handshake (each pair should have one). */
    int establishedConnections() {
        return onLoop(() -> (int) channels.stream()
                .map(ch -> ch.pipeline().get(Connection.class))
                .filter(c -> c != null && c.state() == Connection.State.ESTABLISHED)
                .count());
    }

    /** The address this transport listens on. */
    public NodeAddress listenAddress() {
        return listen;
    }

    /**
     * Not supported: this transport needs the group's {@link MessageCodec}; use {@link #register(String,
     * NodeId, MessageCodec, TransportListener)} (the election runtime does).
     *
     * @throws IllegalArgumentException always
     */
    @Override
    public void register(String group, NodeId self, TransportListener listener) {
        throw new IllegalArgumentException("group '" + group + "': the TCP transport needs a MessageCodec to carry"
                + " messages; call register(group, self, codec, listener) with the algorithm's ElectorSpec.codec()");
    }

    /**
     * Starts receiving {@code group}'s messages; peers already connected are reported to {@code listener}
     * at once (on the I/O thread).
     *
     * @throws IllegalArgumentException if {@code self} is not this transport's node or the group name is invalid
     * @throws IllegalStateException if {@code group} is already registered or the transport is closed
     */
    @Override
    public void register(String group, NodeId self, MessageCodec codec, TransportListener listener) {
        GroupNames.check("group", group);
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(listener, "listener");
        if (!this.self.equals(self)) {
            throw new IllegalArgumentException("self = " + self + " does not match this transport's node " + this.self);
        }
        if (closed) {
            throw new IllegalStateException("the TCP transport of " + this.self + " is closed");
        }
        onLoop(() -> {
            if (closed) {
                throw new IllegalStateException("the TCP transport of " + this.self + " is closed");
            }
            if (groups.containsKey(group)) {
                throw new IllegalStateException("group '" + group + "' is already registered for node " + this.self);
            }
            Group g = new Group(group, codec, listener);
            groups.put(group, g);
            for (Peer p : peers.values()) {
                if (p.current != null) {
                    safely("onPeerConnected", () -> listener.onPeerConnected(p.id));
                }
            }
            return null;
        });
    }

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        Group g = groups.get(group);
        Peer p = to == null ? null : peers.get(to);
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
            type = g.codec.typeOf(message);
            body = g.codec.encode(message);
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

    /**
     * The transport's single I/O thread, on which elections run their event loops (see {@link
     * Transport#sharedLoop()}): a heartbeat is read, handled and answered in one wake-up of one thread.
     */
    @Override
    public Optional<ScheduledExecutorService> sharedLoop() {
        return Optional.of(loop);
    }

    @Override
    public void unregister(String group, NodeId self) {
        if (!this.self.equals(self)) {
            return;
        }
        if (closed) {
            groups.remove(group);
            return;
        }
        try {
            onLoop(() -> groups.remove(group));
        } catch (RejectedExecutionException e) {
            groups.remove(group);
        }
    }

    /**
     * Closes every connection (reporting each to the registered groups first, see the class comment) and
     * stops the threads. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            onLoop(() -> {
                if (directory != null) {
                    directory.close();
                }
                for (Peer p : peers.values()) {
                    if (p.retry != null) {
                        p.retry.cancel(false);
                        p.retry = null;
                    }
                    Connection c = p.current;
                    if (c != null) {
                        p.current = null;
                        reportDisconnected(p);
                    }
                    setState(p, PeerStatus.State.DISCONNECTED, "transport closed");
                }
                groups.clear();
                // The listener first: a peer that sees its connection close probes this address at once, and must
                // find it refused (the proof that this process holds no leadership any more).
                if (serverChannel != null) {
                    serverChannel.close();
                }
                channels.close();
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("closing the TCP transport of {}", self, e);
        }
        Future<?> io = ioGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        Future<?> accept = acceptGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        lookups.close();
        if (!loop.inEventLoop()) {
            io.awaitUninterruptibly(5, TimeUnit.SECONDS);
            accept.awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        log.debug("TCP transport of {} closed", self);
    }

    @Override
    public String toString() {
        return "TcpTransport[" + cluster + "/" + self + " on " + listen + "]";
    }

    // --- on the loop ---

    private void dial(Peer p) {
        if (closed || p.current != null || p.dialChannel != null) {
            return;
        }
        NodeAddress target = p.address;
        if (directory != null && (target == null || !directory.dialable(p.id, target))) {
            return; // not (or no longer) resolved there: discovery dials it when it finds it
        }
        setState(p, PeerStatus.State.CONNECTING, null);
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
                        if (clientSsl != null) {
                            ch.pipeline().addLast(clientTls(ch, address));
                        }
                        ch.pipeline().addLast(new Connection(host, key, expectedPeer, address));
                    }
                });
        return bootstrap.connect(address.host(), address.port());
    }

    /**
     * The TLS handler of a dialed connection. With hostname verification on, the handshake fails unless the
     * certificate the peer presents names the server name ({@link Builder#tlsServerName}) or else the host
     * dialed, by the rules of HTTPS (RFC 2818 and RFC 6125: a DNS name in its subject alternative names, a
     * wildcard covering one label, or an IP address entry for an address).
     */
    private SslHandler clientTls(SocketChannel ch, NodeAddress address) {
        String name = tlsServerName != null ? tlsServerName : address.host();
        SslHandler handler = clientSsl.newHandler(ch.alloc(), name, address.port());
        if (verifyHostname) {
            SSLEngine engine = handler.engine();
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(parameters);
        }
        return handler;
    }

    private void dialEnded(Peer p, Channel ch) {
        if (p.dialChannel != ch) {
            return;
        }
        p.dialChannel = null;
        if (p.current != null && p.current.channel() == ch) {
            connectionLost(p, p.current);
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
        setState(p, PeerStatus.State.DISCONNECTED, p.lastError);
        log.debug("node {}: reconnecting to {} in {} ms (attempt {})", self, p.id, delay, p.attempts);
        p.retry = loop.schedule(
                () -> {
                    p.retry = null;
                    dial(p);
                },
                delay,
                TimeUnit.MILLISECONDS);
    }

    private void connectionLost(Peer p, Connection c) {
        if (p.current != c) {
            return;
        }
        p.current = null;
        setState(
                p,
                p.dialChannel != null && p.dialChannel.isActive()
                        ? PeerStatus.State.CONNECTING
                        : PeerStatus.State.DISCONNECTED,
                p.lastError);
        log.info("node {}: connection to {} closed", self, p.id);
        if (!closed) {
            reportDisconnected(p);
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
                        for (Group g : groups.values()) {
                            safely("onPeerGone", () -> g.listener.onPeerGone(p.id));
                        }
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

    private void reportConnected(Peer p) {
        for (Group g : groups.values()) {
            safely("onPeerConnected", () -> g.listener.onPeerConnected(p.id));
        }
    }

    private void reportDisconnected(Peer p) {
        for (Group g : groups.values()) {
            safely("onPeerDisconnected", () -> g.listener.onPeerDisconnected(p.id));
        }
    }

    private void setState(Peer p, PeerStatus.State state, String error) {
        PeerStatus old = p.status;
        if (old.state() == state
                && Objects.equals(old.lastError(), error)
                && Objects.equals(old.address(), p.address)) {
            return;
        }
        boolean onlyMoved = old.state() == state && Objects.equals(old.lastError(), error);
        p.status = new PeerStatus(p.address, state, onlyMoved ? old.sinceNanos() : System.nanoTime(), error);
        if (old.state() != state) {
            safely("peerStateChanged", () -> observer.peerStateChanged(p.id, state));
        }
    }

    private <T> T onLoop(Callable<T> task) {
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

    private static void safely(String what, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("{} callback threw; ignored", what, e);
        }
    }

    private static WriteBufferWaterMark waterMark() {
        return new WriteBufferWaterMark(64 * 1024, 256 * 1024);
    }

    /** What connections and discovery need from the transport; every method runs on the loop. */
    private final class Host implements Connection.Host, PeerDirectory.Links {
        @Override
        public String cluster() {
            return cluster;
        }

        @Override
        public NodeId self() {
            return self;
        }

        @Override
        public boolean isMember(NodeId id) {
            return peers.containsKey(id);
        }

        @Override
        public int maxFrameBytes() {
            return maxFrameBytes;
        }

        @Override
        public byte[] newNonce() {
            byte[] nonce = new byte[Frames.NONCE_BYTES];
            nonces.nextBytes(nonce);
            if (directory != null) {
                directory.madeNonce(nonce);
            }
            return nonce;
        }

        @Override
        public long handshakeTimeoutMillis() {
            return HANDSHAKE_TIMEOUT_MILLIS;
        }

        @Override
        public long instance() {
            return instance;
        }

        @Override
        public boolean vouch(Connection c) {
            slots.release(c.channel());
            Peer p = peers.get(c.peer());
            return p == null || duplicates.vouch(c, p.current);
        }

        @Override
        public String tlsMemberIdProblem(Connection c, NodeId sender) {
            return tlsBindsIds ? TlsMemberIds.problem(c.channel(), sender) : null;
        }

        @Override
        public void established(Connection c) {
            slots.release(c.channel());
            Peer p = peers.get(c.peer());
            if (directory != null) {
                directory.ended(c);
            }
            if (closed || p == null) {
                c.close();
                return;
            }
            Connection old = p.current;
            if (old != null && old != c && !PeerDirectory.replaces(self, c, old)) {
                // Both dialed at once (discovered peers): the lower id's connection stays, at both ends.
                log.debug(
                        "node {}: keeping the connection with {} that the lower id dialed; closing {}", self, p.id, c);
                c.close();
                return;
            }
            if (old != null && old != c) {
                // The peer dialed again while we still held its old connection: it restarted or lost that
                // one without our seeing it. The new one wins; the old one is reported closed first.
                log.info("node {}: {} connected again; closing its previous connection", self, p.id);
                p.current = null;
                reportDisconnected(p);
                old.close();
            }
            p.current = c;
            p.closings++; // a probe under way no longer proves anything about this peer
            p.attempts = 0;
            p.lastError = null;
            if (c.dialedAddress() != null && !c.dialedAddress().equals(p.address)) {
                p.address = c.dialedAddress(); // a discovered peer, or one that moved
            }
            setState(p, PeerStatus.State.CONNECTED, null);
            log.info("node {}: connected to {} ({})", self, p.id, c.channel().remoteAddress());
            reportConnected(p);
        }

        @Override
        public void closed(Connection c) {
            if (directory != null) {
                directory.ended(c);
            }
            Peer p = c.peer() == null ? null : peers.get(c.peer());
            if (p == null) {
                return;
            }
            if (!c.wasEstablished() && p.lastError == null && p.current == null) {
                p.lastError = "connection closed during the handshake (the peer may have refused this node: see"
                        + " its log)";
            }
            connectionLost(p, c);
        }

        @Override
        public void rejected(Connection c, String reason, String detail) {
            safely("frameRejected", () -> observer.frameRejected(reason));
            String line =
                    "node " + self + ": refused a frame from " + describe(c) + " and closed the connection: " + detail;
            if (reason.equals(DUPLICATE_ID)) {
                rejectLog.error(reason, line);
            } else {
                rejectLog.warn(reason, line);
            }
            Peer p = c.peer() == null ? null : peers.get(c.peer());
            if (p != null) {
                p.lastError = reason + ": " + detail;
                connectionLost(p, c);
            }
        }

        @Override
        public void dropped(Connection c, String reason, String detail) {
            safely("frameRejected", () -> observer.frameRejected(reason));
            // Groups start at different moments on different members: early messages for a group not yet
            // registered here are routine, so they are counted but not worth a warning.
            log.debug("node {}: dropped a frame from {}: {} [{}]", self, describe(c), detail, reason);
        }

        @Override
        public MessageCodec codec(String group) {
            Group g = groups.get(group);
            return g == null ? null : g.codec;
        }

        @Override
        public void deliver(Connection c, String group, ElectorMessage message) {
            Peer p = peers.get(c.peer());
            Group g = groups.get(group);
            if (p == null || p.current != c || g == null) {
                return;
            }
            // Try blocks rather than safely(...): no lambda to allocate on every message's path.
            try {
                observer.messageReceived(message.type());
            } catch (RuntimeException e) {
                log.warn("messageReceived callback threw; ignored", e);
            }
            try {
                g.listener.onMessage(p.id, message);
            } catch (RuntimeException e) {
                log.warn("onMessage callback threw; ignored", e);
            }
        }

        @Override
        public boolean learnsPeers() {
            return directory != null;
        }

        @Override
        public boolean admit(Connection c, NodeId sender) {
            Peer p = peers.get(sender);
            if (directory == null || p == null) {
                return true;
            }
            if (c.dialedAddress() != null && (p.address == null || !directory.resolves(p.address))) {
                // Where it listens now (its HELLO passed the MAC check), even if this connection turns out a
                // duplicate: for status pages, and for redialing it should the other connection end.
                p.address = c.dialedAddress();
                setState(p, p.status.state(), p.status.lastError());
            }
            return directory.admit(c, sender, p.current);
        }

        @Override
        public boolean madeNonce(byte[] nonce) {
            return directory != null && directory.madeNonceRecently(nonce);
        }

        @Override
        public void reachedSelf(Connection c) {
            if (directory != null) {
                directory.reachedSelf(c);
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

        @Override
        public ChannelFuture connect(NodeAddress address) {
            return TcpTransport.this.connect(address, null);
        }

        private String describe(Connection c) {
            Channel ch = c.channel();
            Object remote = ch == null ? null : ch.remoteAddress();
            return (c.peer() != null ? c.peer() + " at " : "") + remote;
        }
    }

    /** One registered election group. */
    private record Group(String name, MessageCodec codec, TransportListener listener) {}

    /** One configured peer; mutable fields are touched on the loop only, {@code current} and status read anywhere. */
    private static final class Peer {
        final NodeId id;
        /** Where it listens: fixed, or (discovered peers) where this node last dialed it, null before. */
        volatile NodeAddress address;

        /** Whether this node dials the peer (its id is lower). */
        final boolean dials;

        volatile Connection current;
        volatile PeerStatus status;
        Channel dialChannel;
        ScheduledFuture<?> retry;
        int attempts;
        /** Counts closings and connections, so that a departure probe's answer can tell whether it is stale. */
        int closings;

        String lastError;

        Peer(NodeId id, NodeAddress address, boolean dials) {
            this.id = id;
            this.address = address;
            this.dials = dials;
            this.status = new PeerStatus(address, PeerStatus.State.DISCONNECTED, System.nanoTime(), null);
        }
    }

    /**
     * A peer's connection as this node sees it.
     *
     * @param address where the peer listens; with discovered peers, where this node last reached it, or null
     *     before it did
     * @param state its connection state
     * @param sinceNanos {@link System#nanoTime()} when it entered that state
     * @param lastError why the last connection attempt or connection failed, or null
     */
    public record PeerStatus(NodeAddress address, State state, long sinceNanos, String lastError) {
        /** A peer connection's state. */
        public enum State {
            /** Handshake completed; messages flow. */
            CONNECTED,
            /** This node is dialing or handshaking. */
            CONNECTING,
            /** No connection: waiting to retry, or waiting for the peer to dial. */
            DISCONNECTED
        }
    }

    /**
     * Told about traffic, for metrics; called from transport threads, must be quick. All methods default to
     * no-ops.
     */
    public interface Observer {
        /** A message of this type ({@link ElectorMessage#type()}) was written to a connection. */
        default void messageSent(String type) {}

        /** A message of this type was delivered to a group's listener. */
        default void messageReceived(String type) {}

        /**
         * A frame was refused and its connection closed, or (reason {@code unknown-group}) dropped with the
         * connection kept. {@code reason} is a short metric label: {@code too-large}, {@code malformed}, {@code
         * bad-version}, {@code wrong-cluster}, {@code unknown-node}, {@code wrong-direction}, {@code bad-mac},
         * {@code replay}, {@code tls}, {@code tls-member-id}, {@code duplicate-id}, {@code unknown-group}; and, for
         * connections refused as a whole, {@code connection-limit} (closed because too many others are still in
         * their handshake) and {@code handshake-timeout} (idle, or too slow, for the handshake's 5 s).
         */
        default void frameRejected(String reason) {}

        default void peerStateChanged(NodeId peer, PeerStatus.State state) {}
    }

    /**
     * On the I/O thread, for an accepted connection: whether it may start its handshake. It holds a slot until its
     * peer proves itself or it closes (see {@link HandshakeSlots}).
     */
    private boolean admit(SocketChannel ch) {
        InetAddress from = ch.remoteAddress().getAddress();
        HandshakeSlots.Admission admission = slots.admit(ch, from);
        if (admission.detail() != null) {
            safely("frameRejected", () -> observer.frameRejected("connection-limit"));
            rejectLog.warn(
                    "connection-limit",
                    "node " + self + ": " + (admission.admitted() ? "admitted" : "refused") + " a connection from "
                            + ch.remoteAddress() + ": " + admission.detail());
        }
        if (admission.evicted() != null) {
            admission.evicted().close();
        }
        if (!admission.admitted()) {
            ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> slots.release(ch));
        return true;
    }

    /** Whether {@code address} is where a member listens (an IP address configured, or a member was reached at). */
    private boolean isMemberHost(InetAddress address) {
        byte[] raw = address.getAddress();
        for (Peer p : peers.values()) {
            NodeAddress at = p.address;
            byte[] literal = at == null ? null : NetUtil.createByteArrayFromIpAddressString(at.host());
            if (literal != null && java.util.Arrays.equals(literal, raw)) {
                return true;
            }
        }
        return false;
    }

    /** {@code newcomer} claims the id of a member whose connection {@code current} answered a probe. */
    private void refuseDuplicate(Connection newcomer, Connection current) {
        safely("frameRejected", () -> observer.frameRejected(DUPLICATE_ID));
        rejectLog.error(
                DUPLICATE_ID,
                "node " + self + ": two live processes use the id '" + newcomer.peer() + "': one connected from "
                        + current.channel().remoteAddress() + ", the other from "
                        + newcomer.channel().remoteAddress() + "; refused the newer one and kept the first. Give"
                        + " every member its own id");
        newcomer.close();
    }

    /** Configures a {@link TcpTransport}. Not thread-safe. */
    public static final class Builder {
        private String cluster;
        private NodeId self;
        private NodeAddress listen;
        private Map<NodeId, NodeAddress> members;
        private List<NodeId> discovered;
        private PeerResolver resolver;
        private long resolveIntervalNanos = PeerResolver.DEFAULT_INTERVAL.toNanos();
        private Lookups.NameLookup nameLookup = java.net.InetAddress::getAllByName;
        private byte[] secret;
        private boolean insecure;
        private Path certificateChain;
        private Path privateKey;
        private Path trustedCertificates;
        private SslContext serverSsl;
        private SslContext clientSsl;
        private boolean verifyHostname = true;
        private String tlsServerName;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private int maxUnauthenticated = DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS;
        private Observer observer = new Observer() {};

        private Builder() {}

        /** Cluster name carried in every frame; peers with another name are refused. Required. */
        public Builder cluster(String cluster) {
            this.cluster = GroupNames.check("cluster", cluster);
            return this;
        }

        /** This node's id, one of the {@linkplain #members members}. Required. */
        public Builder self(NodeId self) {
            this.self = Objects.requireNonNull(self, "self");
            return this;
        }

        /** Where to listen; default: this node's address in {@link #members}. Required with {@link #discover}. */
        public Builder listen(NodeAddress address) {
            this.listen = Objects.requireNonNull(address, "listen");
            return this;
        }

        /** Every member, this one included, at its fixed address. Required, unless {@link #discover} is used. */
        public Builder members(Map<NodeId, NodeAddress> members) {
            Objects.requireNonNull(members, "members");
            this.members = new TreeMap<>(members);
            return this;
        }

        /**
         * Every member's id, this one included, with where they listen discovered by {@code resolver} (resolved
         * at start and every {@link #resolveInterval}): instead of {@link #members}. The ids are fixed — they
         * make the quorum — and a node of another id is refused as always; only addresses are discovered.
         */
        public Builder discover(Collection<NodeId> members, PeerResolver resolver) {
            Objects.requireNonNull(members, "members");
            this.discovered = List.copyOf(members);
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * How often the {@link #discover} resolver runs; default {@link PeerResolver#DEFAULT_INTERVAL 5 s}, allowed 1 s
         * to 10 min.
         */
        public Builder resolveInterval(java.time.Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.compareTo(PeerResolver.MIN_INTERVAL) < 0
                    || interval.compareTo(PeerResolver.MAX_INTERVAL) > 0) {
                throw new IllegalArgumentException(
                        "resolve interval = " + interval.toMillis() + " ms is out of range: allowed 1 s to 10 min");
            }
            this.resolveIntervalNanos = interval.toNanos();
            return this;
        }

        /** For tests: any resolve interval, shorter than allowed. */
        Builder resolveIntervalForTests(java.time.Duration interval) {
            this.resolveIntervalNanos = interval.toNanos();
            return this;
        }

        /** For tests: how host names are looked up (default {@link java.net.InetAddress#getAllByName}). */
        Builder nameLookup(Lookups.NameLookup lookup) {
            this.nameLookup = Objects.requireNonNull(lookup, "lookup");
            return this;
        }

        /** The shared cluster secret (at least 16 bytes) used for HMAC-SHA256 over every frame. */
        public Builder secret(byte[] secret) {
            Objects.requireNonNull(secret, "secret");
            if (secret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException(
                        "secret is " + secret.length + " bytes: at least " + MIN_SECRET_BYTES + " bytes are required");
            }
            this.secret = secret.clone();
            return this;
        }

        /** Runs without authentication; must be asked for explicitly. */
        public Builder insecure() {
            this.insecure = true;
            return this;
        }

        /**
         * Optional TLS: PEM certificate chain and PEM (PKCS#8) private key of this node, and PEM trusted
         * certificates. With trusted certificates, both ends require and verify each other's certificate (mTLS);
         * without (null), the server asks for no client certificate and the client trusts the JVM's default
         * authorities. The HMAC stays on when a secret is set. A dialing node checks that the certificate presented
         * to it names the peer it dialed ({@link #tlsVerifyHostname}, on by default; see {@link #tlsServerName}).
         */
        public Builder tls(Path certificateChain, Path privateKey, Path trustedCertificates) {
            this.certificateChain = Objects.requireNonNull(certificateChain, "certificateChain");
            this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
            this.trustedCertificates = trustedCertificates;
            return this;
        }

        /**
         * Whether a dialing node checks that the certificate its peer presents names the host it dialed (TLS
         * endpoint identification, by the rules of HTTPS: a matching DNS name, or IP address for an address, in
         * the certificate's subject alternative names): default {@code true}. A certificate that a trusted
         * authority signed for another name is then refused like an untrusted one (reason {@code tls}). Turn it
         * off only where every certificate the trusted authorities sign belongs to a member, for instance a
         * cluster's own private authority whose certificates name no host. Accepting nodes never check names: a
         * client's address is not a name its certificate could carry.
         */
        public Builder tlsVerifyHostname(boolean verify) {
            this.verifyHostname = verify;
            return this;
        }

        /**
         * The name every member's certificate must carry when hostname verification is on, instead of the host
         * dialed; also sent as the TLS server name indication. Useful with {@linkplain #discover discovered
         * peers}, which are dialed at the addresses a lookup returned (the node daemon passes the {@code
         * peers-dns} name), and with certificates issued for one cluster-wide name. Default: none, the host dialed.
         *
         * @throws IllegalArgumentException if the name is blank or not a host name
         */
        public Builder tlsServerName(String name) {
            Objects.requireNonNull(name, "name");
            tlsServerNameProblem(name).ifPresent(problem -> {
                throw new IllegalArgumentException("tls server name = '" + name + "' is invalid: " + problem);
            });
            this.tlsServerName = name;
            return this;
        }

        /**
         * Why {@code name} cannot be a {@linkplain #tlsServerName TLS server name} (what is allowed instead), or
         * empty if it can: for configuration loaders, which name their own key in the error.
         */
        public static Optional<String> tlsServerNameProblem(String name) {
            return name.length() <= 253 && HOST_NAME.matcher(name).matches()
                    ? Optional.empty()
                    : Optional.of("allowed a host name (labels of letters, digits and '-', joined by '.')");
        }

        /**
         * A DNS host name (RFC 1123 labels), or an IPv4 address. Not a wildcard: the name is what a certificate must
         * match, and a certificate's wildcard name matches it (a {@code *.nodes.example} certificate matches {@code
         * peers.nodes.example}).
         */
        private static final java.util.regex.Pattern HOST_NAME = java.util.regex.Pattern.compile(
                "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

        /** Largest accepted frame (after its 4-byte length prefix), default 64 KiB; allowed 1 KiB to 16 MiB. */
        public Builder maxFrameBytes(int bytes) {
            if (bytes < 1024 || bytes > 16 * 1024 * 1024) {
                throw new IllegalArgumentException(
                        "max-frame-bytes = " + bytes + " is out of range: allowed 1024 to 16777216");
            }
            this.maxFrameBytes = bytes;
            return this;
        }

        /**
         * How many accepted connections may be in their handshake at once (default 64; allowed 1 to 65536); a
         * quarter of that, at least one, from any one address. Further connections are closed at once and
         * counted as refused frames with reason {@code connection-limit}. A cluster's own peers need one each.
         */
        public Builder maxUnauthenticatedConnections(int connections) {
            if (connections < 1 || connections > 65_536) {
                throw new IllegalArgumentException(
                        "max-unauthenticated-connections = " + connections + " is out of range: allowed 1 to 65536");
            }
            this.maxUnauthenticated = connections;
            return this;
        }

        /** Told about traffic and refusals, for metrics. Default: none. */
        public Builder observer(Observer observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * Checks the configuration and builds a transport; call {@link TcpTransport#start()}.
         *
         * @throws IllegalArgumentException naming what is missing or inconsistent
         */
        public TcpTransport build() {
            if (cluster == null) {
                throw new IllegalArgumentException("cluster is required: allowed " + GroupNames.ALLOWED);
            }
            if (self == null) {
                throw new IllegalArgumentException("self is required: the id of this node, one of the members");
            }
            if (members != null && discovered != null) {
                throw new IllegalArgumentException("members and discover are both set: allowed one of them (fixed"
                        + " addresses, or member ids with a resolver)");
            }
            if (discovered != null) {
                checkDiscovered();
            } else if (members == null || members.isEmpty()) {
                throw new IllegalArgumentException("members is required: every member, this one included");
            } else if (!members.containsKey(self)) {
                throw new IllegalArgumentException(
                        "self = " + self + " is not one of the members " + members.keySet() + ": allowed one of them");
            }
            if (secret == null && !insecure) {
                throw new IllegalArgumentException("secret is required: set secret(...) (at least " + MIN_SECRET_BYTES
                        + " bytes, shared by the cluster) unless insecure() is set explicitly");
            }
            if (secret != null && insecure) {
                throw new IllegalArgumentException(
                        "secret and insecure are both set: allowed one of them (a secret, or insecure() without one)");
            }
            if (certificateChain != null) {
                buildSsl();
            }
            return new TcpTransport(this);
        }

        private void checkDiscovered() {
            if (discovered.isEmpty()) {
                throw new IllegalArgumentException(
                        "discover: members is empty: allowed every member's id, this one" + " included");
            }
            if (new java.util.HashSet<>(discovered).size() != discovered.size()) {
                throw new IllegalArgumentException(
                        "discover: members " + discovered + " repeat an id: allowed each id once");
            }
            if (!discovered.contains(self)) {
                throw new IllegalArgumentException(
                        "self = " + self + " is not one of the members " + discovered + ": allowed one of them");
            }
            if (listen == null) {
                throw new IllegalArgumentException(
                        "listen is required with discover: the address this node accepts peer connections on");
            }
        }

        private void buildSsl() {
            for (Map.Entry<String, Path> e : Map.of(
                            "tls certificate chain", certificateChain,
                            "tls private key", privateKey)
                    .entrySet()) {
                if (!Files.isReadable(e.getValue())) {
                    throw new IllegalArgumentException(
                            e.getKey() + " = " + e.getValue() + " is not a readable file: allowed a PEM file");
                }
            }
            if (trustedCertificates != null && !Files.isReadable(trustedCertificates)) {
                throw new IllegalArgumentException("tls trusted certificates = " + trustedCertificates
                        + " is not a readable file: allowed a PEM file");
            }
            try {
                SslContextBuilder server = SslContextBuilder.forServer(certificateChain.toFile(), privateKey.toFile());
                SslContextBuilder client =
                        SslContextBuilder.forClient().keyManager(certificateChain.toFile(), privateKey.toFile());
                if (trustedCertificates != null) {
                    server.trustManager(trustedCertificates.toFile()).clientAuth(ClientAuth.REQUIRE);
                    client.trustManager(trustedCertificates.toFile());
                }
                serverSsl = server.build();
                clientSsl = client.build();
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException(
                        "tls: cannot use certificate chain " + certificateChain
                                + ", private key " + privateKey + " and trusted certificates " + trustedCertificates
                                + ": "
                                + e.getMessage(),
                        e);
            }
        }
    }
}
