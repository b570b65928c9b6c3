package io.bellwether.inprocess;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network inside one JVM, for tests, examples and embedding several members in one process. {@link
 * #transport(NodeId)} gives each node its {@link Transport}; all of them share this hub.
 *
 * <p>Delivery is asynchronous, on one delivery thread of the hub, in send order; a listener is never called
 * from inside {@link Transport#send}. A connection between two members of a group exists while both are
 * registered and the pair is not {@linkplain #disconnect disconnected}; its establishment and its closing are
 * reported to both ends. Messages in flight on a connection that closes are dropped, so that nothing sent
 * before a reported close arrives after it; except when a member unregisters: like a process that closes its
 * TCP connections, what it sent before still reaches its peers, ahead of the close.
 *
 * <p>Fault hooks: {@link #disconnect} closes the connections between two nodes (both ends are told) and keeps
 * them closed until {@link #reconnect}; {@link #isolate} silently drops all traffic to and from a node, like a
 * network partition that sends no resets, until {@link #heal}; closing a node's transport closes its
 * connections (its peers are told). A member that {@linkplain InProcessTransport#unregister unregisters} a
 * group (an election closes after its elector stopped) is also reported {@linkplain TransportListener#onPeerGone
 * gone} to that group's peers, as a TCP peer whose process exited is; closing a transport is not, since its
 * electors may still run.
 *
 * <p>Thread-safe.
 */
public final class InProcessNetwork implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InProcessNetwork.class);

    private final Object lock = new Object();
    private final Map<NodeId, InProcessTransport> transports = new HashMap<>();
    private final Map<String, Map<NodeId, TransportListener>> groups = new HashMap<>();
    private final Set<Pair> cut = new HashSet<>();
    private final Set<NodeId> isolated = new HashSet<>();
    // Bumped whenever a group's connection between two nodes closes; messages carry the generation they were
    // sent in and are dropped if it changed before delivery.
    private final Map<Link, Long> generations = new HashMap<>();
    /** Per sender and peer: the generation of the connection the sender closed by unregistering, still flushed. */
    private final Map<Flush, Long> flushing = new HashMap<>();

    private final ExecutorService delivery = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "bellwether-inprocess-network");
        t.setDaemon(true);
        return t;
    });

    /**
     * The transport of {@code node}: the open one if there is one, else a new one.
     */
    public InProcessTransport transport(NodeId node) {
        Objects.requireNonNull(node, "node");
        synchronized (lock) {
            return transports.computeIfAbsent(node, InProcessTransport::new);
        }
    }

    /** Closes every connection between {@code a} and {@code b} (both ends are told) until {@link #reconnect}. */
    public void disconnect(NodeId a, NodeId b) {
        Pair pair = new Pair(a, b);
        synchronized (lock) {
            if (!cut.add(pair)) {
                return;
            }
            for (Map.Entry<String, Map<NodeId, TransportListener>> group : groups.entrySet()) {
                Map<NodeId, TransportListener> members = group.getValue();
                if (members.containsKey(a) && members.containsKey(b)) {
                    closeLink(group.getKey(), a, b);
                }
            }
        }
    }

    /** Lets {@code a} and {@code b} connect again after {@link #disconnect}; both ends are told. */
    public void reconnect(NodeId a, NodeId b) {
        synchronized (lock) {
            if (!cut.remove(new Pair(a, b))) {
                return;
            }
            for (Map.Entry<String, Map<NodeId, TransportListener>> group : groups.entrySet()) {
                Map<NodeId, TransportListener> members = group.getValue();
                if (members.containsKey(a) && members.containsKey(b)) {
                    openLink(group.getKey(), a, b);
                }
            }
        }
    }

    /** Silently drops all traffic to and from {@code node} until {@link #heal}; connections stay "open". */
    public void isolate(NodeId node) {
        synchronized (lock) {
            isolated.add(Objects.requireNonNull(node, "node"));
        }
    }

    /** Ends {@link #isolate} for {@code node}. */
    public void heal(NodeId node) {
        synchronized (lock) {
            isolated.remove(node);
        }
    }

    /** Ends every isolation and reconnects every disconnected pair. */
    public void healAll() {
        List<Pair> pairs;
        synchronized (lock) {
            isolated.clear();
            pairs = new ArrayList<>(cut);
        }
        pairs.forEach(p -> reconnect(p.a(), p.b()));
    }

    /** Stops the delivery thread; messages still in flight are dropped. */
    @Override
    public void close() {
        delivery.shutdownNow();
    }

    // --- internals; all called with the lock held ---

    private void register(NodeId self, String group, TransportListener listener) {
        Map<NodeId, TransportListener> members = groups.computeIfAbsent(group, g -> new HashMap<>());
        if (members.containsKey(self)) {
            throw new IllegalStateException("group '" + group + "' is already registered for node " + self);
        }
        members.put(self, listener);
        // What an earlier registration of this member sent before it unregistered has been delivered or dropped
        // by now (delivery is in order, and this registration's link generations are new).
        flushing.keySet().removeIf(f -> f.group().equals(group) && f.from().equals(self));
        for (NodeId peer : members.keySet()) {
            if (!peer.equals(self) && !cut.contains(new Pair(self, peer))) {
                openLink(group, self, peer);
            }
        }
    }

    private void unregister(NodeId self, String group, boolean gone) {
        Map<NodeId, TransportListener> members = groups.get(group);
        if (members == null || !members.containsKey(self)) {
            return;
        }
        for (NodeId peer : members.keySet()) {
            // A cut pair was already told when it was cut; the unregistering end closed the connection
            // itself, so only the peer is told.
            if (!peer.equals(self) && !cut.contains(new Pair(self, peer))) {
                Link link = new Link(group, self, peer);
                flushing.put(new Flush(group, self, peer), generation(link));
                bump(link);
                notify(group, peer, self, l -> l.onPeerDisconnected(self));
                if (gone) {
                    notify(group, peer, self, l -> l.onPeerGone(self));
                }
            }
        }
        members.remove(self);
        if (members.isEmpty()) {
            groups.remove(group);
        }
    }

    private void openLink(String group, NodeId a, NodeId b) {
        notify(group, a, b, l -> l.onPeerConnected(b));
        notify(group, b, a, l -> l.onPeerConnected(a));
    }

    private void closeLink(String group, NodeId a, NodeId b) {
        bump(new Link(group, a, b));
        notify(group, a, b, l -> l.onPeerDisconnected(b));
        notify(group, b, a, l -> l.onPeerDisconnected(a));
    }

    private void bump(Link link) {
        generations.merge(link, 1L, Long::sum);
    }

    private long generation(Link link) {
        return generations.getOrDefault(link, 0L);
    }

    /** Queues a callback to {@code receiver}'s listener about {@code other}, valid only in the current generation. */
    private void notify(String group, NodeId receiver, NodeId other, Consumer<TransportListener> call) {
        Link link = new Link(group, receiver, other);
        long generation = generation(link);
        enqueue(group, receiver, groups.get(group).get(receiver), () -> generation(link) == generation, call);
    }

    private void send(NodeId from, String group, NodeId to, ElectorMessage message) {
        Objects.requireNonNull(message, "message");
        synchronized (lock) {
            Map<NodeId, TransportListener> members = groups.get(group);
            if (members == null || !members.containsKey(from) || !members.containsKey(to)) {
                return;
            }
            if (cut.contains(new Pair(from, to)) || isolated.contains(from) || isolated.contains(to)) {
                return;
            }
            Link link = new Link(group, from, to);
            long generation = generation(link);
            enqueue(
                    group,
                    to,
                    members.get(to),
                    () -> {
                        boolean open = groups.get(group).containsKey(from) && generation(link) == generation;
                        boolean flushed =
                                !open && Long.valueOf(generation).equals(flushing.get(new Flush(group, from, to)));
                        return (open || flushed) && !isolated.contains(from) && !isolated.contains(to);
                    },
                    l -> l.onMessage(from, message));
        }
    }

    /**
     * Queues {@code call} for the delivery thread, which makes it only if {@code receiver} is still registered in
     * {@code group} with {@code listener} and {@code stillValid} then holds (both checked under the lock, when the
     * delivery's turn comes: what changed since the call was queued, a close or an isolation, drops it).
     */
    private void enqueue(
            String group,
            NodeId receiver,
            TransportListener listener,
            BooleanSupplier stillValid,
            Consumer<TransportListener> call) {
        try {
            delivery.execute(() -> {
                synchronized (lock) {
                    Map<NodeId, TransportListener> members = groups.get(group);
                    if (members == null || members.get(receiver) != listener || !stillValid.getAsBoolean()) {
                        return;
                    }
                }
                try {
                    call.accept(listener);
                } catch (RuntimeException e) {
                    log.warn("in-process transport listener threw", e);
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("in-process network is closed; dropping a delivery");
        }
    }

    /** An unordered pair of nodes. */
    private record Pair(NodeId a, NodeId b) {
        Pair {
            if (a.compareTo(b) > 0) {
                NodeId t = a;
                a = b;
                b = t;
            }
        }
    }

    /** A sender's side of a group's connection to one peer. */
    private record Flush(String group, NodeId from, NodeId to) {}

    /** A group's connection between two nodes, unordered. */
    private record Link(String group, NodeId a, NodeId b) {
        Link {
            if (a.compareTo(b) > 0) {
                NodeId t = a;
                a = b;
                b = t;
            }
        }
    }

    /** One node's view of the {@link InProcessNetwork}. Closing it closes all its connections. */
    public final class InProcessTransport implements Transport, AutoCloseable {
        private final NodeId node;
        private final Set<String> registered = new HashSet<>();
        private boolean closed;

        private InProcessTransport(NodeId node) {
            this.node = node;
        }

        /** The node this transport belongs to. */
        public NodeId node() {
            return node;
        }

        @Override
        public void register(String group, NodeId self, TransportListener listener) {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(listener, "listener");
            if (!node.equals(self)) {
                throw new IllegalArgumentException("self = " + self + " does not match this transport's node " + node);
            }
            synchronized (lock) {
                if (closed) {
                    throw new IllegalStateException("the in-process transport of " + node + " is closed");
                }
                InProcessNetwork.this.register(node, group, listener);
                registered.add(group);
            }
        }

        @Override
        public void send(String group, NodeId to, ElectorMessage message) {
            InProcessNetwork.this.send(node, group, to, message);
        }

        @Override
        public void unregister(String group, NodeId self) {
            synchronized (lock) {
                if (node.equals(self) && registered.remove(group)) {
                    InProcessNetwork.this.unregister(node, group, true);
                }
            }
        }

        /** Unregisters every group of this node; its peers are told their connections closed. */
        @Override
        public void close() {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                closed = true;
                for (String group : new ArrayList<>(registered)) {
                    InProcessNetwork.this.unregister(node, group, false);
                }
                registered.clear();
                transports.remove(node, this);
            }
        }

        @Override
        public String toString() {
            return "InProcessTransport[" + node + "]";
        }
    }
}
