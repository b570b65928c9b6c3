package io.bellwether.transport.tcp;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.transport.tcp.Peers.Group;
import io.bellwether.transport.tcp.Peers.Peer;
import io.bellwether.transport.tcp.TcpTransport.Observer;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handshake and authentication, as the transport's side of every {@link Connection}: who may start a handshake
 * (bounded by {@link HandshakeSlots}), fresh nonces, whether a peer that proved it holds the secret may go on (a
 * second live process with a member's id may not: {@link DuplicateIds}; a certificate must name its member:
 * {@link TlsLayer}; discovered peers: {@link PeerDirectory}), and the refusals, counted for the observer and
 * logged at most once per reason per 10 s. A completed or ended connection is handed on to {@link PeerLinks}.
 *
 * <p>Every method runs on the transport's I/O thread.
 */
final class Handshakes implements Connection.Host {
    // The transport's logger: these lines are the transport's, whichever class writes them.
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    static final long HANDSHAKE_TIMEOUT_MILLIS = 5_000;
    static final long REJECT_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final String DUPLICATE_ID = "duplicate-id";

    private final String cluster;
    private final NodeId self;
    private final int maxFrameBytes;
    private final Peers peers;
    private final PeerLinks links;
    // Null with fixed member addresses.
    private final PeerDirectory directory;
    // Null without TLS.
    private final TlsLayer tls;
    private final Observer observer;
    // Accepted connections whose peer has not proved itself yet.
    private final HandshakeSlots slots;
    private final DuplicateIds duplicates;
    private final SecureRandom nonces = new SecureRandom();
    private final long instance = nonces.nextLong();
    private final RejectLog rejectLog = new RejectLog(REJECT_LOG_INTERVAL_NANOS);

    Handshakes(
            String cluster,
            NodeId self,
            int maxFrameBytes,
            int maxUnauthenticated,
            Peers peers,
            PeerLinks links,
            PeerDirectory directory,
            TlsLayer tls,
            Observer observer,
            EventLoop loop) {
        this.cluster = cluster;
        this.self = self;
        this.maxFrameBytes = maxFrameBytes;
        this.peers = peers;
        this.links = links;
        this.directory = directory;
        this.tls = tls;
        this.observer = observer;
        this.slots = new HandshakeSlots(maxUnauthenticated, peers::isMemberHost);
        this.duplicates = new DuplicateIds(loop, this::refuseDuplicate);
    }

    /**
     * For an accepted connection: whether it may start its handshake. It holds a slot until its peer proves itself
     * or it closes (see {@link HandshakeSlots}).
     */
    boolean admit(SocketChannel ch) {
        InetAddress from = ch.remoteAddress().getAddress();
        HandshakeSlots.Admission admission = slots.admit(ch, from);
        if (admission.detail() != null) {
            Peers.safely("frameRejected", () -> observer.frameRejected("connection-limit"));
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

    /** {@code newcomer} claims the id of a member whose connection {@code current} answered a probe. */
    private void refuseDuplicate(Connection newcomer, Connection current) {
        Peers.safely("frameRejected", () -> observer.frameRejected(DUPLICATE_ID));
        rejectLog.error(
                DUPLICATE_ID,
                "node " + self + ": two live processes use the id '" + newcomer.peer() + "': one connected from "
                        + current.channel().remoteAddress() + ", the other from "
                        + newcomer.channel().remoteAddress() + "; refused the newer one and kept the first. Give"
                        + " every member its own id");
        newcomer.close();
    }

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
        return peers.isMember(id);
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
        return tls != null ? tls.memberIdProblem(c, sender) : null;
    }

    @Override
    public void established(Connection c) {
        slots.release(c.channel());
        Peer p = peers.get(c.peer());
        if (directory != null) {
            directory.ended(c);
        }
        links.established(p, c);
    }

    @Override
    public void closed(Connection c) {
        if (directory != null) {
            directory.ended(c);
        }
        Peer p = peers.get(c.peer());
        if (p != null) {
            links.closed(p, c);
        }
    }

    @Override
    public void rejected(Connection c, String reason, String detail) {
        Peers.safely("frameRejected", () -> observer.frameRejected(reason));
        String line =
                "node " + self + ": refused a frame from " + describe(c) + " and closed the connection: " + detail;
        if (reason.equals(DUPLICATE_ID)) {
            rejectLog.error(reason, line);
        } else {
            rejectLog.warn(reason, line);
        }
        Peer p = peers.get(c.peer());
        if (p != null) {
            p.lastError = reason + ": " + detail;
            links.lost(p, c);
        }
    }

    @Override
    public void dropped(Connection c, String reason, String detail) {
        Peers.safely("frameRejected", () -> observer.frameRejected(reason));
        // Groups start at different moments on different members: early messages for a group not yet
        // registered here are routine, so they are counted but not worth a warning.
        log.debug("node {}: dropped a frame from {}: {} [{}]", self, describe(c), detail, reason);
    }

    @Override
    public Group group(String name) {
        return peers.group(name);
    }

    @Override
    public void deliver(Connection c, Group group, ElectorMessage message) {
        peers.deliver(c, group, message);
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
            peers.setState(p, p.status.state(), p.status.lastError());
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

    private static String describe(Connection c) {
        Channel ch = c.channel();
        Object remote = ch == null ? null : ch.remoteAddress();
        return (c.peer() != null ? c.peer() + " at " : "") + remote;
    }
}
