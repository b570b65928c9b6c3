package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.testkit.Ports;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/** Three applications electing by quorum over TCP on loopback: the leader-only job runs on one, then moves. */
class QuorumFailoverTest {
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @TempDir
    Path stateDirs;

    @AfterEach
    void close() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    /** The peers properties of three members on free loopback ports. */
    static Map<String, Object> peers(List<String> nodes) {
        Map<String, Object> peers = new LinkedHashMap<>();
        for (String node : nodes) {
            peers.put("bellwether.peers." + node, "127.0.0.1:" + Ports.free());
        }
        peers.put("bellwether.secret", "a-test-secret-of-32-bytes-length");
        // A 1 s election timeout instead of 400 ms: three Spring contexts starting in one JVM on a busy 2-core machine
        // can hold a leader's heartbeats up long enough for its watchdog to revoke it.
        peers.put("bellwether.quorum.missed-heartbeats", "10");
        return peers;
    }

    @Test
    void leaderOnlyJobRunsOnOneInstanceAndMovesToAnotherWithAHigherEpochWhenTheLeaderStops() {
        TestApps.Recorder recorder = new TestApps.Recorder();
        List<String> nodes = List.of("n1", "n2", "n3");
        Map<String, Object> peers = peers(nodes);
        for (String node : nodes) {
            Map<String, Object> properties = new LinkedHashMap<>(peers);
            properties.put("bellwether.group", "spring-quorum-failover");
            properties.put("bellwether.node", node);
            properties.put("bellwether.state-dir", stateDirs.resolve(node).toString());
            contexts.add(TestApps.start(recorder, properties));
        }
        LeaseFailoverTest.FailoverAssertions.assertJobRunsOnOneThenMoves(contexts, recorder);
        // The transport's meters are bound to each application's registry: heartbeats counted by type.
        for (ConfigurableApplicationContext context : contexts) {
            if (!context.isActive()) {
                continue;
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("bellwether.messages").counters())
                    .as("bellwether.messages series")
                    .anySatisfy(c -> assertThat(c.getId().getTag("type")).isEqualTo("Heartbeat"));
            assertThat(registry.find("bellwether.messages").counters().stream()
                            .mapToDouble(Counter::count)
                            .sum())
                    .isPositive();
        }
    }
}
