package io.bellwether.transport.tcp;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The accepted connections whose peer has not yet proved it holds the cluster secret (no valid LOGIN yet): at most
 * {@code max} in all and a quarter of that, at least one, per remote address.
 *
 * <p>A full pool does not keep a member out. When a new connection would pass a limit, the oldest connection
 * still waiting is closed instead, if it has waited at least {@value #EVICTABLE_AFTER_MILLIS} ms (a member proves
 * itself within one round trip of its HELLO, so it is gone from the pool long before that, however fast others
 * arrive): at the per-address limit the oldest from that address; at the overall limit the oldest from an address
 * that is not a member's host, or, if the newcomer comes from a member's host, the oldest of any address. If no
 * connection may be closed, the newcomer is refused. So idle or half-finished connections, even from a member's
 * own host, cannot hold a member out for longer than that wait and its redial backoff, and cost this node a
 * bounded number of sockets.
 *
 * <p>On the transport's I/O thread only.
 */
final class HandshakeSlots {
    static final long EVICTABLE_AFTER_MILLIS = 200;

    /** What became of a new connection: admitted (maybe after closing {@code evicted}), or refused. */
    record Admission(boolean admitted, Channel evicted, String detail) {}

    private final int max;
    private final int perAddress;
    private final Predicate<InetAddress> memberHost;
    // Oldest first, in all and per address.
    private final LinkedHashSet<Channel> waiting = new LinkedHashSet<>();
    private final Map<InetAddress, LinkedHashSet<Channel>> byAddress = new HashMap<>();
    private final Map<Channel, InetAddress> from = new HashMap<>();
    private final Map<Channel, Long> since = new HashMap<>();

    HandshakeSlots(int max, Predicate<InetAddress> memberHost) {
        this.max = max;
        this.perAddress = Math.max(1, max / 4);
        this.memberHost = memberHost;
    }

    /** Takes a slot for {@code ch} from {@code address}, closing the oldest waiting connection if one must go. */
    Admission admit(Channel ch, InetAddress address) {
        long now = System.nanoTime();
        LinkedHashSet<Channel> there = byAddress.get(address);
        Channel evict = null;
        String detail = null;
        if (there != null && there.size() >= perAddress) {
            Channel oldest = there.iterator().next();
            if (!evictable(oldest, now)) {
                return new Admission(
                        false,
                        null,
                        perAddress + " connections from " + address + " are in their"
                                + " handshake, none for " + EVICTABLE_AFTER_MILLIS + " ms yet; allowed at most "
                                + perAddress
                                + " per address");
            }
            evict = oldest;
            detail = perAddress + " connections from " + address + " are in their handshake, at most " + perAddress
                    + " per address; closed the oldest";
        } else if (waiting.size() >= max) {
            boolean member = memberHost.test(address);
            Channel oldest = oldest(c -> member || !memberHost.test(from.get(c)));
            if (oldest == null || !evictable(oldest, now)) {
                return new Admission(
                        false,
                        null,
                        waiting.size() + " connections are in their handshake, none that may be closed for this one"
                                + " (from " + (member ? "any address" : "an address that is not a member's")
                                + ", waiting " + EVICTABLE_AFTER_MILLIS + " ms or more); allowed at most " + max);
            }
            evict = oldest;
            detail = waiting.size() + " connections are in their handshake, at most " + max + "; closed the oldest"
                    + (member ? "" : " from an address that is not a member's");
        }
        if (evict != null) {
            release(evict);
        }
        waiting.add(ch);
        byAddress.computeIfAbsent(address, a -> new LinkedHashSet<>()).add(ch);
        from.put(ch, address);
        since.put(ch, now);
        return new Admission(true, evict, detail);
    }

    private boolean evictable(Channel c, long now) {
        return now - since.get(c) >= TimeUnit.MILLISECONDS.toNanos(EVICTABLE_AFTER_MILLIS);
    }

    private Channel oldest(Predicate<Channel> eligible) {
        for (Iterator<Channel> it = waiting.iterator(); it.hasNext(); ) {
            Channel c = it.next();
            if (eligible.test(c)) {
                return c;
            }
        }
        return null;
    }

    /** {@code ch} proved itself or closed: it no longer takes a slot. Idempotent. */
    void release(Channel ch) {
        InetAddress address = from.remove(ch);
        if (address == null) {
            return;
        }
        waiting.remove(ch);
        since.remove(ch);
        LinkedHashSet<Channel> there = byAddress.get(address);
        there.remove(ch);
        if (there.isEmpty()) {
            byAddress.remove(address);
        }
    }

    /** For tests: how many connections hold a slot. */
    int size() {
        return waiting.size();
    }
}
