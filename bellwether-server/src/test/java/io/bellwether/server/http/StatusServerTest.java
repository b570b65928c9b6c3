package io.bellwether.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.server.node.ElectionMonitor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusServerTest {
    private static final Duration CEILING = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SEED = 20261122L;

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private InProcessCluster cluster;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void startCluster() {
        cluster = new InProcessCluster(3, SEED);
        cluster.start();
    }

    @AfterEach
    void stopCluster() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        cluster.close();
    }

    /** Waits until every running member's monitor knows the same leader; returns it. */
    private NodeId awaitAgreedLeader(List<NodeId> members, Optional<NodeId> not) {
        return await().atMost(CEILING)
                .until(
                        () -> {
                            List<ElectionMonitor.Snapshot> views = members.stream()
                                    .map(id -> cluster.monitors.get(id).snapshot())
                                    .toList();
                            ElectionMonitor.Snapshot first = views.get(0);
                            boolean agree = first.leader().isPresent()
                                    && !first.leader().equals(not)
                                    && views.stream()
                                            .allMatch(v ->
                                                    v.leader().equals(first.leader()) && v.epoch() == first.epoch());
                            boolean leaderKnowsIt = first.leader()
                                    .map(l -> cluster.monitors.get(l).snapshot().role() == Role.LEADER)
                                    .orElse(false);
                            return agree && leaderKnowsIt ? first.leader() : Optional.<NodeId>empty();
                        },
                        Optional::isPresent)
                .orElseThrow();
    }

    private List<NodeId> all() {
        return List.copyOf(cluster.elections.keySet());
    }

    private HttpResponse<String> get(NodeId node, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.url(node, path)))
                .timeout(Duration.ofSeconds(10))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode getJson(NodeId node, String path) throws Exception {
        HttpResponse<String> response = get(node, path);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        return JSON.readTree(response.body());
    }

    @Test
    void statusOfTheLeaderReportsRoleEpochMembersPeersAndValidity() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        long epoch = cluster.monitors.get(leader).snapshot().epoch();

        JsonNode status = getJson(leader, "status");

        assertThat(status.path("node").asText()).isEqualTo(leader.value());
        assertThat(status.path("cluster").asText()).isEqualTo("demo");
        assertThat(status.path("group").asText()).isEqualTo("default");
        assertThat(status.path("algorithm").asText()).isEqualTo("quorum");
        assertThat(status.path("role").asText()).isEqualTo("LEADER");
        assertThat(status.path("epoch").asLong()).isEqualTo(epoch).isPositive();
        assertThat(status.path("leader").asText()).isEqualTo(leader.value());
        assertThat(status.path("leaderSince").isTextual()).isTrue();
        assertThat(status.path("members").toString()).isEqualTo("[\"n1\",\"n2\",\"n3\"]");
        assertThat(status.path("peers").size()).isEqualTo(2);
        assertThat(status.path("peers").fieldNames()).toIterable().doesNotContain(leader.value());
        assertThat(status.path("peers").elements().next().has("address")).isTrue();
        assertThat(status.path("peers").elements().next().has("state")).isTrue();
        assertThat(status.has("validForMs")).isTrue();
        assertThat(status.path("uptimeMs").asLong()).isNotNegative();
    }

    @Test
    void statusOfAFollowerNamesTheLeaderAndHasNoValidity() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        NodeId follower =
                all().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();

        JsonNode status = getJson(follower, "status");

        assertThat(status.path("role").asText()).isEqualTo("FOLLOWER");
        assertThat(status.path("leader").asText()).isEqualTo(leader.value());
        assertThat(status.has("validForMs")).isFalse();
    }

    @Test
    void clusterGathersEveryMembersStatusWithExactlyOneLeader() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());

        JsonNode view = getJson(NodeId.of("n1"), "cluster");

        assertThat(view.path("node").asText()).isEqualTo("n1");
        JsonNode members = view.path("members");
        assertThat(members.fieldNames()).toIterable().containsExactly("n1", "n2", "n3");
        long leaders = 0;
        for (JsonNode m : members) {
            assertThat(m.path("leader").asText()).isEqualTo(leader.value());
            leaders += m.path("role").asText().equals("LEADER") ? 1 : 0;
        }
        assertThat(leaders).isEqualTo(1);
    }

    @Test
    void clusterMarksAMemberWhoseHttpDoesNotAnswer() throws Exception {
        awaitAgreedLeader(all(), Optional.empty());
        cluster.servers.get(NodeId.of("n3")).close();

        JsonNode view = getJson(NodeId.of("n1"), "cluster");

        assertThat(view.path("members").path("n3").path("error").asText()).isNotEmpty();
        assertThat(view.path("members").path("n2").has("role")).isTrue();
    }

    @Test
    void metricsAreServedAsPrometheusText() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        cluster.metrics.get(leader).messageSent("Heartbeat");
        cluster.metrics.get(leader).messageReceived("HeartbeatResponse");
        cluster.metrics.get(leader).frameRejected("bad-mac");

        HttpResponse<String> response = get(leader, "metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        assertThat(response.body())
                .contains("bellwether_role{")
                .containsPattern("bellwether_role\\{[^}]*role=\"LEADER\"[^}]*} 1")
                .contains("bellwether_epoch{")
                .contains("bellwether_elections_total{")
                .contains("bellwether_role_changes_total{")
                .contains("bellwether_failover_seconds_bucket{")
                .containsPattern("bellwether_messages_total\\{[^}]*direction=\"out\"[^}]*type=\"Heartbeat\"")
                .containsPattern("bellwether_messages_total\\{[^}]*direction=\"in\"[^}]*type=\"HeartbeatResponse\"")
                .containsPattern("bellwether_rejected_frames_total\\{[^}]*reason=\"bad-mac\"");
    }

    @Test
    void theLeadersStatusNamesItsReadyStandbyWhichTakesOverWhenTheLeaderResigns() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        String named = await().atMost(CEILING)
                .until(() -> getJson(leader, "status").path("successor").asText(""), s -> !s.isEmpty());
        NodeId successor = NodeId.of(named);
        assertThat(successor).isIn(all()).isNotEqualTo(leader);
        assertThat(getJson(successor, "status").has("successor"))
                .as("only a leader has a successor")
                .isFalse();

        // Read again right before the stop: the standby is replaced if it stops confirming heartbeats.
        NodeId atStop = cluster.elections.get(leader).successor().orElse(successor);
        cluster.elections.get(leader).close();

        List<NodeId> survivors = all().stream().filter(id -> !id.equals(leader)).toList();
        assertThat(awaitAgreedLeader(survivors, Optional.of(leader))).isEqualTo(atStop);
    }

    @Test
    void failoverDurationIsRecordedWhenTheLeaderResigns() {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        List<NodeId> survivors = all().stream().filter(id -> !id.equals(leader)).toList();

        cluster.elections.get(leader).close();

        awaitAgreedLeader(survivors, Optional.of(leader));
        await().atMost(CEILING).untilAsserted(() -> assertThat(survivors.stream()
                        .mapToLong(id -> cluster.metrics
                                .get(id)
                                .registry()
                                .get("bellwether.failover")
                                .timer()
                                .count())
                        .sum())
                .isPositive());
    }

    @Test
    void eventsSendASnapshotThenTheNewLeaderAfterAFailoverToEveryClient() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        NodeId watcher =
                all().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        List<BlockingQueue<String>> clients = List.of(subscribe(watcher), subscribe(watcher), subscribe(watcher));
        for (BlockingQueue<String> lines : clients) {
            JsonNode snapshot = nextEvent(lines, "snapshot");
            assertThat(snapshot.path("leader").asText()).isEqualTo(leader.value());
        }

        cluster.elections.get(leader).close();

        for (BlockingQueue<String> lines : clients) {
            JsonNode change = nextEvent(
                    lines,
                    "leader",
                    e -> e.path("leader").isTextual()
                            && !e.path("leader").asText().equals(leader.value()));
            assertThat(change.path("epoch").asLong()).isPositive();
            assertThat(change.path("kind").asText()).isEqualTo("leader");
        }
    }

    @Test
    void historyShowsAFailoverAfterTheFactWithEachNodesStamps() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        long epoch = cluster.monitors.get(leader).snapshot().epoch();
        List<NodeId> survivors = all().stream().filter(id -> !id.equals(leader)).toList();

        cluster.elections.get(leader).close();
        NodeId successor = awaitAgreedLeader(survivors, Optional.of(leader));

        // The old leader's own account: it led at the old epoch, then left LEADER.
        List<JsonNode> old = changes(getJson(leader, "history"), leader);
        int led = indexOf(
                old,
                e -> e.path("role").asText().equals("LEADER") && e.path("epoch").asLong() == epoch);
        assertThat(led).isNotNegative();
        assertThat(old.subList(led, old.size()))
                .anyMatch(e -> e.path("kind").asText().equals("role")
                        && !e.path("role").asText().equals("LEADER"));
        // The successor's: it became LEADER at a higher epoch, and says so last.
        List<JsonNode> own = changes(getJson(successor, "history"), successor);
        JsonNode last = own.get(own.size() - 1);
        assertThat(last.path("role").asText()).isEqualTo("LEADER");
        assertThat(last.path("leader").asText()).isEqualTo(successor.value());
        assertThat(last.path("epoch").asLong()).isGreaterThan(epoch);
        for (NodeId survivor : survivors) {
            List<JsonNode> seen = changes(getJson(survivor, "history"), survivor);
            int knewOld = indexOf(seen, e -> e.path("leader").asText().equals(leader.value()));
            int knowsNew = indexOf(seen, e -> e.path("leader").asText().equals(successor.value()));
            assertThat(knewOld).isNotNegative().isLessThan(knowsNew);
            for (int i = 1; i < seen.size(); i++) {
                assertThat(java.time.Instant.parse(seen.get(i).path("at").asText()))
                        .isAfterOrEqualTo(java.time.Instant.parse(
                                seen.get(i - 1).path("at").asText()));
            }
        }
    }

    @Test
    void clusterHistoryShowsAReaderWhoComesAfterTheElectionEveryMembersAccountOfIt() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        long epoch = cluster.monitors.get(leader).snapshot().epoch();
        NodeId reader =
                all().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        java.time.Instant opened = java.time.Instant.now();

        JsonNode histories = getJson(reader, "cluster/history");

        assertThat(histories.path("node").asText()).isEqualTo(reader.value());
        assertThat(histories.path("members").fieldNames()).toIterable().containsExactly("n1", "n2", "n3");
        for (NodeId member : all()) {
            JsonNode history = histories.path("members").path(member.value());
            assertThat(history.path("limit").asInt()).isEqualTo(ElectionMonitor.HISTORY);
            assertThat(java.time.Instant.parse(history.path("now").asText())).isAfterOrEqualTo(opened);
            List<JsonNode> changes = changes(history, member);
            for (int i = 0; i < changes.size(); i++) {
                assertThat(changes.get(i).path("seq").asLong())
                        .as("%s's changes are numbered from 1 with no gap", member)
                        .isEqualTo(i + 1);
            }
            // Its account of the election, stamped before the reader came.
            JsonNode learned = changes.stream()
                    .filter(e -> e.path("leader").asText().equals(leader.value())
                            && e.path("epoch").asLong() == epoch)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(
                            member + " recorded no change to " + leader + " at epoch " + epoch + ": " + changes));
            assertThat(java.time.Instant.parse(learned.path("at").asText())).isBefore(opened);
            if (member.equals(leader)) {
                assertThat(changes)
                        .as("the leader's own account")
                        .anyMatch(e -> e.path("role").asText().equals("LEADER")
                                && e.path("epoch").asLong() == epoch);
            }
        }
    }

    @Test
    void historyReadAfterTheStreamOpensMeetsTheStreamWithNoGapAndNothingTwice() throws Exception {
        NodeId leader = awaitAgreedLeader(all(), Optional.empty());
        NodeId watcher =
                all().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        // As the dashboard does: the stream first, then the history, read once the stream's snapshot is there.
        BlockingQueue<String> lines = subscribe(watcher);
        nextEvent(lines, "snapshot");
        List<JsonNode> history = changes(getJson(watcher, "history"), watcher);
        long read = history.get(history.size() - 1).path("seq").asLong();

        cluster.elections.get(leader).close();

        // Every change the history did not have comes on the stream, numbered on from the history's last, in
        // order; a change in both (one made between the snapshot and the reading) is known by its number.
        long expected = read + 1;
        while (true) {
            JsonNode live = nextChange(lines);
            long seq = live.path("seq").asLong();
            if (seq <= read) {
                continue;
            }
            assertThat(seq).as("the stream's next change after %s", live).isEqualTo(expected);
            expected++;
            if (live.path("kind").asText().equals("leader")
                    && live.path("leader").isTextual()
                    && !live.path("leader").asText().equals(leader.value())) {
                break;
            }
        }
    }

    private static List<JsonNode> changes(JsonNode history, NodeId node) {
        assertThat(history.path("node").asText()).isEqualTo(node.value());
        List<JsonNode> changes = new ArrayList<>();
        history.path("changes").forEach(changes::add);
        assertThat(changes).isNotEmpty();
        return changes;
    }

    private static int indexOf(List<JsonNode> changes, java.util.function.Predicate<JsonNode> match) {
        for (int i = 0; i < changes.size(); i++) {
            if (match.test(changes.get(i))) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void eventsKeepIdleClientsAliveAndDropDisconnectedOnes() throws Exception {
        NodeId node = NodeId.of("n1");
        BlockingQueue<String> stays = subscribe(node);
        subscribe(node);
        nextEvent(stays, "snapshot");
        EventStream events = eventsOf(node);
        await().atMost(CEILING).until(() -> events.clients() == 2);

        sockets.get(1).close();

        await().atMost(CEILING).until(() -> events.clients() == 1);
        assertThat(poll(stays, line -> line.startsWith(": keep-alive"))).isNotNull();
    }

    @Test
    void dashboardIsOneSelfContainedPageWithStableHooks() throws Exception {
        HttpResponse<String> response = get(NodeId.of("n1"), "");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(response.body())
                .contains("id=\"dashboard\"", "data-leader", "data-agree", "id=\"members\"", "id=\"timeline\"")
                .contains("EventSource(\"events\"", "fetch(\"cluster\"")
                // A node of several groups: its summary and list of groups, and each group's own view.
                .contains("id=\"groups\"", "data-groups", "data-leaderless", "fetch(\"groups\"", "?group=")
                .doesNotContain("<script src", "<link", "@import", "url(http");
    }

    @Test
    void unknownPathsAndOtherMethodsAreRefused() throws Exception {
        assertThat(get(NodeId.of("n1"), "nope").statusCode()).isEqualTo(404);
        HttpRequest post = HttpRequest.newBuilder(URI.create(cluster.url(NodeId.of("n1"), "status")))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        assertThat(client.send(post, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(405);
    }

    // ------------------------------------------------------------ SSE over a raw socket

    private EventStream eventsOf(NodeId node) throws Exception {
        var field = StatusServer.class.getDeclaredField("events");
        field.setAccessible(true);
        return (EventStream) field.get(cluster.servers.get(node));
    }

    /** Opens {@code /events} on a plain socket (so the test can cut it) and queues every line read. */
    private BlockingQueue<String> subscribe(NodeId node) throws IOException {
        var address = cluster.servers.get(node).address();
        Socket socket = new Socket(address.getAddress(), address.getPort());
        sockets.add(socket);
        OutputStream out = socket.getOutputStream();
        out.write(("GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            lines.add(line);
                        }
                    } catch (IOException e) {
                        // the test closed the socket
                    }
                },
                "sse-test-reader");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    private static String poll(BlockingQueue<String> lines, java.util.function.Predicate<String> wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + CEILING.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line != null && wanted.test(line)) {
                return line;
            }
        }
        return null;
    }

    private static JsonNode nextEvent(BlockingQueue<String> lines, String name) throws Exception {
        return nextEvent(lines, name, e -> true);
    }

    /** Reads until the next {@code role}, {@code leader} or {@code revoked} event; fails after the ceiling. */
    private static JsonNode nextChange(BlockingQueue<String> lines) throws Exception {
        long deadline = System.nanoTime() + CEILING.toNanos();
        boolean inChange = false;
        while (System.nanoTime() < deadline) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                break;
            }
            if (line.startsWith("event: ")) {
                inChange = List.of("role", "leader", "revoked").contains(line.substring("event: ".length()));
            } else if (inChange && line.startsWith("data: ")) {
                return JSON.readTree(line.substring("data: ".length()));
            }
        }
        throw new AssertionError("no change arrived within " + CEILING);
    }

    /** Reads until an event called {@code name} whose data matches {@code wanted}; fails after the ceiling. */
    private static JsonNode nextEvent(
            BlockingQueue<String> lines, String name, java.util.function.Predicate<JsonNode> wanted) throws Exception {
        long deadline = System.nanoTime() + CEILING.toNanos();
        boolean inEvent = false;
        while (System.nanoTime() < deadline) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                break;
            }
            if (line.equals("event: " + name)) {
                inEvent = true;
            } else if (inEvent && line.startsWith("data: ")) {
                JsonNode data = JSON.readTree(line.substring("data: ".length()));
                if (wanted.test(data)) {
                    return data;
                }
                inEvent = false;
            } else if (line.startsWith("event: ")) {
                inEvent = false;
            }
        }
        throw new AssertionError("no '" + name + "' event arrived within " + CEILING);
    }
}
