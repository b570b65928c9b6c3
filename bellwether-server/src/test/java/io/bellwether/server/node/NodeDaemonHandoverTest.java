package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.testkit.Ports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A leading node that is stopped hands over and stays connected for {@code handover-linger} before it closes. */
class NodeDaemonHandoverTest {
    private static final Duration CEILING = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final Map<String, NodeDaemon> daemons = new LinkedHashMap<>();

    @AfterEach
    void closeAll() {
        daemons.values().forEach(NodeDaemon::close);
    }

    private void startCluster(String linger) throws Exception {
        Files.writeString(dir.resolve("secret"), "a-cluster-secret-of-enough-bytes\n", StandardCharsets.UTF_8);
        List<String> ids = List.of("n1", "n2", "n3");
        Map<String, Integer> ports = new LinkedHashMap<>();
        StringBuilder peers = new StringBuilder("peers:\n");
        for (String id : ids) {
            ports.put(id, Ports.free());
            peers.append("  ")
                    .append(id)
                    .append(": {address: 127.0.0.1:")
                    .append(ports.get(id))
                    .append(", http: 127.0.0.1:")
                    .append(Ports.free())
                    .append("}\n");
        }
        for (String id : ids) {
            String yaml = "cluster: handover\n"
                    + "node: " + id + "\n"
                    + "listen: 127.0.0.1:" + ports.get(id) + "\n"
                    + peers
                    + "secret-file: secret\n"
                    + "state-dir: data-" + id + "\n"
                    + "handover-linger: " + linger + "\n";
            NodeConfig config = ConfigLoader.parse(yaml, dir, id + ".yaml");
            daemons.put(id, NodeDaemon.start(config));
        }
    }

    private String awaitLeader(List<String> among) {
        return await().atMost(CEILING)
                .until(
                        () -> among.stream()
                                .filter(id ->
                                        daemons.get(id).election().leadership().isPresent())
                                .findFirst(),
                        Optional::isPresent)
                .orElseThrow();
    }

    private List<String> othersThan(String id) {
        List<String> others = new ArrayList<>(daemons.keySet());
        others.remove(id);
        return others;
    }

    /** The state of {@code peer}'s connection as {@code node} sees it. */
    private String stateOf(String node, String peer) {
        return daemons.get(node).peerStates().get(NodeId.of(peer)).state();
    }

    @Test
    void theSuccessorIsElectedWhileTheResigningLeaderIsStillConnected() throws Exception {
        startCluster("3s");
        String leader = awaitLeader(List.copyOf(daemons.keySet()));
        List<String> others = othersThan(leader);
        long epoch = daemons.get(leader)
                .election()
                .leadership()
                .map(Leadership::epoch)
                .orElseThrow();
        // A majority elects before every connection is up: a node that started first may still be waiting out
        // its redial backoff to a peer that started later. The lingering is only seen on connections that exist.
        await().atMost(CEILING)
                .until(() -> others.stream().allMatch(o -> stateOf(o, leader).equals("CONNECTED")));

        NodeDaemon resigning = daemons.remove(leader);
        CompletableFuture<Void> closed = CompletableFuture.runAsync(resigning::close);
        String successor = awaitLeader(others);

        assertThat(daemons.get(successor).election().leadership().orElseThrow().epoch())
                .isGreaterThan(epoch);
        // Handed over, and still lingering: its connections are up and close() has not returned.
        assertThat(closed).isNotDone();
        assertThat(stateOf(successor, leader)).isEqualTo("CONNECTED");
        closed.get(CEILING.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        await().atMost(CEILING).until(() -> !stateOf(successor, leader).equals("CONNECTED"));
    }

    @Test
    void withALingerOfZeroTheLeaderStillHandsOver() throws Exception {
        startCluster("0ms");
        String leader = awaitLeader(List.copyOf(daemons.keySet()));
        List<String> others = othersThan(leader);

        daemons.remove(leader).close();

        awaitLeader(others);
    }
}
