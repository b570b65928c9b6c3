package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.TaskEvent;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.micrometer.BellwetherMetrics;
import io.bellwether.micrometer.ElectionMeters;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class NodeMetricsTest {
    @Test
    void everyMessageTypeHasItsSeriesBeforeItsFirstMessage() {
        NodeMetrics metrics = new NodeMetrics("c", NodeId.of("n1"), "g");

        metrics.messageTypes(QuorumCodec.INSTANCE.messageTypes());

        String scrape = metrics.scrape();
        for (String type : QuorumCodec.INSTANCE.messageTypes()) {
            for (String direction : new String[] {"in", "out"}) {
                assertThat(scrape)
                        .as("%s %s", direction, type)
                        .containsPattern("bellwether_messages_total\\{[^}]*direction=\"" + direction + "\"[^}]*type=\""
                                + type + "\"[^}]*} 0.0");
            }
        }
    }

    @Test
    void aPreRegisteredSeriesCountsTheMessagesThatFollow() {
        NodeMetrics metrics = new NodeMetrics("c", NodeId.of("n1"), "g");
        metrics.messageTypes(QuorumCodec.INSTANCE.messageTypes());

        metrics.messageSent("LeadershipCession");
        metrics.messageSent("LeadershipCession");
        metrics.messageReceived("ElectionResponse");

        assertThat(metrics.registry()
                        .get("bellwether.messages")
                        .tags("direction", "out", "type", "LeadershipCession")
                        .counter()
                        .count())
                .isEqualTo(2.0);
        assertThat(metrics.registry()
                        .get("bellwether.messages")
                        .tags("direction", "in", "type", "ElectionResponse")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void theElectionMetersHaveTheNamesAndTagsOfAnEmbeddedElectionsBinder() {
        NodeMetrics daemon = new NodeMetrics("c", NodeId.of("n1"), "g");
        MeterRegistry embedded = new SimpleMeterRegistry();
        try (InProcessNetwork network = new InProcessNetwork();
                Election election = Election.builder()
                        .group("g")
                        .self(NodeId.of("n1"))
                        .members(Map.of(
                                NodeId.of("n1"), new NodeAddress("localhost", 7101),
                                NodeId.of("n2"), new NodeAddress("localhost", 7102),
                                NodeId.of("n3"), new NodeAddress("localhost", 7103)))
                        .algorithm(QuorumConfig.defaults())
                        .stateStore(new InMemoryStateStore())
                        .transport(network.transport(NodeId.of("n1")))
                        .build();
                BellwetherMetrics binder = new BellwetherMetrics(election, Tags.of("cluster", "c"))) {
            binder.bindTo(embedded);
        }

        Set<String> election = Set.of(
                ElectionMeters.ROLE,
                ElectionMeters.EPOCH,
                ElectionMeters.ELECTIONS,
                ElectionMeters.ROLE_CHANGES,
                ElectionMeters.FAILOVER);
        assertThat(ids(embedded, election)).isEqualTo(ids(daemon.registry(), election));
        assertThat(ids(embedded, election)).hasSize(Role.values().length + 4);
    }

    /** Each meter named in {@code names}, as its name, type and sorted tags. */
    private static Set<String> ids(MeterRegistry registry, Set<String> names) {
        Set<String> ids = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            Meter.Id id = meter.getId();
            if (names.contains(id.getName())) {
                ids.add(id.getName() + " " + id.getType() + " " + new TreeSet<>(id.getTags()));
            }
        }
        return ids;
    }

    @Test
    void aLeaderTaskEventIsCountedByTaskAndKind() {
        NodeMetrics metrics = new NodeMetrics("c", NodeId.of("n1"), "g");

        metrics.group("g")
                .taskEvent(new TaskEvent(
                        "indexer", TaskEvent.Kind.STARTED, 3, 1, Optional.empty(), Duration.ZERO, Optional.empty()));

        assertThat(metrics.scrape())
                .containsPattern("bellwether_task_events_total\\{[^}]*kind=\"STARTED\"[^}]*task=\"indexer\"[^}]*} 1.0");
    }
}
