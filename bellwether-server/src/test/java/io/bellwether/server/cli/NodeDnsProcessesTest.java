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
import java.nio.charset.StandardCharsets;
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
 * Real {@code bellwether node} processes configured with {@code peers-dns}, as pods behind a headless service:
 * every member listens on the same port at its own loopback address (127.0.0.1, .2, .3), and one name resolves to
 * all of them through the JVM's resolver, fed from a hosts file ({@code -Djdk.net.hosts.file}) that the test
 * rewrites when a member comes back at a new address. Every check also asserts that no two nodes report
 * different leaders for one epoch.
 */
@Tag("processes")
@Timeout(900)
class NodeDnsProcessesTest {
    /** Generous: three cold JVMs on a CI machine that can be ten times slower than a workstation. */
    private static final Duration CEILING = Duration.ofSeconds(180);

    /** For one HTTP request to a node; a live node answers in milliseconds, a starved one may take seconds. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAME = "peers.bellwether.test";

    @TempDir
    Path dir;

    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, String> hosts = new LinkedHashMap<>(); // node -> its loopback address
    private final Map<Long, String> leaderPerEpoch = new HashMap<>();
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(REQUEST_TIMEOUT)
            .build();
    private int peerPort;
    private int httpPort;

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process p : processes.values()) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void writeHosts() throws IOException {
        StringBuilder file = new StringBuilder();
        hosts.values()
                .forEach(
                        address -> file.append(address).append(' ').append(NAME).append('\n'));
        Files.writeString(dir.resolve("hosts"), file.toString(), StandardCharsets.UTF_8);
    }

    private void writeConfig(String id) throws IOException {
        String host = hosts.get(id);
        Files.writeString(
                dir.resolve(id + ".yaml"),
                "cluster: dns-e2e\n"
                        + "node: " + id + "\n"
                        + "listen: " + host + ":" + peerPort + "\n"
                        + "http: " + host + ":" + httpPort + "\n"
                        + "peers-dns: " + NAME + ":" + peerPort + "\n"
                        + "members: [n1, n2, n3]\n"
                        + "peers-dns-interval: 1s\n"
                        // Discovery is under test, not failure detection: a 2 s election timeout keeps a starved
                        // CI machine from electing anew whenever a heartbeat is late. A killed leader's connections
                        // reset, which the followers notice at once whatever the timeout.
                        + "quorum: {heartbeat-interval: 250ms, missed-heartbeats: 8}\n"
                        + "secret-file: secret\n"
                        + "state-dir: data/" + id + "\n");
    }

    private void startCluster() throws IOException {
        Files.writeString(dir.resolve("secret"), "a-cluster-secret-of-enough-bytes\n");
        String[] addresses = {"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"};
        peerPort = Ports.freeOn(addresses);
        httpPort = Ports.freeOn(addresses);
        for (int i = 1; i <= 3; i++) {
            hosts.put("n" + i, "127.0.0." + i);
        }
        writeHosts();
        for (String id : hosts.keySet()) {
            writeConfig(id);
            start(id);
        }
    }

    private Process java(String id, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(LocalCluster.NODE_JVM_OPTIONS); // as the launcher runs a node
        command.addAll(List.of(
                "-Djdk.net.hosts.file=" + dir.resolve("hosts"),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve(id + ".out").toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        dir.resolve(id + ".log").toFile()))
                .start();
    }

    private void start(String id) throws IOException {
        processes.put(id, java(id, "node", "--config", dir.resolve(id + ".yaml").toString()));
    }

    private Optional<JsonNode> get(String id, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + hosts.get(id) + ":" + httpPort + path))
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

    /**
     * Waits until every node in {@code ids} reports the same leader (not {@code not}) and sees every other one
     * connected at its current address; returns the leader.
     */
    private String awaitAgreementAndConnections(List<String> ids, String not) {
        Map<String, Object> lastViews = new LinkedHashMap<>();
        try {
            return awaitAgreementAndConnections(ids, not, lastViews);
        } catch (ConditionTimeoutException e) {
            throw Logs.noAgreement(
                    "no agreement among " + ids + " within " + CEILING, lastViews, dir, hosts.keySet(), e);
        }
    }

