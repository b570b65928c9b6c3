package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.spi.TransportListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A listener and an observer that record everything, for tests; awaits with a generous ceiling. */
final class Recorder implements TransportListener, TcpTransport.Observer {
    static final long CEILING_SECONDS = 20;

    record Event(String kind, NodeId peer, ElectorMessage message) {}

    private final List<Event> all = new ArrayList<>();
    private final Map<String, Integer> consumed = new HashMap<>();
    final List<Event> messages = new CopyOnWriteArrayList<>();
    final List<Event> connections = new CopyOnWriteArrayList<>();
    /** Departures ({@code onPeerGone}), kept apart from the connection events. */
    final List<Event> departures = new CopyOnWriteArrayList<>();

    final Map<String, AtomicInteger> rejected = new ConcurrentHashMap<>();
    private final Object rejectionSignal = new Object();

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        Event e = new Event("message", from, message);
        messages.add(e);
        record(e);
    }

    @Override
    public void onPeerConnected(NodeId peer) {
        Event e = new Event("connected", peer, null);
        connections.add(e);
        record(e);
    }

    @Override
    public void onPeerDisconnected(NodeId peer) {
        Event e = new Event("disconnected", peer, null);
        connections.add(e);
        record(e);
    }

    @Override
    public void onPeerGone(NodeId peer) {
        Event e = new Event("gone", peer, null);
        departures.add(e);
        record(e);
    }

    private void record(Event e) {
        synchronized (all) {
            all.add(e);
            all.notifyAll();
        }
    }

    @Override
    public void frameRejected(String reason) {
        rejected.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
        synchronized (rejectionSignal) {
            rejectionSignal.notifyAll();
        }
    }

    int rejections(String reason) {
        AtomicInteger n = rejected.get(reason);
        return n == null ? 0 : n.get();
    }

    /** Waits until at least one frame was refused for {@code reason}. */
    void awaitRejected(String reason) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CEILING_SECONDS);
        synchronized (rejectionSignal) {
            while (rejections(reason) == 0) {
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("a frame refused for %s within %d s; refused so far: %s", reason, CEILING_SECONDS, rejected)
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(rejectionSignal, left);
            }
        }
    }

    /**
     * Returns the next event of {@code kind} from {@code peer} not returned before, waiting for it; events of
     * other kinds or peers stay available.
     */
    Event await(String kind, NodeId peer) throws InterruptedException {
        String key = kind + "/" + peer;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CEILING_SECONDS);
        synchronized (all) {
            while (true) {
                int seen = consumed.getOrDefault(key, 0);
                List<Event> matching = all.stream()
                        .filter(e -> e.kind().equals(kind) && e.peer().equals(peer))
                        .toList();
                if (matching.size() > seen) {
                    consumed.put(key, seen + 1);
                    return matching.get(seen);
                }
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("a %s event from %s within %d s; events: %s", kind, peer, CEILING_SECONDS, all)
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(all, left);
            }
        }
    }

    /** Waits for the next message from {@code peer}, skipping connection events. */
    ElectorMessage awaitMessage(NodeId peer) throws InterruptedException {
        return await("message", peer).message();
    }
}
