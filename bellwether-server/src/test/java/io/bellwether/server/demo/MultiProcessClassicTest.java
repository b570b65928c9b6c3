package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The classic algorithms (bully, simple and strict, ring, invitation) in real node processes on loopback over the TCP transport:
 * three nodes agree on a coordinator, and after kill -9 of the coordinator every survivor names the new one.
 */
@Tag("processes")
@Timeout(900)
class MultiProcessClassicTest {
    /** Generous: cold JVMs on a CI machine that can be ten times slower than a workstation. */
    private static final Duration CEILING = Duration.ofSeconds(180);

    /**
     * How long one node's {@code /status} may take to answer. A live node answers in milliseconds, but on a CI
     * machine ten times slower than a workstation, with a browser or other nodes' JVMs starting, a short timeout
     * drops a live node from the reading and the cluster looks as if it never agreed.
     */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);

    private static final Duration POLL = Duration.ofMillis(50);

    private LocalCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Waits until the {@code expected} live nodes all name the same coordinator, one that {@code wanted} accepts. */
    private NodeStatus awaitAgreedCoordinator(int expected, Predicate<String> wanted) {
        NodeStatus[] agreed = new NodeStatus[1];
        await().atMost(CEILING).pollInterval(POLL).until(() -> {
            Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
            Optional<NodeStatus> leader = LocalCluster.agreedLeader(statuses);
            if (statuses.size() == expected
                    && leader.isPresent()
                    && wanted.test(leader.get().node())) {
                agreed[0] = leader.get();
                return true;
            }
            return false;
        });
        return agreed[0];
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bully", "ring"})
    void highestIdCoordinatesAndKillNineOfItGivesTheNextHighestToEverySurvivor(String algorithm) throws Exception {
        cluster = LocalCluster.start(3, algorithm, "");

        NodeStatus first = awaitAgreedCoordinator(3, "n3"::equals);
        assertThat(first.role()).isEqualTo("LEADER");

        cluster.kill("n3");

        // Both survivors answered and named n2, which reported itself LEADER (a later reading could catch the
        // next election a starved machine starts: these timings assume messages arrive within milliseconds).
        NodeStatus second = awaitAgreedCoordinator(2, "n2"::equals);
        assertThat(second.role()).isEqualTo("LEADER");
    }

    @Test
    void strictBullyGivesTheSameOutcomeThroughHaltNewCoordinatorAndReady() throws Exception {
        cluster = LocalCluster.start(3, "bully", "bully:\n  strict: true\n");

        NodeStatus first = awaitAgreedCoordinator(3, "n3"::equals);
        assertThat(first.role()).isEqualTo("LEADER");

        cluster.kill("n3");

        NodeStatus second = awaitAgreedCoordinator(2, "n2"::equals);
        assertThat(second.role()).isEqualTo("LEADER");
        assertThat(second.epoch()).isGreaterThan(first.epoch());
    }

    @Test
    void invitationMergesIntoOneGroupAndKillNineOfItsCoordinatorGivesEverySurvivorANewOne() throws Exception {
        cluster = LocalCluster.start(3, "invitation", "");

        NodeStatus first = awaitAgreedCoordinator(3, id -> true);
        assertThat(first.role()).isEqualTo("LEADER");

        cluster.kill(first.node());

        NodeStatus second = awaitAgreedCoordinator(2, id -> !id.equals(first.node()));
        assertThat(second.role()).isEqualTo("LEADER");
    }
}
