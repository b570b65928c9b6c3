package io.bellwether.bench.peers;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The incumbents as the driver runs them, each node its own process: a leader line, kill -9 of that leader, another
 * node's leader line.
 */
class PeerProcessesTest {
    private static void failsOver(String system) throws Exception {
        Path dir = Files.createTempDirectory("bw-peers-test-" + system + "-");
        try (PeerCluster cluster = PeerSystems.build(system, dir, 10_000, PeerSystems.DEFAULT_JDBC_URL)) {
            NodeProcess leader = cluster.start(Duration.ofSeconds(40));
            int mark = cluster.leaderMark();
            long t0 = PeerProtocol.wallNanos();
            leader.kill9();
            Optional<PeerCluster.LeaderEvent> next = cluster.awaitLeaderAfter(mark, leader, Duration.ofSeconds(20));
            assertTrue(next.isPresent(), system + ": no other leader within 20 s of kill -9; logs in " + dir);
            assertNotSame(leader, next.get().node());
            assertTrue(next.get().wallNanos() >= t0, "the new leader's line is stamped after the signal");
        }
    }

    @Test
    @Timeout(value = 45, unit = TimeUnit.SECONDS)
    void ratisFailsOverAfterKillOfItsLeader() throws Exception {
        failsOver("ratis");
    }

    @Test
    @Timeout(value = 45, unit = TimeUnit.SECONDS)
    void curatorOnZooKeeperFailsOverAfterKillOfItsLeader() throws Exception {
        failsOver("curator-tuned");
    }
}
