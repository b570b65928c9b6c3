package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.demo.EmbeddedH2;
import io.bellwether.testkit.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lease nodes in this JVM on H2: what {@code /status} says while the store answers, is down, or refuses the node,
 * and that a node whose store does not answer never leads.
 */
class NodeDaemonLeaseTest {
    private static final Duration CEILING = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger DATABASES = new AtomicInteger();

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
    }

    private static String freshH2() {
        return "jdbc:h2:mem:lease-node-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
    }

    private NodeDaemon start(String node, String store, String extraLease) throws Exception {
        String yaml = "cluster: test\n"
                + "node: " + node + "\n"
                + "algorithm: lease\n"
                + "http: 127.0.0.1:" + Ports.free() + "\n"
                + "lease:\n"
                + "  store: '" + store + "'\n"
                + "  duration: 1s\n"
                + extraLease;
        NodeConfig config = ConfigLoader.parse(yaml, dir, node + ".yaml");
        NodeDaemon daemon = NodeDaemon.start(config);
        closeAfter.add(daemon);
        return daemon;
    }

    private JsonNode status(NodeDaemon daemon) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(daemon.url() + "status"))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private JsonNode awaitStatus(NodeDaemon daemon, Predicate<JsonNode> condition) {
        return await().atMost(CEILING).pollInterval(Duration.ofMillis(20)).until(() -> status(daemon), condition::test);
    }

    /** Counts leaderships won; a node that never leads never calls it. */
    private static final class Elections implements ElectionListener {
        final AtomicInteger won = new AtomicInteger();

        @Override
        public void elected(Leadership leadership) {
            won.incrementAndGet();
        }
    }

    @Test
    void theHolderReportsItsTokenAsEpochAndTheStoreAsReachable() throws Exception {
        NodeDaemon n1 = start("n1", freshH2(), "  create-schema: true\n");

        JsonNode s = awaitStatus(n1, j -> j.path("role").asText().equals("LEADER"));

        assertThat(s.path("algorithm").asText()).isEqualTo("lease");
        assertThat(s.path("epoch").asLong()).isEqualTo(1);
        assertThat(s.path("leader").asText()).isEqualTo("n1");
        assertThat(s.path("members")).extracting(JsonNode::asText).containsExactly("n1");
        assertThat(s.path("peers").isEmpty()).isTrue();
        assertThat(s.path("validForMs").asLong()).isPositive();
        JsonNode store = s.path("store");
        assertThat(store.path("state").asText()).isEqualTo("reachable");
        assertThat(store.path("describe").asText()).startsWith("h2 ").contains("table bellwether_lease");
        assertThat(store.path("problem").isNull()).isTrue();
    }

    @Test
    void aFollowerKnowsTheHolderAndTakesOverAtAHigherEpochWhenItStops() throws Exception {
        String db = freshH2();
        NodeDaemon n1 = start("n1", db, "  create-schema: true\n");
        awaitStatus(n1, j -> j.path("role").asText().equals("LEADER"));
        NodeDaemon n2 = start("n2", db, "  create-schema: true\n");

        JsonNode following = awaitStatus(n2, j -> j.path("leader").asText().equals("n1"));
        assertThat(following.path("role").asText()).isEqualTo("FOLLOWER");
        assertThat(following.path("epoch").asLong()).isEqualTo(1);

        n1.close(); // releases the lease
        JsonNode leading = awaitStatus(n2, j -> j.path("role").asText().equals("LEADER"));
        assertThat(leading.path("epoch").asLong()).isEqualTo(2);
        assertThat(leading.path("leader").asText()).isEqualTo("n2");
    }

    @Test
    void aNodeWhoseStoreIsDownStartsReportsItUnreachableNeverLeadsAndLeadsOnceItComesUp() throws Exception {
        int port = Ports.free(); // nothing listens there yet
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:down-then-up;DB_CLOSE_DELAY=-1";
        NodeDaemon n1 = start("n1", url, "  create-schema: true\n");
        Elections elections = new Elections();
        n1.election().addListener(elections);

        JsonNode down =
                awaitStatus(n1, j -> j.path("store").path("state").asText().equals("unreachable"));
        assertThat(down.path("store").path("problem").asText()).isIn("UNREACHABLE", "TIMEOUT");
        assertThat(down.path("store").path("lastError").asText()).startsWith("lease store h2 ");
        assertThat(down.path("role").asText()).isEqualTo("FOLLOWER");
        assertThat(down.path("leader").isNull()).isTrue();
        // Later failed polls have not made it claim anything either.
        String firstError = down.path("store").path("lastErrorAt").asText();
        awaitStatus(n1, j -> !j.path("store").path("lastErrorAt").asText().equals(firstError));
        assertThat(elections.won).hasValue(0);
        assertThat(n1.election().leadership()).isEmpty();

        try (EmbeddedH2 server = EmbeddedH2.start("down-then-up", port)) {
            JsonNode up = awaitStatus(n1, j -> j.path("role").asText().equals("LEADER"));
            assertThat(up.path("store").path("state").asText()).isEqualTo("reachable");
            assertThat(up.path("store").path("lastError").asText()).startsWith("lease store h2 ");
            assertThat(elections.won).hasValue(1);
            n1.close();
        }
    }

    @Test
    void aMissingTableWithoutSchemaCreationIsASchemaProblemThatSaysWhatToDo() throws Exception {
        NodeDaemon n1 = start("n1", freshH2(), "");

        // The first attempts may also time out while the pool's first connection is made.
        JsonNode s =
                awaitStatus(n1, j -> j.path("store").path("problem").asText().equals("SCHEMA"));

        assertThat(s.path("store").path("state").asText()).isEqualTo("unreachable");
        assertThat(s.path("store").path("lastError").asText())
                .contains("table bellwether_lease does not exist")
                .contains("create-schema: true");
        assertThat(s.path("role").asText()).isNotEqualTo("LEADER");
        assertThat(s.path("leader").isNull()).isTrue();
        assertThat(n1.storeHealth())
                .hasValueSatisfying(h -> assertThat(h.state()).isEqualTo(ObservedLeaseStore.State.UNREACHABLE));
    }

    @Test
    void theStoresRoundTripsAndItsErrorsByProblemAreInTheMetrics() throws Exception {
        NodeDaemon n1 = start("n1", freshH2(), "");

        awaitStatus(n1, j -> j.path("store").path("problem").asText().equals("SCHEMA"));

        io.micrometer.core.instrument.MeterRegistry registry = n1.meterRegistry();
        double schemaErrors = registry.get("bellwether.store.errors").tag("problem", "SCHEMA").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count)
                .sum();
        long roundTrips = registry.get("bellwether.store.round.trip").timers().stream()
                .mapToLong(io.micrometer.core.instrument.Timer::count)
                .sum();
        assertThat(schemaErrors).isPositive();
        assertThat(roundTrips).isGreaterThanOrEqualTo((long) schemaErrors);
        assertThat(n1.meterRegistry().get("bellwether.store.round.trip").timers())
                .extracting(t -> t.getId().getTag("operation"))
                .contains("acquire-or-renew", "release", "read");
    }

    @Test
    void wrongCredentialsAreACredentialsProblemNamingTheStore() throws Exception {
        String name = "lease-credentials-" + DATABASES.incrementAndGet();
        // The first connection creates the in-memory database with its user and password.
        Connection owner = DriverManager.getConnection("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "right");
        closeAfter.add(owner);

        NodeDaemon n1 = start(
                "n1", "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;USER=sa;PASSWORD=wrong", "  create-schema: true\n");

        JsonNode s =
                awaitStatus(n1, j -> j.path("store").path("problem").asText().equals("CREDENTIALS"));
        assertThat(s.path("store").path("state").asText()).isEqualTo("unreachable");
        assertThat(s.path("store").path("lastError").asText())
                .startsWith("lease store h2 mem:" + name)
                .contains("check the user and password")
                .doesNotContain("PASSWORD=wrong");
        assertThat(s.path("role").asText()).isNotEqualTo("LEADER");
        assertThat(s.path("leader").isNull()).isTrue();
    }
}
