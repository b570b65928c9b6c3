package io.bellwether.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.NodeId;
import io.bellwether.Role;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /healthz} (the election loop answers) and {@code /readyz} (leads, or follows a connected leader). */
class HealthEndpointsTest {
    private static final Duration CEILING = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private InProcessCluster cluster;

    @BeforeEach
    void startCluster() {
        cluster = new InProcessCluster(3, 20261202L);
        cluster.start();
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    private HttpResponse<String> get(NodeId node, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.url(node, path)))
                .timeout(Duration.ofSeconds(10))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private NodeId awaitLeaderKnownByAll() {
        return await().atMost(CEILING)
                .until(
                        () -> {
                            List<Optional<NodeId>> views = cluster.monitors.values().stream()
                                    .map(m -> m.snapshot().leader())
                                    .toList();
                            Optional<NodeId> first = views.get(0);
                            boolean agreed = first.isPresent() && views.stream().allMatch(first::equals);
                            return agreed
                                            && cluster.monitors
                                                            .get(first.get())
                                                            .snapshot()
                                                            .role()
                                                    == Role.LEADER
                                    ? first
                                    : Optional.<NodeId>empty();
                        },
                        Optional::isPresent)
                .orElseThrow();
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        return JSON.readTree(response.body());
    }

    @Test
    void theLeaderAndAFollowerThatKnowsItAreReady() throws Exception {
        NodeId leader = awaitLeaderKnownByAll();
        NodeId follower = cluster.elections.keySet().stream()
                .filter(id -> !id.equals(leader))
                .findFirst()
                .orElseThrow();

        HttpResponse<String> leading = get(leader, "readyz");
        HttpResponse<String> following = get(follower, "readyz");

        assertThat(leading.statusCode()).isEqualTo(200);
        assertThat(json(leading).path("ready").asBoolean()).isTrue();
        assertThat(json(leading).path("reason").asText()).isEqualTo("leader");
        assertThat(following.statusCode()).isEqualTo(200);
        assertThat(json(following).path("reason").asText()).isEqualTo("following " + leader);
        assertThat(json(following).path("leader").asText()).isEqualTo(leader.value());
    }

    @Test
    void anIsolatedNodeIsNotReadyButStillLive() throws Exception {
        NodeId leader = awaitLeaderKnownByAll();
        NodeId isolated = cluster.elections.keySet().stream()
                .filter(id -> !id.equals(leader))
                .findFirst()
                .orElseThrow();

        cluster.isolate(isolated);

        HttpResponse<String> ready =
                await().atMost(CEILING).until(() -> get(isolated, "readyz"), r -> r.statusCode() == 503);
        assertThat(json(ready).path("ready").asBoolean()).isFalse();
        assertThat(json(ready).path("reason").asText()).isNotBlank();
        HttpResponse<String> live = get(isolated, "healthz");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(json(live).path("alive").asBoolean()).isTrue();
        // Once it has lost the leader for good, it says so.
        await().atMost(CEILING).untilAsserted(() -> assertThat(
                        json(get(isolated, "readyz")).path("reason").asText())
                .startsWith("no leader known"));
        assertThat(get(leader, "readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void aNodeWhoseElectionLoopHasStoppedIsNotLive() throws Exception {
        NodeId node = NodeId.of("n2");
        HttpResponse<String> live = get(node, "healthz");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(json(live).path("reason").asText()).startsWith("election loop answered in");

        cluster.elections.get(node).close();

        HttpResponse<String> dead = get(node, "healthz");
        assertThat(dead.statusCode()).isEqualTo(503);
        assertThat(json(dead).path("alive").asBoolean()).isFalse();
        assertThat(json(dead).path("reason").asText()).contains("election loop");
        assertThat(get(node, "readyz").statusCode()).isEqualTo(503);
    }
}
