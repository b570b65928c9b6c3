package io.bellwether.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.TaskOptions;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three real quorum members over an in-process network, each bound to its own registry. */
class BellwetherMetricsTest {
    private static final Duration CEILING = Duration.ofSeconds(10);

    private final InProcessNetwork network = new InProcessNetwork();
    private final Map<NodeId, Election> elections = new LinkedHashMap<>();
    private final Map<NodeId, MeterRegistry> registries = new LinkedHashMap<>();
    private final List<BellwetherMetrics> metrics = new ArrayList<>();

    @AfterEach
    void closeAll() {
        metrics.forEach(BellwetherMetrics::close);
        elections.values().forEach(Election::close);
        network.close();
    }

    private void startCluster(long seed) {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            members.put(NodeId.of("node-" + i), new NodeAddress("localhost", 7100 + i));
        }
        for (NodeId id : members.keySet()) {
            Election election = Election.builder()
                    .group("metrics-it")
                    .self(id)
                    .members(members)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(network.transport(id))
                    .seed(seed * 31 + id.hashCode())
                    .build();
            MeterRegistry registry = new SimpleMeterRegistry();
            BellwetherMetrics binder = new BellwetherMetrics(election, Tags.of("cluster", "test"));
            binder.bindTo(registry);
            metrics.add(binder);
            elections.put(id, election);
            registries.put(id, registry);
        }
        elections.values().forEach(Election::start);
    }

    /** The one leader all of {@code among} know, at an epoch above {@code minEpoch}. */
    private Election awaitAgreedLeader(List<Election> among, long minEpoch) {
        return await().atMost(CEILING)
                .until(() -> agreedLeader(among, minEpoch), Optional::isPresent)
                .get();
    }

    private static Optional<Election> agreedLeader(List<Election> among, long minEpoch) {
        List<Election> leaders = among.stream().filter(Election::isLeader).toList();
        if (leaders.size() != 1) {
            return Optional.empty();
        }
        Election leader = leaders.get(0);
        long epoch = leader.epoch();
        boolean known = epoch > minEpoch
                && among.stream().allMatch(e -> e.leader()
                        .filter(v -> v.leader().equals(leader.self()) && v.epoch() == epoch)
                        .isPresent());
        return known ? Optional.of(leader) : Optional.empty();
    }

    private MeterRegistry registry(Election e) {
        return registries.get(e.self());
    }

    private static double role(MeterRegistry registry, Role role) {
        return registry.get(ElectionMeters.ROLE)
                .tag("role", role.name())
                .gauge()
                .value();
    }

    private static double epoch(MeterRegistry registry) {
        return registry.get(ElectionMeters.EPOCH).gauge().value();
    }

    private static double elections(MeterRegistry registry) {
        return registry.get(ElectionMeters.ELECTIONS).counter().count();
    }

    @Test
    void afterAnElectionTheRoleAndEpochGaugesAndTheElectionsCounterReadTheElection() {
        startCluster(1);
        List<Election> all = new ArrayList<>(elections.values());
        Election leader = awaitAgreedLeader(all, 0);
        long epoch = leader.epoch();

        for (Election e : all) {
            MeterRegistry registry = registry(e);
            Role expected = e == leader ? Role.LEADER : Role.FOLLOWER;
            // The listener may still be catching up with the events the test saw through the election itself.
            await().atMost(CEILING).untilAsserted(() -> {
                assertThat(role(registry, expected))
                        .as("%s role %s", e.self(), expected)
                        .isEqualTo(1.0);
                assertThat(epoch(registry)).as("%s epoch", e.self()).isEqualTo(epoch);
                assertThat(elections(registry)).as("%s elections", e.self()).isEqualTo(1.0);
            });
            for (Role other : Role.values()) {
                if (other != expected) {
                    assertThat(role(registry, other))
                            .as("%s role %s", e.self(), other)
                            .isZero();
                }
            }
            Meter.Id id = registry.get(ElectionMeters.ELECTIONS).counter().getId();
            assertThat(id.getTag("group")).isEqualTo("metrics-it");
            assertThat(id.getTag("node")).isEqualTo(e.self().value());
            assertThat(id.getTag("cluster")).isEqualTo("test");
            assertThat(registry.get(ElectionMeters.ROLE_CHANGES).counter().count())
                    .isPositive();
        }
    }

    @Test
    void aFailoverRecordsTheFailoverTimerOnTheMembersThatStay() {
        startCluster(2);
        List<Election> all = new ArrayList<>(elections.values());
        Election first = awaitAgreedLeader(all, 0);
        long firstEpoch = first.epoch();
        for (Election e : all) {
            assertThat(registry(e).get(ElectionMeters.FAILOVER).timer().count()).isZero();
        }

        first.close();
        List<Election> rest = new ArrayList<>(all);
        rest.remove(first);
        Election second = awaitAgreedLeader(rest, firstEpoch);

        for (Election e : rest) {
            MeterRegistry registry = registry(e);
            await().atMost(CEILING).untilAsserted(() -> {
                Timer failover = registry.get(ElectionMeters.FAILOVER).timer();
                assertThat(failover.count()).as("%s failovers", e.self()).isEqualTo(1);
                assertThat(elections(registry)).as("%s elections", e.self()).isEqualTo(2.0);
                assertThat(epoch(registry)).isEqualTo(second.epoch());
            });
        }
    }

    @Test
    void aLeaderTaskEventIncrementsItsCounter() throws Exception {
        startCluster(3);
        Election leader = awaitAgreedLeader(new ArrayList<>(elections.values()), 0);
        CountDownLatch ran = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        leader.runWhileLeader(
                l -> {
                    ran.countDown();
                    release.await();
                },
                TaskOptions.builder().name("indexer").build());
        assertThat(ran.await(CEILING.toSeconds(), TimeUnit.SECONDS)).isTrue();

        MeterRegistry registry = registry(leader);
        await().atMost(CEILING).untilAsserted(() -> assertThat(registry.find(ElectionMeters.TASK_EVENTS)
                        .tags("task", "indexer", "kind", "STARTED")
                        .counter())
                .isNotNull()
                .extracting(Counter::count)
                .isEqualTo(1.0));
        release.countDown();
    }
}
