package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a discovering {@link TcpTransport} last learned from its {@link PeerResolver}, for status pages.
 *
 * @param source the resolver, as it describes itself (e.g. {@code dns peers.example:7101})
 * @param addresses the addresses of the last successful resolution, in its order, each with the member found
 *     there if one was (this node's own id for its own address)
 * @param resolvedAtNanos {@link System#nanoTime()} of the last successful resolution, or -1 before the first
 * @param lastError why the latest resolution failed, or null if it succeeded (or none ran yet)
 */
public record DiscoveryStatus(String source, List<Resolved> addresses, long resolvedAtNanos, String lastError) {
    public DiscoveryStatus {
        Objects.requireNonNull(source, "source");
        addresses = List.copyOf(addresses);
    }

    /**
     * One resolved address.
     *
     * @param address the address
     * @param member the member that answered there in an authenticated handshake, if one did
     */
    public record Resolved(NodeAddress address, Optional<NodeId> member) {
        public Resolved {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(member, "member");
        }
    }
}