    private String awaitAgreementAndConnections(List<String> ids, String not, Map<String, Object> lastViews) {
        return await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            List<JsonNode> views = new ArrayList<>();
                            for (String id : ids) {
                                Optional<JsonNode> s = get(id, "/status");
                                lastViews.put(id, s.isPresent() ? s.get() : "no answer");
                                if (s.isEmpty()) {
                                    return null;
                                }
                                views.add(s.get());
                                JsonNode leader = s.get().path("leader");
                                if (leader.isTextual()) {
                                    long epoch = s.get().path("epoch").asLong();
                                    String known = leaderPerEpoch.putIfAbsent(epoch, leader.asText());
                                    assertThat(known)
                                            .as("leader of epoch %d", epoch)
                                            .isIn(null, leader.asText());
                                }
                            }
                            for (int i = 0; i < ids.size(); i++) {
                                for (String other : ids) {
                                    if (other.equals(ids.get(i))) {
                                        continue;
                                    }
                                    JsonNode peer = views.get(i).path("peers").path(other);
                                    if (!peer.path("state").asText().equals("CONNECTED")
                                            || !peer.path("address")
                                                    .asText()
                                                    .equals(hosts.get(other) + ":" + peerPort)) {
                                        return null;
                                    }
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

    /** The leader every member in a {@code /cluster} answer names, at one epoch, or null. */
    private String agreedLeader(JsonNode cluster) {
        String leader = null;
        long epoch = -1;
        for (String id : hosts.keySet()) {
            JsonNode member = cluster.path("members").path(id);
            if (!member.path("leader").isTextual()) {
                return null;
            }
            if (leader == null) {
                leader = member.path("leader").asText();
                epoch = member.path("epoch").asLong();
            } else if (!leader.equals(member.path("leader").asText())
                    || epoch != member.path("epoch").asLong()) {
                return null;
            }
        }
        return leader;
    }

    @Test
    void threeNodesFindEachOtherByDnsElectOneLeaderAndFollowAMemberToItsNewAddress() throws Exception {
        startCluster();
        String leader = awaitAgreementAndConnections(List.of("n1", "n2", "n3"), null);

        // n1 asks every member for its status with a short timeout of its own; a starved member may miss it once.
        // On a starved machine another election may also have run since: what /cluster shows must be one leader
        // at one epoch, and the same leader every node reported for that epoch.
        JsonNode cluster = await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> get("n1", "/cluster").orElse(null), c -> c != null && agreedLeader(c) != null);
        String shown = agreedLeader(cluster);
        long shownEpoch = cluster.path("members").path(shown).path("epoch").asLong();
        assertThat(leaderPerEpoch.putIfAbsent(shownEpoch, shown))
                .as("leader of epoch %d", shownEpoch)
                .isIn(null, shown);
        leader = shown;
        // The transport's INFO lines reach the node's log (its logger must not be created before the levels are set).
        assertThat(Files.readString(dir.resolve("n1.log"))).contains("node n1: connected to n2");
        JsonNode discovery = get("n2", "/status").orElseThrow().path("discovery");
        assertThat(discovery.path("addresses").path("127.0.0.2:" + peerPort).asText())
                .isEqualTo("n2");
        Process status =
                java("status", "status", "--config", dir.resolve("n1.yaml").toString(), "--timeout", "5000");
        assertThat(status.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(status.exitValue()).isZero();
        Matcher agreed = Pattern.compile("all 3 nodes agree: leader (\\S+) at epoch (\\d+)")
                .matcher(Files.readString(dir.resolve("status.out")));
        assertThat(agreed.find()).as("the status command's verdict").isTrue();
        assertThat(leaderPerEpoch.putIfAbsent(Long.parseLong(agreed.group(2)), agreed.group(1)))
                .as("leader of epoch %s", agreed.group(2))
                .isIn(null, agreed.group(1));

        // kill -9 of the leader; it comes back as a new pod would, at another address.
        processes.get(leader).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        List<String> survivors = new ArrayList<>(hosts.keySet());
        survivors.remove(leader);
        String second = awaitAgreementAndConnections(survivors, leader);
        hosts.put(leader, "127.0.0.4");
        writeHosts();
        writeConfig(leader);
        start(leader);

        String settled = awaitAgreementAndConnections(List.of("n1", "n2", "n3"), null);
        assertThat(settled).as("the new leader keeps leading").isEqualTo(second);
        JsonNode resolved = await().atMost(CEILING)
                .until(
                        () -> get(survivors.get(0), "/status")
                                .orElseThrow()
                                .path("discovery")
                                .path("addresses"),
                        a -> a.size() == 3);
        assertThat(resolved.has("127.0.0.4:" + peerPort))
                .as("the new address, the vanished one dropped")
                .isTrue();
    }
}
