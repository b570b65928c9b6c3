package io.bellwether.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.transport.tcp.PeerResolver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads where the members are and where this node listens: {@code listen}, {@code http}, and either {@code peers}
 * or {@code peers-dns} with {@code members} and {@code peers-dns-interval}; checks that this node is one of the
 * members and that no two addresses clash.
 */
final class PeersSection {
    private static final List<String> PEER_KEYS = List.of("address", "http");

    /**
     * Where this node and its peers are; {@code listen} and {@code http} are null after a problem with them, and
     * {@code peers} is null after any problem with the members.
     *
     * @param listen where this node accepts peer connections (null with a lease when not given)
     * @param http where this node serves HTTP
     * @param peers every member by id, this node included; empty with {@code peers-dns}
     * @param peersDns the {@code peers-dns} settings, if given
     */
    record Members(
            NodeAddress listen,
            NodeAddress http,
            Map<NodeId, NodeConfig.Peer> peers,
            Optional<NodeConfig.PeersDns> peersDns) {}

    private final ConfigValues top;
    private final NodeId node;
    private final String storeAlgorithm;
    private final boolean lease;
    private final String peerAlgorithms;

    private PeersSection(ConfigValues top, NodeId node, String storeAlgorithm, String peerAlgorithms) {
        this.top = top;
        this.node = node;
        this.storeAlgorithm = storeAlgorithm;
        this.lease = storeAlgorithm != null;
        this.peerAlgorithms = peerAlgorithms;
    }

    /**
     * Reads the members.
     *
     * @param node this node's id, null after a problem with it
     * @param storeAlgorithm the algorithm's name if it elects through a store (lease), else null: the store is the
     *     only channel between members then, so peer addresses are not needed, though they are accepted (peers
     *     then only feed /cluster and the dashboard)
     * @param peerAlgorithms the algorithms whose members exchange messages, for messages
     */
    static Members read(ConfigValues top, NodeId node, String storeAlgorithm, String peerAlgorithms) {
        return new PeersSection(top, node, storeAlgorithm, peerAlgorithms).read();
    }

    private Members read() {
        NodeAddress listen = top.address("listen", !lease);
        boolean httpGiven = top.has("http");
        NodeAddress http = top.address("http", false);

        boolean dns = top.has("peers-dns");
        Optional<NodeConfig.PeersDns> peersDns = Optional.empty();
        Map<NodeId, NodeConfig.Peer> peers;
        if (dns) {
            peersDns = peersDns(listen);
            peers = peersDns.isPresent() ? new TreeMap<>() : null;
        } else {
            peers = lease && !top.has("peers") ? null : peers();
            for (String key : List.of("members", "peers-dns-interval")) {
                if (top.has(key)) {
                    top.error(key + " is given without peers-dns: allowed only with peers-dns (with peers, the"
                            + " member ids are the keys under peers and their addresses are fixed)");
                }
            }
        }
        if (peers != null && node != null && !dns) {
            NodeConfig.Peer me = peers.get(node);
            if (me == null) {
                top.error("node = '" + node + "' is not one of the peers " + peers.keySet()
                        + ": allowed one of the ids under peers (this node must be listed too)");
            } else {
                if (listen != null && !sameEndpoint(listen, me.address())) {
                    top.error("listen = '" + listen + "' differs from this node's address under peers (peers." + node
                            + " = '" + me.address() + "'): allowed the same address, or a wildcard host"
                            + " (0.0.0.0, ::) with the same port");
                }
                boolean peerHttpGiven = top.get("peers").path(node.value()).has("http");
                if (http != null && peerHttpGiven && !sameEndpoint(http, me.http())) {
                    top.error("http = '" + http + "' differs from peers." + node + ".http = '" + me.http()
                            + "': allowed the same address, or leave one of them out");
                } else if (http != null && !peerHttpGiven) {
                    // This node's own http key is the better source for the address its peers should use.
                    peers.put(node, new NodeConfig.Peer(me.address(), http));
                } else if (!httpGiven) {
                    http = me.http();
                }
            }
        }
        if (http == null && !httpGiven && listen != null) {
            http = offsetPort(top, "http", listen);
        }
        if (lease && http == null && !httpGiven && listen == null && peers == null) {
            top.error("http is missing: with algorithm " + storeAlgorithm
                    + " and neither listen nor peers given, allowed the"
                    + " host:port to serve status, metrics and the dashboard on, e.g. http: 127.0.0.1:8101");
        }
        if (http != null) {
            httpClashes(listen, http, httpGiven, peers);
        }
        if (lease && peers == null && node != null && http != null) {
            // Alone in its member list: the member's "peer address" is never dialled, only reported.
            peers = new TreeMap<>(Map.of(node, new NodeConfig.Peer(listen != null ? listen : http, http)));
        }
        return new Members(listen, http, peers, peersDns);
    }

