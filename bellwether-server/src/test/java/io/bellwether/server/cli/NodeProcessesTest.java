package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Logs;
import io.bellwether.testkit.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real {@code bellwether node} processes on loopback, over the TCP transport. Every check also asserts that no
 * two nodes report different leaders for one epoch.
 */
@Tag("needs-tcp")
@Timeout(900)
class NodeProcessesTest {
    /** Generous: three cold JVMs on a CI machine that can be ten times slower than a workstation. */
    private static final Duration CEILING = Duration.ofSeconds(180);

    /** For one HTTP request to a node; a live node answers in milliseconds, a starved one may take seconds. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, Integer> httpPorts = new LinkedHashMap<>();
    /** Every leader a node reported, by epoch, over the whole test: two for one epoch fail it at once. */
    private final Map<Long, String> leaderPerEpoch = new HashMap<>();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(REQUEST_TIMEOUT)
            .build();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process p : processes.values()) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void startCluster(int size) throws IOException {
        Files.writeString(dir.resolve("secret"), "a-cluster-secret-of-enough-bytes\n");
        Map<String, Integer> peerPorts = new LinkedHashMap<>();
        for (int i = 1; i <= size; i++) {
            peerPorts.put("n" + i, Ports.free());
            httpPorts.put("n" + i, Ports.free());
        }
        StringBuilder peers = new StringBuilder("peers:\n");
        peerPorts.forEach((id, port) -> peers.append("  ")
                .append(id)
                .append(": {address: 127.0.0.1:")
                .append(port)
                .append(", http: 127.0.0.1:")
                .append(httpPorts.get(id))
                .append("}\n"));
        for (String id : peerPorts.keySet()) {
            Path config = dir.resolve(id + ".yaml");
            Files.writeString(
                    config,
                    "cluster: e2e\nnode: " + id + "\nlisten: 127.0.0.1:" + peerPorts.get(id)
                            + "\nhttp: 127.0.0.1:" + httpPorts.get(id) + "\n" + peers
                            // The nodes' failure detection is not what these tests measure: a 2 s election timeout
                            // keeps a starved CI machine from electing anew whenever a heartbeat is late. A killed
                            // leader's connections reset and a stopped one hands over, whatever the timeout.
                            + "quorum: {heartbeat-interval: 250ms, missed-heartbeats: 8}\n"
                            + "secret-file: secret\nstate-dir: data/"
                            + id + "\n");
            start(id);
        }
    }

    private void start(String id) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(LocalCluster.NODE_JVM_OPTIONS); // as the launcher runs a node
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "node",
                "--config",
                dir.resolve(id + ".yaml").toString()));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(dir.resolve(id + ".out").toFile())
                .redirectError(dir.resolve(id + ".log").toFile());
        processes.put(id, pb.start());
    }

    private Optional<JsonNode> status(String id) {
        try {
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + httpPorts.get(id) + "/status"))
                    .timeout(REQUEST_TIMEOUT)
                    .build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(JSON.readTree(response.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Waits until every node in {@code ids} reports the same leader (one of them, not {@code not}). */
    private String awaitAgreement(List<String> ids, String not) {
        Map<String, Object> lastViews = new LinkedHashMap<>();
        try {
            return awaitAgreement(ids, not, lastViews);
        } catch (ConditionTimeoutException e) {
            throw Logs.noAgreement(
                    "no agreement among " + ids + " within " + CEILING, lastViews, dir, processes.keySet(), e);
        }
    }

    private String awaitAgreement(List<String> ids, String not, Map<String, Object> lastViews) {
        return await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            List<JsonNode> views = new ArrayList<>();
                            for (String id : ids) {
                                Optional<JsonNode> s = status(id);
                                lastViews.put(id, s.isPresent() ? s.get() : "no answer");
                                if (s.isEmpty()) {
                                    return null;
                                }
                                views.add(s.get());
                                JsonNode leader = s.get().path("leader");
                                if (leader.isTextual()) {
                                    String known = leaderPerEpoch.putIfAbsent(
                                            s.get().path("epoch").asLong(), leader.asText());
                                    assertThat(known)
                                            .as(
                                                    "leader of epoch %d",
                                                    s.get().path("epoch").asLong())
                                            .isIn(null, leader.asText());
                                }
                            }
                            String leader = views.get(0).path("leader").asText(null);
                            long epoch = views.get(0).path("epoch").asLong();
                            boolean agree = leader != null
                                    && !leader.equals(not)
                                    && ids.contains(leader)
                                    && views.stream()
                                            .allMatch(v -> leader.equals(
                                                            v.path("leader").asText(null))
                                                    && v.path("epoch").asLong() == epoch);
                            return agree ? leader : null;
                        },
                        l -> l != null);
    }

    @Test
    void threeNodesElectOneLeaderAndSigtermHandsOverAndExitsZero() throws Exception {
        startCluster(3);
        String leader = awaitAgreement(List.of("n1", "n2", "n3"), null);

        Process process = processes.get(leader);
        process.destroy(); // SIGTERM

        assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isZero();
        List<String> survivors = new ArrayList<>(processes.keySet());
        survivors.remove(leader);
        assertThat(awaitAgreement(survivors, leader)).isNotEqualTo(leader);
    }

    @Test
    void killMinusNineOfTheLeaderElectsANewOneEverySurvivorReports() throws Exception {
        startCluster(3);
        String leader = awaitAgreement(List.of("n1", "n2", "n3"), null);

        processes.get(leader).destroyForcibly().waitFor(10, TimeUnit.SECONDS);

        List<String> survivors = new ArrayList<>(processes.keySet());
        survivors.remove(leader);
        assertThat(awaitAgreement(survivors, leader)).isNotEqualTo(leader);
    }

    @Test
    void statusCommandSeesTheRunningClusterAgree() throws Exception {
        startCluster(3);
        awaitAgreement(List.of("n1", "n2", "n3"), null);

        // Should another election run meanwhile, the command may catch the nodes disagreeing: ask again.
        MainTest.Outcome o = await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> MainTest.run(
                                "status", "--config", dir.resolve("n1.yaml").toString(), "--timeout", "5000"),
                        outcome -> outcome.exitCode() == 0);

        Matcher verdict = Pattern.compile("all 3 nodes agree: leader (\\S+) at epoch (\\d+)")
                .matcher(o.out());
        assertThat(verdict.find()).as("the verdict in %s", o.out()).isTrue();
        assertThat(verdict.group(1)).isIn("n1", "n2", "n3");
        assertThat(leaderPerEpoch.putIfAbsent(Long.parseLong(verdict.group(2)), verdict.group(1)))
                .as("the leader of epoch %s, as the nodes reported it", verdict.group(2))
                .isIn(null, verdict.group(1));
    }
}
