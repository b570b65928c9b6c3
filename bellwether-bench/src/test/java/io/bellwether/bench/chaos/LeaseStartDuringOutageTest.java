package io.bellwether.bench.chaos;

import static org.awaitility.Awaitility.await;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Services;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A lease node whose store connection stalls in the middle of its first handshake (the store goes silent the moment
 * the node first connects, as in a store outage that begins while the node starts) must lead once the store answers
 * again: no connection attempt, schema check or first read may hang past the outage.
 */
@Tag("processes")
class LeaseStartDuringOutageTest {
    @Test
    void aLeaseNodeWhoseFirstStoreConnectionStallsLeadsOnceTheStoreAnswers() throws Exception {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
        String table = "outage_" + Long.toHexString(System.nanoTime() & 0xffffffL);
        try (ChaosNetwork network = new ChaosNetwork()) {
            int port = network.proxy("n1", ChaosNetwork.STORE, 5432);
            String section = LocalCluster.leaseSection(
                            "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres", Duration.ofSeconds(3), true)
                    + "  table: " + table + "\n";
            try (LocalCluster cluster = LocalCluster.start(1, "lease", section)) {
                await("the node's first store connection")
                        .atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(1))
                        .until(() -> network.connections() > 0);
                network.stall("n1", ChaosNetwork.STORE);
                network.stall(ChaosNetwork.STORE, "n1");
                // Longer than the lease and every store timeout: whatever the node started must give up or wait.
                await("the node answering while its store is silent")
                        .atMost(Duration.ofSeconds(120))
                        .until(() -> cluster.status("n1", Duration.ofSeconds(1)).isPresent());
                Thread.sleep(6_500); // the outage's length, not a wait for an event
                network.healAll();
                try {
                    await("the node leading after the outage")
                            .atMost(Duration.ofSeconds(60))
                            .until(() -> cluster.status("n1", Duration.ofSeconds(1))
                                    .map(s -> s.role().equals("LEADER"))
                                    .orElse(false));
                } catch (Throwable t) {
                    System.out.println(String.join(
                            "\n", Files.readAllLines(cluster.member("n1").log())));
                    throw t;
                }
            }
        } finally {
            try (var c = java.sql.DriverManager.getConnection(FencedLedger.PG_URL);
                    var s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }
}