    /**
     * {@code peers-dns} with {@code members} and {@code peers-dns-interval}: the member ids are fixed (they make the
     * quorum), only where they listen is discovered.
     */
    private Optional<NodeConfig.PeersDns> peersDns(NodeAddress listen) {
        int before = top.errorCount();
        JsonNode value = top.get("peers-dns");
        String text = ConfigValues.shown(value);
        if (top.has("peers")) {
            top.error("peers and peers-dns are both given: allowed one of them (peers: every member's id with a"
                    + " fixed host:port; peers-dns: a DNS name:port resolved periodically, with the ids under"
                    + " members)");
        }
        if (lease) {
            top.error("peers-dns = '" + text + "' is given with algorithm " + storeAlgorithm + ", whose nodes have no"
                    + " peer traffic: allowed with " + peerAlgorithms + " (with " + storeAlgorithm + ", give peers"
                    + " for /cluster and the"
                    + " dashboard, or nothing)");
        }
        NodeAddress name = null;
        try {
            if (!value.isValueNode()) {
                throw new IllegalArgumentException("not a single value");
            }
            name = NodeAddress.parse(text);
        } catch (IllegalArgumentException e) {
            top.error("peers-dns = '" + text + "' is not a name:port: allowed a DNS name (or an address) and a port"
                    + " from 1 to 65535, e.g. bellwether.default.svc.cluster.local:7101");
        }
        if (name != null && listen != null && listen.port() != name.port()) {
            top.error("listen = '" + listen + "' has another port than peers-dns = '" + name + "': allowed port "
                    + name.port() + " (the members dial every address peers-dns resolves to at its port, so every"
                    + " member listens on it)");
        }
        List<NodeId> members = memberIds();
        // PeerResolver's bounds, not TcpTransport's: loading TcpTransport here would create its logger before
        // the node command sets the log levels, and hide its INFO lines.
        Duration interval = top.duration(
                "peers-dns-interval",
                PeerResolver.DEFAULT_INTERVAL,
                PeerResolver.MIN_INTERVAL,
                PeerResolver.MAX_INTERVAL,
                "a single value");
        if (top.errorCount() > before || name == null || members == null) {
            return Optional.empty();
        }
        return Optional.of(new NodeConfig.PeersDns(name, members, interval));
    }

