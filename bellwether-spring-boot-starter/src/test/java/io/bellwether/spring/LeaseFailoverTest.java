package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import io.bellwether.testkit.Services;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** Three applications in lease mode on the real PostgreSQL: the leader-only job runs on one, then moves. */
class LeaseFailoverTest {
    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String TABLE = "bw_spring_lease_failover";

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @BeforeEach
    void dropTable() throws Exception {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
        try (Connection c = DriverManager.getConnection(URL, "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }

    @AfterEach
    void close() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void leaderOnlyJobRunsOnOneInstanceAndMovesToAnotherWithAHigherEpochWhenTheLeaderStops() {
        TestApps.Recorder recorder = new TestApps.Recorder();
        for (String node : List.of("n1", "n2", "n3")) {
            contexts.add(TestApps.start(
                    recorder,
                    Map.of(
                            "spring.datasource.url", URL,
                            "spring.datasource.username", "postgres",
                            "spring.datasource.hikari.maximum-pool-size", "4",
                            "bellwether.group", "spring-lease-failover",
                            "bellwether.node", node,
                            "bellwether.lease.table", TABLE,
                            "bellwether.lease.duration", "2s")));
        }
        FailoverAssertions.assertJobRunsOnOneThenMoves(contexts, recorder);
    }

    /** What the lease and quorum failover tests assert alike. */
    static final class FailoverAssertions {
        private FailoverAssertions() {}

        static void assertJobRunsOnOneThenMoves(
                List<ConfigurableApplicationContext> contexts, TestApps.Recorder recorder) {
            // Counted from when every instance has started: the first may lead alone before the others exist.
            int started = recorder.runs.size();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> recorder.since(started).size() >= 20);
            Set<TestApps.Run> first = Set.copyOf(recorder.since(started));
            assertThat(first.stream().map(TestApps.Run::node).collect(Collectors.toSet()))
                    .as("members that ran the job")
                    .hasSize(1);
            TestApps.Run leaderRun = first.iterator().next();
            ConfigurableApplicationContext leader = contexts.stream()
                    .filter(c -> c.getBean(Election.class).self().value().equals(leaderRun.node()))
                    .findFirst()
                    .orElseThrow();
            assertThat(leader.getBean(Election.class).isLeader()).isTrue();

            leader.close();
            int afterClose = recorder.runs.size();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> recorder.since(afterClose).size() >= 20);
            List<TestApps.Run> second = recorder.since(afterClose);
            assertThat(second.stream().map(TestApps.Run::node).collect(Collectors.toSet()))
                    .as("members that ran the job after the leader stopped")
                    .hasSize(1)
                    .doesNotContain(leaderRun.node());
            assertThat(second).allSatisfy(run -> assertThat(run.epoch()).isGreaterThan(leaderRun.epoch()));
        }
    }
}
