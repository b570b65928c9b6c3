package io.bellwether.bench.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The network between named endpoints of a chaos run (node ids such as {@code n1}, and {@link #STORE} for the
 * database or Redis), made of fault-injecting TCP proxies on loopback. It holds one {@link Rule} per directed pair
 * of endpoints, {@link Rule#PASS} unless set; a rule for {@code from → to} applies to the bytes {@code from} sends
 * to {@code to} on every connection between the two, whichever of them dialled: on the connections {@code from}
 * made to {@code to} it governs the client-to-target bytes, on those {@code to} made to {@code from} the
 * target-to-client bytes.
 *
 * <ul>
 *   <li>{@code DROP}: the bytes are read and discarded (the sender's writes succeed). A connection that lost bytes
 *       this way is reset when neither of its directions drops any more, since its byte stream is no longer whole;
 *       the clients reconnect.
 *   <li>{@code STALL}: the bytes are left unread in the sender's socket, so TCP flow control stops the sender as a
 *       partition with retransmissions does; they flow on, none lost, when the rule changes.
 *   <li>{@code DELAY}: each chunk is delivered the given time after it was read, in order.
 *   <li>{@code THROTTLE}: at most the given bytes per second.
 * </ul>
 *
 * <p>A connection accepted while either direction between its endpoints drops or stalls is held: accepted (never
 * refused) and silent, without the target being dialled. When neither direction blocks any more, it is connected to
 * the target if it lost nothing and its client has not closed its end meanwhile, and reset otherwise. A connection
 * the target refuses (its process is gone) is reset at once, so the dialer learns it without waiting for a timeout;
 * {@link #refuseConnections} makes the dials themselves refused, as they are when nothing listens. Each direction of
 * a connection buffers at most 4 MiB; each proxy keeps at most 64 connections (one more resets the oldest).
 *
 * <p>Thread-safe. Rule changes apply to open and new connections at once. {@link #close()} stops every proxy and
 * its threads.
 */
public final class ChaosNetwork implements AutoCloseable {
    /** The endpoint name of the store (the database or Redis) the nodes use in lease mode. */
    public static final String STORE = "store";

    /** What a rule does to the bytes of one direction. */
    public enum Kind {
        /** Forward at once. */
        PASS,
        /** Read and discard. */
        DROP,
        /** Leave unread until the rule changes. */
        STALL,
        /** Deliver each chunk a fixed time after it was read. */
        DELAY,
        /** Forward at most a number of bytes per second. */
        THROTTLE
    }

    /**
     * The rule for one direction.
     *
     * @param kind what it does
     * @param delay for {@code DELAY}, the delay (positive); {@link Duration#ZERO} otherwise
     * @param bytesPerSecond for {@code THROTTLE}, the rate (positive); 0 otherwise
     */
    public record Rule(Kind kind, Duration delay, long bytesPerSecond) {
        /** Forward at once: the default. */
        public static final Rule PASS = new Rule(Kind.PASS, Duration.ZERO, 0);
        /** Read and discard. */
        public static final Rule DROP = new Rule(Kind.DROP, Duration.ZERO, 0);
        /** Leave unread until the rule changes. */
        public static final Rule STALL = new Rule(Kind.STALL, Duration.ZERO, 0);

        /**
         * Checks the parameters against the kind.
         *
         * @throws IllegalArgumentException if {@code delay} or {@code bytesPerSecond} does not fit the kind
         */
        public Rule {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(delay, "delay");
            if (kind == Kind.DELAY ? delay.isNegative() || delay.isZero() : !delay.isZero()) {
                throw new IllegalArgumentException(
                        "delay=" + delay + " does not fit " + kind + ": DELAY needs a positive delay, others none");
            }
            if (kind == Kind.THROTTLE ? bytesPerSecond <= 0 : bytesPerSecond != 0) {
                throw new IllegalArgumentException("bytesPerSecond=" + bytesPerSecond + " does not fit " + kind
                        + ": THROTTLE needs a positive rate, others 0");
            }
        }

        /**
         * A delay rule.
         *
         * @param delay how long after it was read each chunk is delivered; positive
         * @return the rule
         */
        public static Rule delay(Duration delay) {
            return new Rule(Kind.DELAY, delay, 0);
        }

        /**
         * A throttle rule.
         *
         * @param bytesPerSecond the most bytes forwarded per second; positive
         * @return the rule
         */
        public static Rule throttle(long bytesPerSecond) {
            return new Rule(Kind.THROTTLE, Duration.ZERO, bytesPerSecond);
        }

        /** @return true for {@code DROP} and {@code STALL}, under which new connections are held */
        boolean blocks() {
            return kind == Kind.DROP || kind == Kind.STALL;
        }

        @Override
        public String toString() {
            return switch (kind) {
                case DELAY -> "DELAY " + delay.toMillis() + " ms";
                case THROTTLE -> "THROTTLE " + bytesPerSecond + " B/s";
                default -> kind.name();
            };
        }
    }

    private record Pair(String from, String to) {}

    private final Map<Pair, Rule> rules = new ConcurrentHashMap<>();
    private final List<FaultProxy> proxies = new CopyOnWriteArrayList<>();
    private final Set<String> endpoints = ConcurrentHashMap.newKeySet();
    private boolean closed;

    /** Creates a network with no proxies and every rule {@code PASS}. */
    public ChaosNetwork() {}

    /**
     * Starts a proxy on a free loopback port for the connections {@code from} makes to {@code to}, which listens at
     * 127.0.0.1:{@code targetPort}.
     *
     * @param from the dialling endpoint
     * @param to the listening endpoint
     * @param targetPort the port {@code to} listens on, 1 to 65535
     * @return the proxy's port, for {@code from} to dial instead of {@code targetPort}
     * @throws IOException if no port could be opened
     * @throws IllegalArgumentException if an endpoint is blank, both are the same, or the port is out of range
     * @throws IllegalStateException if the network is closed
     */
    public synchronized int proxy(String from, String to, int targetPort) throws IOException {
        Pair pair = pair(from, to);
        if (targetPort < 1 || targetPort > 65_535) {
            throw new IllegalArgumentException("targetPort=" + targetPort + " is not a TCP port (1 to 65535)");
        }
        if (closed) {
            throw new IllegalStateException("the chaos network is closed");
        }
        FaultProxy proxy = new FaultProxy(this, pair.from(), pair.to(), targetPort);
        proxies.add(proxy);
        endpoints.add(from);
        endpoints.add(to);
        return proxy.port();
    }

    /**
     * Discards the bytes {@code from} sends to {@code to}.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     */
    public void drop(String from, String to) {
        set(from, to, Rule.DROP);
    }

    /**
     * Holds the bytes {@code from} sends to {@code to} in the sender's socket until the rule changes.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     */
    public void stall(String from, String to) {
        set(from, to, Rule.STALL);
    }

    /**
     * Delivers the bytes {@code from} sends to {@code to} {@code delay} after the proxy read them, in order.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     * @param delay the delay; positive
     */
    public void delay(String from, String to, Duration delay) {
        set(from, to, Rule.delay(delay));
    }

    /**
     * Forwards the bytes {@code from} sends to {@code to} at no more than {@code bytesPerSecond}.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     * @param bytesPerSecond the rate; positive
     */
    public void throttle(String from, String to, long bytesPerSecond) {
        set(from, to, Rule.throttle(bytesPerSecond));
    }

    /**
     * Passes the bytes {@code from} sends to {@code to} again.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     */
    public void heal(String from, String to) {
        set(from, to, Rule.PASS);
    }

    /**
     * Sets the rule for the bytes {@code from} sends to {@code to}.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     * @param rule the rule
     */
    public synchronized void set(String from, String to, Rule rule) {
        Objects.requireNonNull(rule, "rule");
        Pair pair = pair(from, to);
        if (rule.kind() == Kind.PASS) {
            rules.remove(pair);
        } else {
            rules.put(pair, rule);
        }
        endpoints.add(from);
        endpoints.add(to);
        for (FaultProxy proxy : proxies) {
            if (touches(proxy, pair)) {
                proxy.rulesChanged();
            }
        }
    }

    /**
     * Makes every proxy to {@code node} stop listening, so that dials to it are refused ({@code ECONNREFUSED}) as
     * they are once its process is gone; open connections stay. Through a listening proxy a dial to a dead node is
     * accepted and then reset, which a peer's departure probe cannot tell from a live node; call this when the
     * harness kills {@code node}, and {@link #acceptConnections} before it starts again.
     *
     * @param node the endpoint whose proxies stop listening
     */
    public synchronized void refuseConnections(String node) {
        for (FaultProxy proxy : proxies) {
            if (proxy.to().equals(node)) {
                proxy.stopListening();
            }
        }
    }

    /**
     * Makes every proxy to {@code node} listen again, on the port it had, after {@link #refuseConnections}.
     *
     * @param node the endpoint whose proxies listen again
     * @throws IOException if a proxy's port was taken meanwhile
     */
    public synchronized void acceptConnections(String node) throws IOException {
        IOException first = null;
        for (FaultProxy proxy : proxies) {
            if (proxy.to().equals(node)) {
                try {
                    proxy.listen();
                } catch (IOException e) {
                    // The others must listen again all the same.
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Sets every rule back to {@code PASS}. */
    public synchronized void healAll() {
        rules.clear();
        for (FaultProxy proxy : proxies) {
            proxy.rulesChanged();
        }
    }

    /**
     * Resets (closes with an RST) every open connection between {@code a} and {@code b}, whichever dialled.
     *
     * @param a one endpoint
     * @param b the other
     */
    public synchronized void reset(String a, String b) {
        Pair pair = pair(a, b);
        for (FaultProxy proxy : proxies) {
            if (touches(proxy, pair)) {
                proxy.resetAll();
            }
        }
    }

    /**
     * Cuts every endpoint of {@code side} from every endpoint of {@code others}, both directions.
     *
     * @param side one side
     * @param others the other side; disjoint from {@code side}
     * @param stall {@code STALL} if true (a partition with retransmissions), {@code DROP} otherwise
     * @throws IllegalArgumentException if the sides share an endpoint
     */
    public synchronized void partition(Collection<String> side, Collection<String> others, boolean stall) {
        for (String a : side) {
            if (others.contains(a)) {
                throw new IllegalArgumentException("partition sides " + side + " and " + others + " share " + a);
            }
        }
        Rule rule = stall ? Rule.STALL : Rule.DROP;
        for (String a : side) {
            for (String b : others) {
                set(a, b, rule);
                set(b, a, rule);
            }
        }
    }

    /**
     * Cuts {@code node} from every other endpoint the network knows (named by a proxy or a rule) and from {@link
     * #STORE}, both directions.
     *
     * @param node the endpoint to isolate
     * @param stall {@code STALL} if true, {@code DROP} otherwise
     */
    public synchronized void isolate(String node, boolean stall) {
        Set<String> others = new TreeSet<>(endpoints);
        others.add(STORE);
        others.remove(node);
        partition(List.of(node), others, stall);
    }

    /**
     * The rule for the bytes {@code from} sends to {@code to}.
     *
     * @param from the sending endpoint
     * @param to the receiving endpoint
     * @return the rule; {@link Rule#PASS} unless set
     */
    public Rule rule(String from, String to) {
        return rules.getOrDefault(new Pair(from, to), Rule.PASS);
    }

    /**
     * The rules that are not {@code PASS}, and the endpoints whose proxies {@linkplain #refuseConnections refuse
     * connections}, for logs and reports.
     *
     * @return for example {@code "n1->n2 DROP, n2->n1 DELAY 200 ms, n3 REFUSED"}, sorted; {@code "all PASS"} when
     *     there are none
     */
    public String describe() {
        Map<String, String> sorted = new TreeMap<>();
        rules.forEach((pair, rule) -> sorted.put(pair.from() + "->" + pair.to(), rule.toString()));
        for (FaultProxy proxy : proxies) {
            if (!proxy.listening()) {
                sorted.put(proxy.to(), "REFUSED");
            }
        }
        if (sorted.isEmpty()) {
            return "all PASS";
        }
        return sorted.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** @return the connections open through all proxies, held ones included */
    int connections() {
        return proxies.stream().mapToInt(FaultProxy::connections).sum();
    }

    /** @return the bytes the proxies discarded under DROP rules so far */
    long droppedBytes() {
        return proxies.stream().mapToLong(FaultProxy::droppedBytes).sum();
    }

    /** @return the bytes the proxies hold in their queues */
    long bufferedBytes() {
        return proxies.stream().mapToLong(FaultProxy::bufferedBytes).sum();
    }

    /** Stops every proxy: resets their connections and waits up to 5 s for their threads to end. */
    @Override
    public void close() {
        List<FaultProxy> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(proxies);
            proxies.clear();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (FaultProxy proxy : all) {
            proxy.close(deadline);
        }
    }

    private static boolean touches(FaultProxy proxy, Pair pair) {
        return (proxy.from().equals(pair.from()) && proxy.to().equals(pair.to()))
                || (proxy.from().equals(pair.to()) && proxy.to().equals(pair.from()));
    }

    private static Pair pair(String from, String to) {
        if (from == null || from.isBlank()) {
            throw new IllegalArgumentException("from=" + from + ": an endpoint name must not be blank");
        }
        if (to == null || to.isBlank()) {
            throw new IllegalArgumentException("to=" + to + ": an endpoint name must not be blank");
        }
        if (from.equals(to)) {
            throw new IllegalArgumentException("from=to=" + from + ": the endpoints must differ");
        }
        return new Pair(from, to);
    }
}
