package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells a discovering {@link TcpTransport} (see {@link TcpTransport.Builder#discover}) where the members of its
 * cluster listen right now, without saying which member is where: the transport learns that in each
 * connection's authenticated handshake.
 *
 * <p>The transport calls {@link #resolve()} once per resolve interval on a thread of its own, never on its I/O
 * thread, and never twice at once; a call may block (a DNS lookup does), and a slow one only delays the next.
 * Tests implement it with a lambda that returns loopback addresses.
 */
@FunctionalInterface
public interface PeerResolver {
    /** The default resolve interval of a discovering transport: 5 s. */
    Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

    /** The shortest resolve interval: 1 s. */
    Duration MIN_INTERVAL = Duration.ofSeconds(1);

    /** The longest resolve interval: 10 min. */
    Duration MAX_INTERVAL = Duration.ofMinutes(10);

    /**
     * The addresses at which members listen now; typically this node's own among them (the transport
     * recognises it). An empty list counts as a failure.
     *
     * @throws Exception if the addresses cannot be learned now; the transport keeps those it knew and tries
     *     again at the next interval
     */
    List<NodeAddress> resolve() throws Exception;

    /**
     * Every A and AAAA record of {@code host}, each with {@code port}, looked up through the JVM's resolver
     * ({@link InetAddress#getAllByName}). The JVM caches successful lookups (for 30 s unless the security
     * property {@code networkaddress.cache.ttl} says otherwise), which can delay seeing a change by that much;
     * {@code bellwether node} lowers it to 1 s unless it is set.
     *
     * @throws IllegalArgumentException if the host is blank or the port out of 1-65535
     */
    static PeerResolver dns(String host, int port) {
        NodeAddress name = new NodeAddress(host, port); // validates both
        return new PeerResolver() {
            @Override
            public List<NodeAddress> resolve() throws Exception {
                List<NodeAddress> addresses = new ArrayList<>();
                for (InetAddress a : InetAddress.getAllByName(name.host())) {
                    addresses.add(new NodeAddress(a.getHostAddress(), name.port()));
                }
                return addresses;
            }

            @Override
            public String toString() {
                return "dns " + name;
            }
        };
    }
}
