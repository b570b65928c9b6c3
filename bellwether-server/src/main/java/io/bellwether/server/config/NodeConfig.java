package io.bellwether.server.config;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.quorum.QuorumConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node's validated configuration, as read from its YAML file by {@link ConfigLoader}. Every key is
 * documented, with its default and allowed values, in {@code docs/configuration.md}.
 *
 * @param cluster the cluster name carried in every frame; peers with another name are refused
 * @param node this node's id, one of {@link #members()}
 * @param algorithm the election algorithm's name ({@code quorum}, {@code bully}, {@code ring}, {@code invitation} or
 *     {@code lease})
 * @param group the election group's name; with several groups ({@code groups}), the first of them
 * @param groups every election group this node takes part in, in the order configured: {@code group} alone, or
 *     the names {@code groups} gives
 * @param spreadLeaders whether each group's priorities come from its name so that leaders spread over the members
 *     ({@code spread-leaders}, see {@link io.bellwether.ElectionBuilder#spreadLeaders})
 * @param listen where this node accepts peer connections; null with {@code algorithm: lease} when not given
 *     (a lease node has no peer traffic)
 * @param http where this node serves status, metrics, events and the dashboard
 * @param peers every member, this node included, sorted by id; with {@code algorithm: lease} and no {@code peers}
 *     given, this node alone (its address being {@code listen}, else {@code http}), and in lease mode the peers
 *     only feed {@code /cluster} and the dashboard; empty with {@code peers-dns}
 * @param peersDns with {@code peers-dns}: the name to resolve, the fixed member ids and the resolve interval
 * @param secret the shared cluster secret, empty when {@code insecure} (or not given, in lease mode)
 * @param insecure whether peer traffic runs without authentication (asked for explicitly)
 * @param stateDir where the persisted term lives; null with {@code algorithm: lease} when not given (the lease
 *     elector persists nothing)
 * @param tls optional TLS settings for peer connections
 * @param maxFrameBytes the largest peer frame accepted
 * @param handoverLinger how long a leader that resigns on shutdown stays up after handing over, connections open,
 *     before it closes them and exits ({@code handover-linger})
 * @param lease the lease store and timings, present iff {@code algorithm} is {@code lease}
 * @param elector the elector that runs over the TCP transport between the peers, with its timings: the configured
 *     algorithm's, from its section ({@code quorum:}, {@code bully:} …) or its defaults; null with
 *     {@code algorithm: lease}, whose elector is built from {@code lease} and its store
 * @param httpLimits what one HTTP client may take from this node ({@code http-limits})
 */
public record NodeConfig(
        String cluster,
        NodeId node,
        String algorithm,
        String group,
        List<String> groups,
        boolean spreadLeaders,
        NodeAddress listen,
        NodeAddress http,
        Map<NodeId, Peer> peers,
        Optional<PeersDns> peersDns,
        Optional<byte[]> secret,
        boolean insecure,
        Path stateDir,
        Optional<Tls> tls,
        int maxFrameBytes,
        Duration handoverLinger,
        Optional<LeaseSettings> lease,
        ElectorSpec elector,
        io.bellwether.server.http.HttpLimits httpLimits) {

    /** The default {@code group}. */
    public static final String DEFAULT_GROUP = "default";

    /** What the names of counted groups ({@code groups: 1000}) start with, a number following: group-0, group-1… */
    public static final String COUNTED_GROUP_PREFIX = "group-";

    public NodeConfig {
        groups = List.copyOf(groups);
        if (groups.isEmpty() || !groups.get(0).equals(group)) {
            throw new IllegalArgumentException("groups must start with group '" + group + "', was " + groups);
        }
    }

    /** Whether this node takes part in more than one election group. */
    public boolean manyGroups() {
        return groups.size() > 1;
    }

    /** The default {@code max-frame-bytes}: 64 KiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 64 * 1024;

    /** The default {@code handover-linger}. */
    public static final Duration DEFAULT_HANDOVER_LINGER = Duration.ofMillis(200);

    /** The largest {@code handover-linger}. */
    public static final Duration MAX_HANDOVER_LINGER = Duration.ofSeconds(10);

    /** How far a peer's HTTP port is from its peer port when its {@code http} address is not given. */
    public static final int DEFAULT_HTTP_PORT_OFFSET = 1000;

    /** The quorum elector's timings: {@link #elector()} with {@code algorithm: quorum}, else its defaults (unused). */
    public QuorumConfig quorum() {
        return elector instanceof QuorumConfig q ? q : QuorumConfig.defaults();
    }

    /** Every member's id, this node's included, sorted: the keys of {@code peers}, or {@code members}. */
    public List<NodeId> members() {
        return peersDns.map(d -> d.members().stream().sorted().toList()).orElseGet(() -> List.copyOf(peers.keySet()));
    }

    /**
     * The peer address of every member, for the transport and the election. With {@code peers-dns}, where the
     * members are is discovered at run time, and every member's entry is the {@code peers-dns} name itself: the
     * election only uses it to fill in {@link io.bellwether.LeaderView#address()}.
     */
    public Map<NodeId, NodeAddress> memberAddresses() {
        Map<NodeId, NodeAddress> addresses = new LinkedHashMap<>();
        peersDns.ifPresent(d -> d.members().stream().sorted().forEach(id -> addresses.put(id, d.name())));
        peers.forEach((id, peer) -> addresses.put(id, peer.address()));
        return addresses;
    }

    /**
     * The HTTP addresses of every member, this node included; with {@code peers-dns} only this node's, the
     * others being discovered at run time.
     */
    public Map<NodeId, NodeAddress> httpAddresses() {
        Map<NodeId, NodeAddress> addresses = new LinkedHashMap<>();
        peers.forEach((id, peer) -> addresses.put(id, peer.http()));
        if (peersDns.isPresent()) {
            addresses.put(node, http);
        }
        return addresses;
    }

    /**
     * Where the members are found when they have no fixed addresses ({@code peers-dns}).
     *
     * @param name the DNS name and port: every address the name resolves to (A and AAAA records) is dialed at
     *     that port
     * @param members every member's id, this node included, in the order given: fixed, they make the quorum
     * @param interval how often the name is resolved again ({@code peers-dns-interval})
     */
    public record PeersDns(NodeAddress name, List<NodeId> members, Duration interval) {
        public PeersDns {
            members = List.copyOf(members);
        }
    }

    /**
     * One member of the cluster.
     *
     * @param address its peer address
     * @param http its HTTP address (given, or the peer address with the port plus 1000)
     */
    public record Peer(NodeAddress address, NodeAddress http) {}

    /**
     * TLS for peer connections.
     *
     * @param certificate PEM certificate chain of this node
     * @param privateKey PEM private key of this node
     * @param trusted PEM certificates trusted for peers (mutual TLS), if given
     * @param verifyHostname whether a dialing node checks that its peer's certificate names the peer
     * @param serverName the name peers' certificates must carry instead of the host dialed, if given
     */
    public record Tls(
            Path certificate,
            Path privateKey,
            Optional<Path> trusted,
            boolean verifyHostname,
            Optional<String> serverName) {}
}
