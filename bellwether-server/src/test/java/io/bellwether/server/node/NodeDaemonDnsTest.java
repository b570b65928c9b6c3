package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.testkit.Ports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code peers-dns} node in this JVM, resolving the real name {@code localhost}: what {@code /status} and {@code
 * /cluster} say while the other members are not found. (Members finding each other: {@code NodeDnsProcessesTest}.)
 */
class NodeDaemonDnsTest {
    private static final Duration CEILING = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private NodeDaemon daemon;

    @AfterEach
    void close() {
        if (daemon != null) {
            daemon.close();
        }
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(daemon.url() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void peersNotFoundYetAreListedWithoutAnAddressAndTheOwnAddressIsRecognised() throws Exception {
        Files.writeString(dir.resolve("secret"), "a-cluster-secret-of-enough-bytes\n", StandardCharsets.UTF_8);
        int port = Ports.free();
        String yaml = "cluster: dns\n"
                + "node: n1\n"
                + "listen: 127.0.0.1:" + port + "\n"
                + "http: 127.0.0.1:" + Ports.free() + "\n"
                + "peers-dns: localhost:" + port + "\n"
                + "members: [n1, n2, n3]\n"
                + "peers-dns-interval: 1s\n"
                + "secret-file: secret\n"
                + "state-dir: data\n";
        NodeConfig config = ConfigLoader.parse(yaml, dir, "n1.yaml");
        daemon = NodeDaemon.start(config);
        String own = InetAddress.getByName("localhost").getHostAddress() + ":" + port;

        JsonNode status = await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> get("status"),
                        s -> s.path("discovery").path("resolvedAt").isTextual());

        assertThat(status.path("members")).extracting(JsonNode::asText).containsExactly("n1", "n2", "n3");
        assertThat(status.path("peers").fieldNames()).toIterable().containsExactly("n2", "n3");
        assertThat(status.path("peers").path("n2").path("address").isNull()).isTrue();
        assertThat(status.path("peers").path("n2").path("state").asText()).isEqualTo("DISCONNECTED");
        JsonNode discovery = status.path("discovery");
        assertThat(discovery.path("name").asText()).isEqualTo("localhost:" + port);
        assertThat(discovery.path("interval").asText()).isEqualTo("1s");
        assertThat(discovery.path("addresses").path(own).asText()).isEqualTo("n1");
        assertThat(discovery.path("lastError").isNull()).isTrue();
        assertThat(status.path("leader").isNull())
                .as("one member of three has no quorum")
                .isTrue();

        JsonNode cluster = get("cluster");
        assertThat(cluster.path("members").path("n1").path("node").asText()).isEqualTo("n1");
        assertThat(cluster.path("members").path("n2").path("error").asText()).startsWith("unresolved");
        assertThat(cluster.path("members").path("n3").path("http").isNull()).isTrue();
    }
}
