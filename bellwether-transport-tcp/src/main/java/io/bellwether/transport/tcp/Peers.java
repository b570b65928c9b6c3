package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MessageCodec;
import io.bellwether.spi.TransportListener;
import io.bellwether.transport.tcp.TcpTransport.Observer;
import io.bellwether.transport.tcp.TcpTransport.PeerStatus;
import io.netty.channel.Channel;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members this transport connects to, each with its connection state, and the election groups registered to
 * hear about them: who a peer is, what the status page shows of it, and the listener calls that report it. The
 * connections themselves are made and lost by {@link PeerLinks}; {@link PeerDirectory} (discovered peers) finds where
 * the members listen.
 *
 * <p>Peer state and listener calls live on the transport's I/O thread; {@link #statuses()}, {@link #get} and the
 * groups may be read from any thread.
 */
final class Peers {
    // The transport's logger: these lines are the transport's, whichever class writes them.
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    private final Map<NodeId, Peer> peers;
    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final Observer observer;

    /**
     * @param members every member and its fixed address (null where discovered), this node included
     * @param self this node, left out of the peers
     */
    Peers(Map<NodeId, NodeAddress> members, NodeId self, Observer observer) {
        Map<NodeId, Peer> p = new TreeMap<>();
        members.forEach((id, address) -> {
            if (!id.equals(self)) {
                p.put(id, new Peer(id, address, self.compareTo(id) < 0));
            }
        });
        this.peers = Collections.unmodifiableMap(p);
        this.observer = observer;
    }

    /** The peer of that id, or null if it is no member (or this node). */
    Peer get(NodeId id) {
        return id == null ? null : peers.get(id);
    }

    Collection<Peer> all() {
        return peers.values();
    }

    boolean isMember(NodeId id) {
        return peers.containsKey(id);
    }

    /** Every peer's status, for status pages. */
    Map<NodeId, PeerStatus> statuses() {
        Map<NodeId, PeerStatus> result = new TreeMap<>();
        peers.forEach((id, p) -> result.put(id, p.status));
        return Collections.unmodifiableMap(result);
    }

    /** Whether {@code address} is where a member listens (an IP address configured, or a member was reached at). */
    boolean isMemberHost(InetAddress address) {
        byte[] raw = address.getAddress();
        for (Peer p : peers.values()) {
            NodeAddress at = p.address;
            byte[] literal = at == null ? null : NetUtil.createByteArrayFromIpAddressString(at.host());
            if (literal != null && Arrays.equals(literal, raw)) {
                return true;
            }
        }
        return false;
    }

    void setState(Peer p, PeerStatus.State state, String error) {
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

    // --- groups ---

    /**
     * Registers {@code group}, reporting the peers connected now to its listener; on the I/O thread.
     *
     * @throws IllegalStateException if it is registered already
     */
    void register(String group, MessageCodec codec, TransportListener listener, NodeId self) {
        if (groups.containsKey(group)) {
            throw new IllegalStateException("group '" + group + "' is already registered for node " + self);
        }
        groups.put(group, new Group(group, codec, listener));
        for (Peer p : peers.values()) {
            if (p.current != null) {
                safely("onPeerConnected", () -> listener.onPeerConnected(p.id));
            }
        }
    }

    /** The registered group of that name, or null. */
    Group group(String name) {
        return groups.get(name);
    }

    void unregister(String group) {
        groups.remove(group);
    }

    void unregisterAll() {
        groups.clear();
    }

    void reportConnected(Peer p) {
        report("onPeerConnected", l -> l.onPeerConnected(p.id));
    }

    void reportDisconnected(Peer p) {
        report("onPeerDisconnected", l -> l.onPeerDisconnected(p.id));
    }

    void reportGone(Peer p) {
        report("onPeerGone", l -> l.onPeerGone(p.id));
    }

    private void report(String what, Consumer<TransportListener> call) {
        for (Group g : groups.values()) {
            safely(what, () -> call.accept(g.listener()));
        }
    }

    /**
     * Hands {@code message} to {@code g}'s listener (looked up by {@link #group} in the same pass of the loop) if
     * {@code c} is still its sender's connection. A group that left in between gets it all the same, as it may get
     * what its election's loop had queued before it closed: a closed election ignores both.
     */
    void deliver(Connection c, Group g, ElectorMessage message) {
        Peer p = peers.get(c.peer());
        if (p == null || p.current != c) {
            return;
        }
        // Try blocks rather than safely(...): no lambda to allocate on every message's path.
        try {
            observer.messageReceived(message.type());
        } catch (RuntimeException e) {
            log.warn("messageReceived callback threw; ignored", e);
        }
        try {
            g.listener().onMessage(p.id, message);
        } catch (RuntimeException e) {
            log.warn("onMessage callback threw; ignored", e);
        }
    }

    /** Calls a listener or observer; what it throws is logged, never passed on to the transport. */
    static void safely(String what, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("{} callback threw; ignored", what, e);
        }
    }

    /** One registered election group. */
    record Group(String name, MessageCodec codec, TransportListener listener) {}

    /** One configured peer; mutable fields are touched on the loop only, {@code current} and status read anywhere. */
    static final class Peer {
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
}
