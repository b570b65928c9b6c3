package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lease node processes on loopback sharing an H2 server in this JVM, with real signals. The leader is whoever
 * holds the lease; its token is the epoch. Every test also watches every node's {@code /status} and asserts that
 * no two nodes ever reported LEADER at the same epoch.
 */
@Tag("processes")
@Timeout(900)
class MultiProcessLeaseTest {
    /** Generous: cold JVMs on a CI machine that can be ten times slower than a workstation. */
    private static final Duration CEILING = Duration.ofSeconds(180);

    /**
     * How long one node's {@code /status} may take to answer. A live node answers in milliseconds, but on a CI
     * machine ten times slower than a workstation, with a browser or other nodes' JVMs starting, a short timeout
     * drops a live node from the reading and the cluster looks as if it never agreed.
     */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);

    private static final Duration POLL = Duration.ofMillis(100);
    /** Short leases keep takeovers after a crash quick; the other timings default in proportion. */
    private static final Duration LEASE = Duration.ofSeconds(1);

    private EmbeddedH2 h2;
    private LocalCluster cluster;
    private final Map<Long, Set<String>> leadersByEpoch = new ConcurrentHashMap<>();

    @BeforeEach
    void startDatabase() throws Exception {
        h2 = EmbeddedH2.start("lease-processes");
        cluster = LocalCluster.start(3, "lease", h2.leaseSection(LEASE));
    }

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
        if (h2 != null) {
            h2.close();
        }
        assertThat(leadersByEpoch)
                .as("nodes that reported LEADER, by epoch")
                .allSatisfy((epoch, leaders) -> assertThat(leaders).hasSizeLessThanOrEqualTo(1));
    }

    private Map<String, NodeStatus> observe() {
        Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
        statuses.values().stream().filter(s -> "LEADER".equals(s.role())).forEach(s -> leadersByEpoch
                .computeIfAbsent(s.epoch(), e -> new TreeSet<>())
                .add(s.node()));
        return statuses;
    }

    /** Waits until every live node names the same holder at the same epoch, with all {@code expected} answering. */
    /** Every node's status at the moment the last {@link #awaitAgreedLeader} saw them agree. */
    private Map<String, NodeStatus> agreedStatuses;

    private NodeStatus awaitAgreedLeader(int expected, long aboveEpoch) {
        NodeStatus[] agreed = new NodeStatus[1];
        await().atMost(CEILING).pollInterval(POLL).until(() -> {
            Map<String, NodeStatus> statuses = observe();
            Optional<NodeStatus> leader = LocalCluster.agreedLeader(statuses);
            if (statuses.size() == expected
                    && leader.isPresent()
                    && leader.get().epoch() > aboveEpoch) {
                agreed[0] = leader.get();
                agreedStatuses = statuses;
                return true;
            }
            return false;
        });
        return agreed[0];
    }

    @Test
    void threeLeaseNodesAgreeOnOneHolderAndReportTheStoreReachable() {
        NodeStatus leader = awaitAgreedLeader(3, 0);

        assertThat(leader.role()).isEqualTo("LEADER");
        // What every node answered when they agreed (a later reading could catch another election meanwhile).
        Map<String, NodeStatus> statuses = agreedStatuses;
        assertThat(statuses.values()).extracting(NodeStatus::leader).containsOnly(leader.node());
        assertThat(statuses.values()).allSatisfy(s -> {
            assertThat(s.raw().path("algorithm").asText()).isEqualTo("lease");
            assertThat(s.raw().path("store").path("state").asText()).isEqualTo("reachable");
            assertThat(s.raw().path("store").path("describe").asText()).startsWith("h2 tcp://127.0.0.1:");
            // Peers are given by LocalCluster: they only feed the member list.
            assertThat(s.raw().path("members")).hasSize(3);
        });
    }

    @Test
    void killNineOfTheHolderGivesANewHolderAtAHigherEpochThatEverySurvivorReports() throws Exception {
        NodeStatus first = awaitAgreedLeader(3, 0);

        cluster.kill(first.node());

        NodeStatus second = awaitAgreedLeader(2, first.epoch());
        assertThat(second.node()).isNotEqualTo(first.node());
    }

    @Test
    void sigtermOfTheHolderReleasesTheLeaseToASuccessorAndExitsZero() throws Exception {
        NodeStatus first = awaitAgreedLeader(3, 0);

        int exit = cluster.terminate(first.node(), Duration.ofSeconds(90));

        assertThat(exit).isZero();
        NodeStatus second = awaitAgreedLeader(2, first.epoch());
        assertThat(second.node()).isNotEqualTo(first.node());
    }
}
