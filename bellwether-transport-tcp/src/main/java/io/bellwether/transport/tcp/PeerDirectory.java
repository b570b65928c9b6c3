package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the members of a discovering {@link TcpTransport} listen: the addresses a {@link PeerResolver} gives,
 * resolved again every interval, and which member each one belongs to, learned by connecting to it.
 *
 * <p><b>The member set stays fixed.</b> Only addresses are discovered; the ids (and so the quorum size) are
 * configured. An address is just a place to dial: who is there is learned in the handshake, whose HELLO carries
 * the sender's id under the cluster secret's MAC, and ids outside the members are refused there as always.
 *
 * <p><b>What is dialed.</b> After each resolution, every resolved address is dialed once, unless: it is this
 * node's own (recognised when a connection reaches this node's own listener: the HELLO that comes back carries
 * a nonce this node just made; or when it equals the listen address), a dial to it is under way, the member
 * found there is connected, or that member has the higher id and this node redials it there anyway (the
 * transport's capped-backoff loop, as with fixed addresses). So a member with a new address (a restarted pod
 * with a new IP) is found at the next resolution, and an address that no longer resolves is not dialed again
 * (a working connection to it is kept: it ends when the peer or the network ends it).
 *
 * <p><b>One connection per pair.</b> Without fixed addresses either end may dial first, so a pair can have two
 * connections at a time. The one dialed by the lower id is <em>canonical</em>; both ends agree which that is
 * without talking, so both keep the same one:
 *
 * <ul>
 *   <li>At the HELLO, before this end sends its AUTH (so the other end can never complete the handshake), a
 *       connection is dropped if it would only duplicate: this node dialed it but already has a connection with
 *       that member (unless this node dialed that one to an address that no longer resolves: the member moved,
 *       and that connection may be dead without either end having seen it), or another dial to it is past its
 *       HELLO; or
 *       the member dialed it although it has the higher id and this node's own canonical connection with it is
 *       up.
 *   <li>When a handshake completes and the member has a connection already, {@link #replaces} decides:
 *       canonical beats non-canonical, and between two of one kind the newer wins (the dialer started over).
 *       The loser is closed, reported first if it was reported connected (the transport's rule).
 * </ul>
 *
 * <p>Failed resolutions keep the addresses known before; they are logged at WARN at most once a minute, and
 * {@link #status()} shows the latest error. Everything but {@link #status()} runs on the transport's I/O thread;
 * the resolver runs on a lookup thread.
 */
final class PeerDirectory {
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int REMEMBERED_NONCES = 1024;

    /** What the directory needs from its transport; called on the I/O thread. */
    interface Links {
        /** Whether {@code member} has a working connection. */
        boolean connected(NodeId member);

        /**
         * Whether this node redials {@code member} at {@code address} itself (the member has the higher id and
         * was last reached there); if so, makes sure a dial or a retry is under way.
         */
        boolean redials(NodeId member, NodeAddress address);

        /** Dials {@code address}, learning its member in the handshake. */
        ChannelFuture connect(NodeAddress address);
    }

    private final NodeId self;
    private final NodeAddress listen;
    private final PeerResolver resolver;
    private final long intervalNanos;
    private final EventLoop loop;
    private final Lookups lookups;
    private final RejectLog failureLog = new RejectLog(FAILURE_LOG_INTERVAL_NANOS);

    // On the loop only.
    /** Every resolved address and who is there: a member, this node ({@code self}), or nobody known (null). */
    private final Map<NodeAddress, NodeId> book = new LinkedHashMap<>();

    private final Map<NodeAddress, Channel> probes = new HashMap<>();
    /** Per member, the connection this node dialed that is past its HELLO and not yet established. */
    private final Map<NodeId, Connection> handshaking = new HashMap<>();

    private final Map<ByteBuffer, Boolean> nonces = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteBuffer, Boolean> eldest) {
            return size() > REMEMBERED_NONCES;
        }
    };
    private Links links;
    private ScheduledFuture<?> timer;
    private boolean resolving;
    private boolean resolvedOnce;
    private boolean failing;
    private boolean closed;
    private long resolvedAtNanos = -1;
    private String lastError;

    private volatile DiscoveryStatus status;

    PeerDirectory(
            NodeId self,
            NodeAddress listen,
            PeerResolver resolver,
            long intervalNanos,
            EventLoop loop,
            Lookups lookups) {
        this.self = self;
        this.listen = listen;
        this.resolver = resolver;
        this.intervalNanos = intervalNanos;
        this.loop = loop;
        this.lookups = lookups;
        this.status = new DiscoveryStatus(resolver.toString(), List.of(), -1, null);
    }

    /**
     * Checks the members given to {@link TcpTransport.Builder#discover} with this node's id and listen address.
     *
     * @throws IllegalArgumentException naming what is wrong and what is allowed
     */
    static void checkMembers(List<NodeId> discovered, NodeId self, NodeAddress listen) {
        if (discovered.isEmpty()) {
            throw new IllegalArgumentException(
                    "discover: members is empty: allowed every member's id, this one" + " included");
        }
        if (new HashSet<>(discovered).size() != discovered.size()) {
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

    /** Resolves now and then every interval. */
    void start(Links links) {
        this.links = links;
        timer = loop.scheduleWithFixedDelay(this::resolve, 0, intervalNanos, TimeUnit.NANOSECONDS);
    }

    void close() {
        closed = true;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    DiscoveryStatus status() {
        return status;
    }

    // ------------------------------------------------------------------ resolution

    private void resolve() {
        if (closed || resolving) {
            return; // the previous resolution is still running: this round is skipped, nothing piles up
        }
        resolving = true;
        try {
            lookups.execute(() -> {
                List<NodeAddress> found = null;
                String error = null;
                try {
                    found = resolver.resolve();
                } catch (Exception | LinkageError e) {
                    error = describe(e);
                }
                List<NodeAddress> result = found;
                String failure = error;
                try {
                    loop.execute(() -> {
                        resolving = false;
                        if (failure != null) {
                            failed(failure);
                        } else {
                            resolved(result);
                        }
                    });
                } catch (RejectedExecutionException e) {
                    // the transport is closing
                }
            });
        } catch (RejectedExecutionException e) {
            resolving = false;
            failed("no lookup thread free (" + Lookups.THREADS + " lookups in progress) or closing");
        }
    }

    private void resolved(List<NodeAddress> addresses) {
        if (closed) {
            return;
        }
        if (addresses == null || addresses.isEmpty()) {
            failed("no addresses");
            return;
        }
        if (addresses.stream().anyMatch(java.util.Objects::isNull)) {
            failed("the resolver answered a null address among " + addresses.size());
            return;
        }
        Set<NodeAddress> now = new LinkedHashSet<>(addresses);
        List<NodeAddress> gone = new ArrayList<>();
        book.keySet().removeIf(a -> !now.contains(a) && gone.add(a));
        List<NodeAddress> added = new ArrayList<>();
        Map<NodeAddress, NodeId> ordered = new LinkedHashMap<>();
        for (NodeAddress a : now) {
            if (!book.containsKey(a)) {
                added.add(a);
            }
            // Our own listen address is known to be us without dialing it.
            ordered.put(a, book.getOrDefault(a, a.equals(listen) ? self : null));
        }
        book.clear();
        book.putAll(ordered);
        resolvedAtNanos = System.nanoTime();
        lastError = null;
        if (!resolvedOnce) {
            log.info("node {}: {} resolves to {}", self, resolver, now);
        } else if (!added.isEmpty() || !gone.isEmpty()) {
            log.info("node {}: {} now resolves to {} (new: {}, gone: {})", self, resolver, now, added, gone);
        } else if (failing) {
            log.info("node {}: {} resolves again, to {}", self, resolver, now);
        }
        resolvedOnce = true;
        failing = false;
        dialUnknown();
        publish();
    }

    private void failed(String error) {
        if (closed) {
            return;
        }
        lastError = error;
        failing = true;
        failureLog.warn(
                "resolve",
                "node " + self + ": cannot resolve the peers (" + resolver + "): " + error + "; keeping the "
                        + book.size() + " addresses known before, trying again every "
                        + TimeUnit.NANOSECONDS.toMillis(intervalNanos) + " ms");
        dialUnknown(); // with the addresses known before: a member reached only by its own dial is found here
        publish();
    }

    private void dialUnknown() {
        // A copy: dialing may call back into this directory.
        for (Map.Entry<NodeAddress, NodeId> e : new ArrayList<>(book.entrySet())) {
            NodeAddress address = e.getKey();
            NodeId member = e.getValue();
            if (self.equals(member) || probes.containsKey(address)) {
                continue;
            }
            if (member != null && (links.connected(member) || links.redials(member, address))) {
                continue;
            }
            ChannelFuture connecting = links.connect(address);
            Channel ch = connecting.channel();
            probes.put(address, ch);
            connecting.addListener(f -> {
                if (!f.isSuccess()) {
                    log.debug(
                            "node {}: cannot connect to {}: {}",
                            self,
                            address,
                            f.cause().toString());
                }
            });
            ch.closeFuture().addListener(f -> probes.remove(address, ch));
        }
    }

    // ------------------------------------------------------------------ what connections tell

    /** Whether {@code address} was in the last successful resolution. */
    boolean resolves(NodeAddress address) {
        return book.containsKey(address);
    }

    /** Whether the transport's redial loop may dial {@code member} at {@code address}: it resolves, and is not known as another's. */
    boolean dialable(NodeId member, NodeAddress address) {
        if (!book.containsKey(address)) {
            return false;
        }
        NodeId there = book.get(address);
        return there == null || there.equals(member);
    }

    /**
     * A HELLO from member {@code sender} (MAC checked) arrived on {@code c}: learns where {@code sender} is if
     * this node dialed {@code c}, and says whether the handshake goes on (see the class comment).
     *
     * @param current {@code sender}'s working connection, or null
     */
    boolean admit(Connection c, NodeId sender, Connection current) {
        // This connection met a peer: its nonce can no longer stand for a connection to this node itself.
        nonces.remove(ByteBuffer.wrap(c.localNonce()));
        if (!c.dialed()) {
            // Accepted: refused only when the sender has the higher id (it should not have to dial) and our own
            // canonical connection with it works; otherwise it replaces the current one (the peer started over).
            return current == null || sender.compareTo(self) < 0 || !current.dialed();
        }
        learned(c.dialedAddress(), sender);
        Connection other = handshaking.get(sender);
        if (other != null && other != c && other.state() == Connection.State.AWAIT_AUTH) {
            return false;
        }
        if (current != null && !movedAway(current, c)) {
            return false;
        }
        handshaking.put(sender, c);
        return true;
    }

    /**
     * Whether {@code current}, a connection this node dialed, went to an address that no longer resolves while
     * {@code c} reached the same member elsewhere: the member moved (a pod restarted with a new IP), and
     * {@code current} may be dead without either end having noticed (no FIN comes from a vanished host). A
     * member's second address (IPv4 and IPv6 records of one pod) leaves its working connection alone.
     */
    private boolean movedAway(Connection current, Connection c) {
        NodeAddress was = current.dialedAddress();
        return current.dialed() && was != null && !was.equals(c.dialedAddress()) && !book.containsKey(was);
    }

    /**
     * {@code c} completed its handshake or closed: its nonce no longer stands for a connection to this node itself
     * (a HELLO of this node's replayed later is refused).
     */
    void ended(Connection c) {
        handshaking.values().remove(c);
        nonces.remove(ByteBuffer.wrap(c.localNonce()));
    }

    /** {@code c}, dialed or accepted, turned out to connect this node to itself; a dialed address is noted. */
    void reachedSelf(Connection c) {
        NodeAddress address = c.dialedAddress();
        if (address != null && book.containsKey(address) && !self.equals(book.get(address))) {
            book.put(address, self);
            log.info("node {}: {} is this node's own address; not dialing it again", self, address);
            publish();
        }
    }

    /** Notes a nonce this node made, so that a connection to itself can be recognised by it. */
    void madeNonce(byte[] nonce) {
        nonces.put(ByteBuffer.wrap(nonce.clone()), Boolean.TRUE);
    }

    /**
     * Whether this node made {@code nonce} recently (one of its latest {@value #REMEMBERED_NONCES} connections) for
     * a connection that has not met a peer.
     */
    boolean madeNonceRecently(byte[] nonce) {
        return nonces.containsKey(ByteBuffer.wrap(nonce));
    }

    private void learned(NodeAddress address, NodeId member) {
        if (address == null || !book.containsKey(address)) {
            return;
        }
        NodeId before = book.put(address, member);
        if (before != null && !before.equals(member)) {
            log.info("node {}: {} now answers as {} (it was {})", self, address, member, before);
        } else if (before == null) {
            log.debug("node {}: {} answers at {}", self, member, address);
        }
        if (!member.equals(before)) {
            publish();
        }
    }

    /**
     * Whether {@code c}, whose handshake completed, replaces the member's working connection {@code current}:
     * a connection dialed by the lower id (canonical) beats one dialed by the higher; between two of one kind
     * the newer wins. With fixed addresses every connection is canonical, so the newer always wins.
     */
    static boolean replaces(NodeId self, Connection c, Connection current) {
        return canonical(self, c) || !canonical(self, current);
    }

    private static boolean canonical(NodeId self, Connection c) {
        return c.dialed() == (self.compareTo(c.peer()) < 0);
    }

    private void publish() {
        List<DiscoveryStatus.Resolved> addresses = new ArrayList<>();
        book.forEach((a, member) -> addresses.add(new DiscoveryStatus.Resolved(a, Optional.ofNullable(member))));
        status = new DiscoveryStatus(resolver.toString(), addresses, resolvedAtNanos, lastError);
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + message;
    }
}
