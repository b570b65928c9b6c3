package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MessageCodec;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import io.bellwether.state.GroupNames;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

    private final String cluster;
    private final NodeId self;
    private final NodeAddress listen;
    private final byte[] key;
    private final TlsLayer tls;
    private final int maxFrameBytes;
    private final Observer observer;
    private final Peers peers;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    // Every connection, every peer's state and every listener call live on this one thread.
    private final EventLoop loop;
    private final Lookups lookups;
    // Null with fixed member addresses.
    private final PeerDirectory directory;
    /** Every member, this node included, with its fixed address where it has one (none when discovered). */
    private final Set<NodeId> members;

    private final Map<NodeId, NodeAddress> fixedAddresses;
    private final PeerLinks links;
    private Channel serverChannel;
    private boolean started;

    private TcpTransport(Builder b) {
        this.cluster = b.cluster;
        this.self = b.self;
        this.listen = b.listen != null ? b.listen : b.members.get(b.self);
        Map<NodeId, NodeAddress> members = b.members;
        this.fixedAddresses = members != null ? Map.copyOf(members) : Map.of();
        if (members == null) {
            members = new TreeMap<>();
            for (NodeId id : b.discovered) {
                members.put(id, null); // where it listens is discovered
            }
        }
        this.key = b.secret != null ? b.secret.clone() : Frames.INSECURE_KEY;
        this.tls = b.tls;
        this.maxFrameBytes = b.maxFrameBytes;
        this.observer = b.observer;
        this.members = Collections.unmodifiableSet(new TreeSet<>(members.keySet()));
        this.peers = new Peers(members, self, observer);
        this.acceptGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("bellwether-tcp-accept", true));
        this.ioGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("bellwether-tcp-io", true));
        this.loop = ioGroup.next();
        this.lookups = new Lookups(b.nameLookup);
        this.directory = b.resolver == null
                ? null
                : new PeerDirectory(self, listen, b.resolver, b.resolveIntervalNanos, loop, lookups);
        this.links = new PeerLinks(cluster, self, maxFrameBytes, observer, peers, loop, lookups, key, tls, directory);
        links.host(new Handshakes(
                cluster, self, maxFrameBytes, b.maxUnauthenticated, peers, links, directory, tls, observer, loop));
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
            if (links.isClosed()) {
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
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, PeerLinks.waterMark())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        links.accepted(ch);
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
                tls != null ? " (TLS)" : key == Frames.INSECURE_KEY ? " (INSECURE: no secret)" : "");
        loop.execute(links::start);
    }

    /**
     * Connection state per configured peer (this node excluded), for status pages. With discovered peers, a
     * peer's address is where it was last reached, null before that.
     */
    public Map<NodeId, PeerStatus> peers() {
        return peers.statuses();
    }

    /** What discovery last learned, when peers are discovered ({@link Builder#discover}). */
    public Optional<DiscoveryStatus> discovery() {
        return directory == null ? Optional.empty() : Optional.of(directory.status());
    }

    /** For tests: how many open connections have completed their handshake (each pair should have one). */
    int establishedConnections() {
        return links.onLoop(links::connectedCount);
    }

    /** Every member it was built with, this node included, in id order. */
    @Override
    public Set<NodeId> members() {
        return members;
    }

    /** The address it was built with for {@code member}; empty for discovered members ({@link Builder#discover}). */
    @Override
    public Optional<NodeAddress> address(NodeId member) {
        return Optional.ofNullable(fixedAddresses.get(member));
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
        if (links.isClosed()) {
            throw new IllegalStateException("the TCP transport of " + this.self + " is closed");
        }
        links.onLoop(() -> {
            if (links.isClosed()) {
                throw new IllegalStateException("the TCP transport of " + this.self + " is closed");
            }
            peers.register(group, codec, listener, this.self);
            return null;
        });
    }

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        links.send(group, to, message);
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
        if (links.isClosed()) {
            peers.unregister(group);
            return;
        }
        try {
            links.onLoop(() -> {
                peers.unregister(group);
                return null;
            });
        } catch (RejectedExecutionException e) {
            peers.unregister(group);
        }
    }

    /**
     * Closes every connection (reporting each to the registered groups first, see the class comment) and
     * stops the threads. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (links.isClosed()) {
                return;
            }
            links.markClosed();
        }
        try {
            links.onLoop(() -> {
                links.closeAll(serverChannel);
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
        private TlsLayer tls;
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
            return TlsLayer.serverNameProblem(name);
        }

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
                PeerDirectory.checkMembers(discovered, self, listen);
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
                tls = TlsLayer.build(certificateChain, privateKey, trustedCertificates, verifyHostname, tlsServerName);
            }
            return new TcpTransport(this);
        }
    }
}