    /** {@code members}: the fixed ids that go with {@code peers-dns}; null after a problem. */
    private List<NodeId> memberIds() {
        if (!top.given("members")) {
            top.error("members is missing: with peers-dns, allowed the list of every member's id, this node"
                    + " included, e.g. members: [n1, n2, n3] (the ids make the quorum, so they are fixed: only"
                    + " the addresses are discovered)");
            return null;
        }
        List<JsonNode> items = top.list("members", "a non-empty list of member ids, e.g. members: [n1, n2, n3]");
        if (items == null) {
            return null;
        }
        List<NodeId> ids = new ArrayList<>();
        boolean failed = false;
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            String key = "members[" + i + "]";
            NodeId id;
            try {
                if (!item.isValueNode() || item.isNull()) {
                    throw new IllegalArgumentException("not a single value");
                }
                id = NodeId.of(item.asText());
            } catch (IllegalArgumentException e) {
                top.invalid(key, ConfigValues.shown(item), "a member id, " + IdentitySection.NODE_ID_ALLOWED);
                failed = true;
                continue;
            }
            int first = ids.indexOf(id);
            if (first >= 0) {
                top.error(key + " = '" + id + "' repeats members[" + first + "]: allowed each id once");
                failed = true;
            }
            ids.add(id);
        }
        if (failed) {
            return null;
        }
        if (node != null && !ids.contains(node)) {
            top.error("node = '" + node + "' is not one of the members " + ids + ": allowed one of them (this node"
                    + " must be listed too)");
            return null;
        }
        return ids;
    }

    /** {@code peers}: every member by id; null after a problem. */
    private Map<NodeId, NodeConfig.Peer> peers() {
        if (!top.has("peers")) {
            top.error("peers is missing: allowed a mapping of every member's id (this node included) to its"
                    + " host:port, e.g. peers: {n1: 127.0.0.1:7101, n2: 127.0.0.1:7102}, or peers-dns: name:port"
                    + " with members: [ids]");
            return null;
        }
        String allowed = "a non-empty mapping of member id to host:port or {address: host:port, http: host:port}";
        ConfigValues section = top.section("peers", allowed);
        if (section == null) {
            return null;
        }
        if (section.isEmpty()) {
            top.invalid("peers", top.get("peers"), allowed);
            return null;
        }
        Map<NodeId, NodeConfig.Peer> peers = new TreeMap<>();
        Map<NodeAddress, NodeId> byAddress = new HashMap<>();
        Map<NodeAddress, NodeId> byHttp = new HashMap<>();
        Set<NodeId> httpGivenFor = new HashSet<>();
        boolean failed = false;
        for (String entry : section.keys()) {
            String key = section.name(entry);
            NodeId id;
            try {
                id = NodeId.of(entry);
            } catch (IllegalArgumentException e) {
                top.error("peers: id '" + entry + "' is invalid: allowed " + IdentitySection.NODE_ID_ALLOWED);
                failed = true;
                continue;
            }
            JsonNode value = section.get(entry);
            NodeAddress address;
            NodeAddress http;
            if (value.isObject()) {
                ConfigValues peer = section.section(entry, allowed);
                peer.unknownKeys(PEER_KEYS);
                address = peer.address("address", true);
                http = peer.has("http") ? peer.address("http", true) : null;
                if (http == null && !peer.has("http") && address != null) {
                    http = offsetPort(top, key + ".http", address);
                }
            } else {
                address = section.address(entry, true);
                http = address == null ? null : offsetPort(top, key + ".http", address);
            }
            if (address == null || http == null) {
                failed = true;
                continue;
            }
            if (Addresses.unspecified(address)) {
                top.error((value.isObject() ? key + ".address" : key) + " = '" + address + "' is a wildcard address,"
                        + " which no member can dial: allowed the host name or IP address the other members reach "
                        + id + " at, e.g. 127.0.0.1:" + address.port() + " (a wildcard belongs in listen)");
                failed = true;
            }
            if (value.has("http") && Addresses.unspecified(http)) {
                top.error(key + ".http = '" + http + "' is a wildcard address, which no member can reach: allowed"
                        + " the host name or IP address of " + id + "'s HTTP server, e.g. 127.0.0.1:" + http.port());
                failed = true;
            }
            if (value.has("http")) {
                httpGivenFor.add(id);
            }
            NodeId other = byAddress.putIfAbsent(address, id);
            if (other != null) {
                top.error(key + " = '" + address + "' duplicates the address of peers." + other
                        + ": allowed a distinct host:port per member");
                failed = true;
            }
            NodeId otherHttp = byHttp.putIfAbsent(http, id);
            // A duplicate peer address already implies the derived HTTP addresses clash; say it once.
            if (otherHttp != null && other == null) {
                top.error(key + ".http = '" + http + "' duplicates the HTTP address of peers." + otherHttp
                        + ": allowed a distinct host:port per member");
                failed = true;
            }
            peers.put(id, new NodeConfig.Peer(address, http));
        }
        if (!failed) {
            // One member's HTTP server on another's peer port: whichever starts second cannot bind.
            for (Map.Entry<NodeId, NodeConfig.Peer> e : peers.entrySet()) {
                NodeId owner = byAddress.get(e.getValue().http());
                if (owner != null) {
                    boolean given = httpGivenFor.contains(e.getKey());
                    top.error("peers." + e.getKey() + ".http = '" + e.getValue().http() + "'"
                            + (given
                                    ? ""
                                    : " (its default: the peer port + " + NodeConfig.DEFAULT_HTTP_PORT_OFFSET + ")")
                            + " is the peer address of peers." + owner + ": allowed a host:port no member uses for"
                            + " anything else"
                            + (given ? "" : " (give peers." + e.getKey() + ".http explicitly)"));
                    failed = true;
                }
            }
        }
        return failed ? null : peers;
    }

    /**
     * This node's {@code http} against the addresses it must not take: its own {@code listen} (one port cannot serve
     * both), and another member's peer or HTTP address (that member could not bind it, or this node could not).
     */
    private void httpClashes(
            NodeAddress listen, NodeAddress http, boolean httpGiven, Map<NodeId, NodeConfig.Peer> peers) {
        if (listen != null && Addresses.overlap(listen, http)) {
            top.error("http = '" + http + "' is the same address as listen = '" + listen + "': allowed a host:port"
                    + " of its own for the HTTP server (the peer transport and the HTTP server cannot share a port),"
                    + " e.g. http: "
                    + new NodeAddress(
                            listen.host(), Math.min(65535, listen.port() + NodeConfig.DEFAULT_HTTP_PORT_OFFSET)));
            return;
        }
        if (!httpGiven || peers == null) {
            return; // derived from this node's peer entry, which peers() has checked
        }
        for (Map.Entry<NodeId, NodeConfig.Peer> e : peers.entrySet()) {
            if (e.getKey().equals(node)) {
                continue;
            }
            String what = http.equals(e.getValue().address())
                    ? "the peer address of peers." + e.getKey()
                    : http.equals(e.getValue().http()) ? "the HTTP address of peers." + e.getKey() : null;
            if (what != null) {
                top.error("http = '" + http + "' is " + what + ": allowed a host:port no other member uses");
            }
        }
    }

    /** The default HTTP address next to {@code address}, or null after a problem if its port would be too high. */
    private static NodeAddress offsetPort(ConfigValues top, String key, NodeAddress address) {
        int port = address.port() + NodeConfig.DEFAULT_HTTP_PORT_OFFSET;
        if (port > 65535) {
            top.error(key + " is missing and its default (port " + address.port() + " + "
                    + NodeConfig.DEFAULT_HTTP_PORT_OFFSET + " = " + port + ") is out of range: give it explicitly");
            return null;
        }
        return new NodeAddress(address.host(), port);
    }

    private static boolean sameEndpoint(NodeAddress bind, NodeAddress advertised) {
        if (bind.port() != advertised.port()) {
            return false;
        }
        String host = bind.host();
        return host.equals(advertised.host()) || host.equals("0.0.0.0") || host.equals("::") || host.equals("*");
    }
}
