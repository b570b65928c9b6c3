package io.bellwether.server.http;

import io.bellwether.Election;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.server.node.ElectionMonitor;
import io.bellwether.server.node.NodeMetrics;
import io.bellwether.server.node.PeerState;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.testkit.Ports;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Three elections over an {@link InProcessNetwork}, each with its monitor and HTTP server on loopback. */
final class InProcessCluster implements AutoCloseable {
    final InProcessNetwork network = new InProcessNetwork();
    final Map<NodeId, Election> elections = new LinkedHashMap<>();
    final Map<NodeId, ElectionMonitor> monitors = new LinkedHashMap<>();
    final Map<NodeId, NodeMetrics> metrics = new LinkedHashMap<>();
    final Map<NodeId, StatusServer> servers = new LinkedHashMap<>();
    final Map<NodeId, NodeAddress> http = new LinkedHashMap<>();
    /** Nodes cut off from the others by {@link #isolate}: their peers show as DISCONNECTED on both sides. */
    private final java.util.Set<NodeId> isolated = java.util.concurrent.ConcurrentHashMap.newKeySet();

    InProcessCluster(int size, long seed) {
        this(size, seed, HttpLimits.DEFAULTS);
    }

    InProcessCluster(int size, long seed, HttpLimits limits) {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= size; i++) {
            NodeId id = NodeId.of("n" + i);
            members.put(id, new NodeAddress("127.0.0.1", 7100 + i));
            http.put(id, new NodeAddress("127.0.0.1", Ports.free()));
        }
        List<NodeId> ids = new ArrayList<>(members.keySet());
        for (NodeId id : ids) {
            Election election = Election.builder()
                    .group("default")
                    .self(id)
                    .members(members)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(network.transport(id))
                    .seed(seed + ids.indexOf(id))
                    .build();
            NodeMetrics m = new NodeMetrics("demo", id, "default");
            java.util.function.Supplier<Map<NodeId, PeerState>> peers = () -> {
                Map<NodeId, PeerState> states = new LinkedHashMap<>();
                members.forEach((peer, address) -> {
                    if (!peer.equals(id)) {
                        String state = isolated.contains(id) || isolated.contains(peer) ? "DISCONNECTED" : "CONNECTED";
                        states.put(peer, new PeerState(address.toString(), state, Optional.empty(), Optional.empty()));
                    }
                });
                return states;
            };
            ElectionMonitor monitor = new ElectionMonitor(election, "demo", "quorum", ids, peers, m);
            Map<NodeId, Optional<NodeAddress>> addresses = new java.util.TreeMap<>();
            http.forEach((member, address) -> addresses.put(member, Optional.of(address)));
            StatusServer server = new StatusServer(
                    new InetSocketAddress("127.0.0.1", http.get(id).port()),
                    monitor,
                    m,
                    () -> addresses,
                    Duration.ofMillis(200),
                    limits);
            elections.put(id, election);
            monitors.put(id, monitor);
            metrics.put(id, m);
            servers.put(id, server);
        }
    }

    void start() {
        for (NodeId id : elections.keySet()) {
            monitors.get(id).start();
            servers.get(id).start();
            elections.get(id).start();
        }
    }

    /** Cuts {@code node} off from every other member (messages both ways are lost). */
    void isolate(NodeId node) {
        isolated.add(node);
        network.isolate(node);
    }

    String url(NodeId id, String path) {
        return servers.get(id).url() + path;
    }

    @Override
    public void close() {
        elections.values().forEach(Election::close);
        servers.values().forEach(StatusServer::close);
        monitors.values().forEach(ElectionMonitor::close);
        network.close();
    }
}
