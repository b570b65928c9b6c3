package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.Election;
import io.bellwether.LeaderSpread;
import io.bellwether.NodeId;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.testkit.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three in-process nodes of 24 groups each over real TCP: every group is led, leaders spread over the members, the
 * HTTP face answers for the node and for each group, and a stopped member hands all its groups over. One cluster
 * for the class, the member's stop last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeDaemonGroupsTest {
    private static final Duration CEILING = Duration.ofSeconds(60);
    private static final int GROUPS = 24;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> IDS = List.of("n1", "n2", "n3");

    @TempDir
    static Path dir;

    private final Map<String, NodeDaemon> daemons = new LinkedHashMap<>();
    private final Map<String, Integer> httpPorts = new LinkedHashMap<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void startCluster() throws Exception {
        Files.writeString(dir.resolve("secret"), "a-cluster-secret-of-enough-bytes\n", StandardCharsets.UTF_8);
        Map<String, Integer> ports = new LinkedHashMap<>();
        StringBuilder peers = new StringBuilder("peers:\n");
        for (String id : IDS) {
            ports.put(id, Ports.free());
            httpPorts.put(id, Ports.free());
            peers.append("  ")
                    .append(id)
                    .append(": {address: 127.0.0.1:")
                    .append(ports.get(id))
                    .append(", http: 127.0.0.1:")
                    .append(httpPorts.get(id))
                    .append("}\n");
        }
        for (String id : IDS) {
            String yaml = "cluster: groups\n"
                    + "node: " + id + "\n"
                    + "groups: " + GROUPS + "\n"
                    + "listen: 127.0.0.1:" + ports.get(id) + "\n"
                    + peers
                    + "secret-file: secret\n"
                    + "state-dir: data-" + id + "\n"
                    + "handover-linger: 0ms\n";
            NodeConfig config = ConfigLoader.parse(yaml, dir, id + ".yaml");
            daemons.put(id, NodeDaemon.start(config));
        }
    }

    @AfterAll
    void closeAll() {
        daemons.values().forEach(NodeDaemon::close);
    }

    private static String group(int i) {
        return NodeConfig.COUNTED_GROUP_PREFIX + i;
    }

    /** Each group's leader as every running member knows it, once they agree on one for every group. */
    private Map<String, String> awaitAllLedAndAgreed(List<String> members) {
        return await().atMost(CEILING)
                .until(() -> agreedLeaders(members), Optional::isPresent)
                .orElseThrow();
    }

    private Optional<Map<String, String>> agreedLeaders(List<String> members) {
        Map<String, String> leaders = new LinkedHashMap<>();
        for (int g = 0; g < GROUPS; g++) {
            String agreed = null;
            for (String id : members) {
                Election e = daemons.get(id).elections().get(g);
                Optional<String> leader = e.leader().map(v -> v.leader().value());
                if (leader.isEmpty() || (agreed != null && !agreed.equals(leader.get()))) {
                    return Optional.empty();
                }
                agreed = leader.get();
            }
            if (!daemons.get(agreed).elections().get(g).isLeader()) {
                return Optional.empty();
            }
            leaders.put(group(g), agreed);
        }
        return Optional.of(leaders);
    }

    private JsonNode get(String id, String path) throws Exception {
        HttpResponse<String> r = getRaw(id, path);
        assertThat(r.statusCode()).as(path + " → " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** The status line of a request sent as is (the JDK's client refuses a malformed escape before sending it). */
    private String rawStatusLine(String id, String target) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", httpPorts.get(id))) {
            socket.setSoTimeout(5000);
            socket.getOutputStream()
                    .write(("GET " + target + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            return new java.io.BufferedReader(
                            new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
        }
    }

    private HttpResponse<String> getRaw(String id, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts.get(id) + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Each group's preferred member ({@link LeaderSpread}). */
    private static Map<String, String> preferred() {
        Map<String, String> preferred = new LinkedHashMap<>();
        List<NodeId> members = IDS.stream().map(NodeId::of).toList();
        for (int g = 0; g < GROUPS; g++) {
            preferred.put(group(g), LeaderSpread.order(group(g), members).get(0).value());
        }
        return preferred;
    }

    /**
     * Each group's leader once every group is led by its preferred member and all members agree: with spread-leaders
     * (the default for many groups), once the hand-overs of the first seconds are done. Leaderships no longer move
     * then.
     */
    private Map<String, String> awaitSettled() {
        Map<String, String> preferred = preferred();
        return await().atMost(CEILING)
                .until(() -> agreedLeaders(IDS).filter(preferred::equals), Optional::isPresent)
                .orElseThrow();
    }

    @Test
    @Order(1)
    void everyGroupIsLedByItsPreferredMemberOnceTheyAgree() {
        assertThat(preferred().values())
                .as("the spread prefers every member somewhere")
                .containsAll(IDS);

        assertThat(awaitSettled()).isEqualTo(preferred());
    }

    @Test
    @Order(2)
    void theNodeAnswersForItselfAndForEachGroup() throws Exception {
        Map<String, String> leaders = awaitSettled();
        await().atMost(CEILING).untilAsserted(() -> {
            JsonNode status = get("n2", "/status");
            assertThat(status.path("groups").path("count").asInt()).isEqualTo(GROUPS);
            assertThat(status.path("groups").path("leaderless").asInt()).isZero();
            long led = leaders.values().stream().filter("n2"::equals).count();
            assertThat(status.path("groups").path("leading").asLong()).isEqualTo(led);
            assertThat(status.path("groups").path("following").asLong()).isEqualTo(GROUPS - led);
            for (String id : IDS) {
                long byId = leaders.values().stream().filter(id::equals).count();
                assertThat(status.path("leaders").path(id).asLong()).as(id).isEqualTo(byId);
            }
            assertThat(status.has("leader")).as("a summary names no one leader").isFalse();
        });

        JsonNode one = get("n3", "/status?group=group-5");
        assertThat(one.path("group").asText()).isEqualTo("group-5");
        assertThat(one.path("leader").asText()).isEqualTo(leaders.get("group-5"));

        JsonNode groups = get("n1", "/groups");
        assertThat(groups.path("count").asInt()).isEqualTo(GROUPS);
        List<String> names = new ArrayList<>();
        groups.path("groups").forEach(g -> {
            names.add(g.path("group").asText());
            assertThat(g.path("leader").asText())
                    .as(g.path("group").asText())
                    .isEqualTo(leaders.get(g.path("group").asText()));
        });
        assertThat(names).isSorted().hasSize(GROUPS);

        JsonNode ready = get("n1", "/readyz");
        assertThat(ready.path("ready").asBoolean()).isTrue();
        assertThat(ready.path("groups").path("ready").asInt()).isEqualTo(GROUPS);

        HttpResponse<String> unknown = getRaw("n1", "/status?group=nope");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("no group 'nope'", "/groups");
        assertThat(getRaw("n1", "/status?group=group-1&group=group-2").statusCode())
                .isEqualTo(400);
        assertThat(rawStatusLine("n1", "/history?group=%zz")).contains(" 400 ");
        // Endpoints of the node as a whole ignore the parameter: a probe with a stray one still passes.
        assertThat(getRaw("n1", "/healthz?group=nope").statusCode()).isEqualTo(200);
        JsonNode groupReady = get("n1", "/readyz?group=group-4");
        assertThat(groupReady.path("leader").asText()).isEqualTo(leaders.get("group-4"));

        // A section added to the node's status is in the summary and in every group's document.
        daemons.get("n1").statusSection("extra", () -> JSON.createObjectNode().put("x", 1));
        assertThat(get("n1", "/status").path("extra").path("x").asInt()).isEqualTo(1);
        assertThat(get("n1", "/status?group=group-9").path("extra").path("x").asInt())
                .isEqualTo(1);

        JsonNode cluster = get("n1", "/cluster?group=group-7");
        assertThat(cluster.path("group").asText()).isEqualTo("group-7");
        for (String id : IDS) {
            assertThat(cluster.path("members").path(id).path("leader").asText())
                    .as(id)
                    .isEqualTo(leaders.get("group-7"));
        }

        String metrics = getRaw("n1", "/metrics").body();
        long ledByN1 = leaders.values().stream().filter("n1"::equals).count();
        assertThat(metrics)
                .contains("bellwether_groups{cluster=\"groups\",node=\"n1\",state=\"leading\"} " + ledByN1 + ".0")
                .contains("bellwether_groups{cluster=\"groups\",node=\"n1\",state=\"leaderless\"} 0.0")
                .contains("bellwether_epoch{cluster=\"groups\",group=\"group-23\",node=\"n1\"}")
                .contains("bellwether_failover_seconds_count{cluster=\"groups\",group=\"*\",node=\"n1\"}")
                .doesNotContain("bellwether_failover_seconds_count{cluster=\"groups\",group=\"group-");
    }

    @Test
    @Order(3)
    void anEventStreamForOneGroupCarriesThatGroupsChangesOnly() throws Exception {
        Map<String, String> leaders = awaitSettled();
        // A follower's streams, one for group-1 and one for every group.
        String g1 = "group-1";
        String g2 = "group-2";
        String watcher = IDS.stream()
                .filter(id -> !id.equals(leaders.get(g1)) && !id.equals(leaders.get(g2)))
                .findFirst()
                .orElse(IDS.stream()
                        .filter(id -> !id.equals(leaders.get(g1)))
                        .findFirst()
                        .orElseThrow());
        List<JsonNode> filtered = stream(watcher, "/events?group=" + g1);
        List<JsonNode> all = stream(watcher, "/events");
        await().atMost(CEILING).until(() -> filtered.size() >= 1 && all.size() >= 1); // the snapshots

        daemons.get(leaders.get(g1)).elections().get(1).resign();
        daemons.get(leaders.get(g2)).elections().get(2).resign();

        await().atMost(CEILING)
                .until(() -> all.stream()
                                .anyMatch(e -> g1.equals(e.path("group").asText()))
                        && all.stream().anyMatch(e -> g2.equals(e.path("group").asText())));
        await().atMost(CEILING).until(() -> filtered.stream()
                .anyMatch(e -> g1.equals(e.path("group").asText())));
        assertThat(filtered.subList(1, filtered.size()))
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.path("group").asText()).isEqualTo(g1));
        assertThat(filtered.get(0).path("group").asText())
                .as("the snapshot is the group's")
                .isEqualTo(g1);
        assertThat(all.get(0).path("groups").path("count").asInt())
                .as("the unfiltered snapshot is the summary")
                .isEqualTo(GROUPS);
    }

    /** The events' data, parsed, as they arrive on {@code path} (read on a thread of the client's). */
    private List<JsonNode> stream(String id, String path) throws Exception {
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        HttpResponse<Stream<String>> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts.get(id) + path))
                        .build(),
                HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        Thread reader = new Thread(
                () -> response.body().filter(line -> line.startsWith("data: ")).forEach(line -> {
                    try {
                        events.add(JSON.readTree(line.substring("data: ".length())));
                    } catch (Exception e) {
                        throw new IllegalStateException("not JSON: " + line, e);
                    }
                }));
        reader.setDaemon(true);
        reader.start();
        return events;
    }

    @Test
    @Order(4)
    void aStoppedMemberHandsEveryGroupItLedOver() throws Exception {
        Map<String, String> leaders = awaitSettled();
        String leaving = leaders.values().stream().findFirst().orElseThrow();
        long led = leaders.values().stream().filter(leaving::equals).count();

        daemons.remove(leaving).close();

        List<String> rest = new ArrayList<>(IDS);
        rest.remove(leaving);
        Map<String, String> after = awaitAllLedAndAgreed(rest);
        assertThat(after.values()).doesNotContain(leaving).containsAnyElementsOf(rest);
        assertThat(led).isPositive();
        // Each group's term is kept in its own state file.
        for (int g = 0; g < GROUPS; g++) {
            assertThat(dir.resolve("data-" + leaving).resolve(group(g) + ".state"))
                    .exists();
        }
    }
}
