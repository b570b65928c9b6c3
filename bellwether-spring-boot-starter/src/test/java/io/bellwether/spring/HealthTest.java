package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.AbstractDataSource;

/** The health indicator's states, and /actuator/health over HTTP. */
class HealthTest {
    @TempDir
    Path stateDirs;

    @Configuration(proxyBeanMethods = false)
    static class RefusingDatabase {
        @Bean
        DataSource dataSource() {
            return new AbstractDataSource() {
                @Override
                public Connection getConnection() throws SQLException {
                    throw new SQLException("Connection refused", "08001");
                }

                @Override
                public Connection getConnection(String username, String password) throws SQLException {
                    return getConnection();
                }
            };
        }
    }

    @Test
    void downWhileTheLeaseStoreCannotBeReached() {
        try (ConfigurableApplicationContext context = TestApps.start(
                new TestApps.Recorder(), Map.of("bellwether.group", "health-down"), RefusingDatabase.class)) {
            BellwetherHealthIndicator indicator = context.getBean(BellwetherHealthIndicator.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> indicator.health().getStatus() == Status.DOWN);
            Health health = indicator.health();
            assertThat(health.getDetails())
                    .containsEntry("store", "unreachable")
                    .containsKey("problem");
            assertThat(context.getBean(Election.class).isLeader()).isFalse();
        }
    }

    @Test
    void outOfServiceWhileNoQuorumIsReachableAndOnceClosed() {
        Map<String, Object> properties = new LinkedHashMap<>(QuorumFailoverTest.peers(List.of("n1", "n2", "n3")));
        properties.put("bellwether.group", "health-alone");
        properties.put("bellwether.node", "n1");
        properties.put("bellwether.state-dir", stateDirs.toString());
        BellwetherHealthIndicator indicator;
        try (ConfigurableApplicationContext context = TestApps.start(new TestApps.Recorder(), properties)) {
            indicator = context.getBean(BellwetherHealthIndicator.class);
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(health.getDetails())
                    .containsEntry("state", "no quorum reachable")
                    .containsEntry("connected", 1L)
                    .containsEntry("members", 3)
                    .containsEntry("role", "FOLLOWER");
        }
        Health closed = indicator.health();
        assertThat(closed.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(closed.getDetails()).containsEntry("state", "closed");
    }

    @Test
    void actuatorHealthEndpointShowsTheElectionOverHttp() throws Exception {
        Map<String, Object> properties = Map.of(
                "spring.main.web-application-type", "servlet",
                "server.address", "127.0.0.1",
                "server.port", "0",
                "management.endpoint.health.show-details", "always",
                "bellwether.group", "health-http");
        try (ConfigurableApplicationContext context = TestApps.start(new TestApps.Recorder(), properties)) {
            Election election = context.getBean(Election.class);
            await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
            String port = context.getEnvironment().getProperty("local.server.port");
            HttpResponse<String> response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body())
                    .contains("\"bellwether\":{\"status\":\"UP\"")
                    .contains("\"role\":\"LEADER\"")
                    .contains("\"group\":\"health-http\"");
        }
    }
}
