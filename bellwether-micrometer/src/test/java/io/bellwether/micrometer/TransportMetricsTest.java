package io.bellwether.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.testkit.Ports;
import io.bellwether.transport.tcp.TcpTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three embedded quorum members over real TCP on loopback, each transport observed by its own TransportMetrics. */
class TransportMetricsTest {
    private static final Duration CEILING = Duration.ofSeconds(20);
    private static final byte[] SECRET = "a-test-secret-of-32-bytes-length".getBytes(StandardCharsets.US_ASCII);

    private final Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
    private final Map<NodeId, MeterRegistry> registries = new LinkedHashMap<>();
    private final List<TcpTransport> transports = new ArrayList<>();
    private final List<Election> elections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        transports.forEach(TcpTransport::close);
    }

    @Test
    void anEmbeddedTransportCountsMessagesByTypeAndRefusalsByReasonUnderTheDaemonsNames() throws Exception {
        for (int i = 1; i <= 3; i++) {
            members.put(NodeId.of("n" + i), new NodeAddress("127.0.0.1", Ports.free()));
        }
        for (NodeId id : members.keySet()) {
            TransportMetrics traffic = new TransportMetrics(Tags.of("cluster", "test"));
            traffic.messageTypes(QuorumCodec.INSTANCE.messageTypes());
            MeterRegistry registry = new SimpleMeterRegistry();
            traffic.bindTo(registry);
            registries.put(id, registry);
            TcpTransport transport = TcpTransport.builder()
                    .cluster("metrics")
                    .self(id)
                    .members(members)
                    .secret(SECRET)
                    .observer(traffic)
                    .build();
            transports.add(transport);
            transport.start();
            elections.add(Election.builder()
                    .group("transport-metrics")
                    .self(id)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(transport)
                    .build());
        }
        // Every type has its series, at zero, before any traffic.
        MeterRegistry first = registries.get(NodeId.of("n1"));
        for (String type : QuorumCodec.INSTANCE.messageTypes()) {
            assertThat(messages(first, "out", type)).as(type).isZero();
        }
        assertThat(rejected(first, "none")).isZero();

        elections.forEach(Election::start);
        Election leader = await().atMost(CEILING)
                .until(() -> elections.stream().filter(Election::isLeader).findFirst(), java.util.Optional::isPresent)
                .orElseThrow();
        MeterRegistry leaders = registries.get(leader.self());
        NodeId follower = members.keySet().stream()
                .filter(id -> !id.equals(leader.self()))
                .findFirst()
                .orElseThrow();
        // The leader's heartbeats go out and arrive, counted by type on both ends.
        await().atMost(CEILING).until(() -> messages(leaders, "out", "Heartbeat") >= 2);
        await().atMost(CEILING).until(() -> messages(registries.get(follower), "in", "Heartbeat") >= 2);
        assertThat(leaders.get(TransportMetrics.MESSAGES).tag("cluster", "test").counters())
                .isNotEmpty();

        // A stranger's garbage is refused and counted by reason.
        NodeAddress target = members.get(follower);
        try (Socket socket = new Socket(target.host(), target.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(new byte[] {0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8});
            out.flush();
            MeterRegistry followers = registries.get(follower);
            await().atMost(CEILING)
                    .until(() -> followers.find(TransportMetrics.REJECTED_FRAMES).counters().stream()
                                    .filter(c -> !"none".equals(c.getId().getTag("reason")))
                                    .mapToDouble(Counter::count)
                                    .sum()
                            >= 1);
        }
    }

    private static double messages(MeterRegistry registry, String direction, String type) {
        Counter counter = registry.find(TransportMetrics.MESSAGES)
                .tags("direction", direction, "type", type)
                .counter();
        return counter == null ? -1 : counter.count();
    }

    private static double rejected(MeterRegistry registry, String reason) {
        Counter counter = registry.find(TransportMetrics.REJECTED_FRAMES)
                .tag("reason", reason)
                .counter();
        return counter == null ? -1 : counter.count();
    }
}
