package io.bellwether.server.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.Member;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import io.bellwether.testkit.Logs;
import io.bellwether.testkit.Services;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The hostile-noise soak (long profile: {@code mvn -B verify -Plong}, or {@code -Dbellwether.soak.duration=PT2M} for
 * a shorter run): a 3-node quorum cluster with default timings, whose leader's task writes {@code (epoch, node,
 * counter)} into PostgreSQL through a fence, while {@link HostileNoise} throws garbage frames, slow and abandoned
 * HTTP clients, event-stream floods and connection storms at every node from addresses all over 127.0.0.0/8.
 *
 * <p>It holds when the noise changes nothing that matters: one leader at one epoch throughout, every node answering
 * {@code /status} within {@link #STATUS_TIMEOUT} at every reading, every node's resident memory under {@link
 * #MAX_RSS_KIB}, the leader's writes accepted without a gap longer than {@link #MAX_WRITE_GAP} and none rejected,
 * and every refusal the noise saw counted in the refusing node's {@code /metrics}.
 */
@Tag("soak")
@EnabledIfSystemProperty(named = "bellwether.soak.duration", matches = "P.+")
class HostileNoiseSoakTest {
    private static final String PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final Duration CEILING = Duration.ofSeconds(180);
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);
    private static final long MAX_RSS_KIB = 128 * 1024;
    private static final Duration MAX_WRITE_GAP = Duration.ofSeconds(5);

    private LocalCluster cluster;
    private String prefix;

    @AfterEach
    void tearDown() throws SQLException {
        if (cluster != null) {
            cluster.close();
        }
        if (prefix != null) {
            try (Connection c = DriverManager.getConnection(PG_URL);
                    Statement s = c.createStatement()) {
                s.execute("drop table if exists " + prefix + "_writes");
                s.execute("drop table if exists " + prefix + "_guard");
            }
        }
    }

    @Test
    void noiseFromOutsidersChangesNoLeaderAndCostsBoundedMemoryAndEveryRefusalIsCounted() throws Exception {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
        Duration duration = Duration.parse(System.getProperty("bellwether.soak.duration"));
        long seed = Long.getLong("bellwether.soak.seed", System.nanoTime());
        System.out.println("soak: " + duration + ", seed " + seed + " (rerun with -Dbellwether.soak.seed=" + seed
                + " -Dbellwether.soak.duration=" + duration + ")");
        prefix = "soak_" + Long.toHexString(seed & 0xffffffL) + "_"
                + ProcessHandle.current().pid();
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement()) {
            s.execute("create table " + prefix + "_guard (resource text primary key, token bigint not null)");
            s.execute("insert into " + prefix + "_guard values ('soak', 0)");
            s.execute("create table " + prefix + "_writes (epoch bigint not null, node text not null,"
                    + " counter bigint not null, accepted boolean not null, at timestamptz not null)");
        }
        cluster = LocalCluster.start(3, "quorum", "", List.of(FencedWriterNode.class.getName(), PG_URL, prefix));
        NodeStatus leader = awaitAgreement();
        await().atMost(CEILING).until(() -> acceptedWrites() > 0);

        List<Integer> peerPorts = new ArrayList<>();
        List<Integer> httpPorts = new ArrayList<>();
        for (Member m : cluster.members()) {
            peerPorts.add(m.peerPort());
            httpPorts.add(m.httpPort());
        }
        Map<String, Long> maxRssKib = new ConcurrentHashMap<>();
        List<String> disturbances = new ArrayList<>();
        AtomicLong readings = new AtomicLong();
        try (HostileNoise noise = new HostileNoise(peerPorts, httpPorts, seed, duration.toNanos())) {
            noise.start();
            long end = System.nanoTime() + duration.toNanos();
            while (System.nanoTime() < end) {
                Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
                readings.incrementAndGet();
                for (Member m : cluster.members()) {
                    NodeStatus s = statuses.get(m.id());
                    if (s == null) {
                        disturbances.add(m.id() + " did not answer /status within " + STATUS_TIMEOUT);
                    } else if (!leader.node().equals(s.leader()) || s.epoch() != leader.epoch()) {
                        disturbances.add(m.id() + " reported leader " + s.leader() + " at epoch " + s.epoch());
                    }
                    cluster.pid(m.id()).ifPresent(pid -> maxRssKib.merge(m.id(), rssKib(pid), Math::max));
                }
                TimeUnit.SECONDS.sleep(1); // the reading's pace
            }
            noise.awaitEnd();
            System.out.println("soak: " + readings + " readings; noise sent " + noise.garbageSent
                    + " garbage connections, " + noise.slowStarted + " slow clients, "
                    + noise.stormConnections + " storm connections; event streams accepted "
                    + noise.streamsAccepted + ", refused " + noise.streamsRefused + "; max RSS KiB " + maxRssKib);

            if (!disturbances.isEmpty()) {
                throw Logs.noAgreement(
                        "the noise disturbed the cluster (leader " + leader.node() + " at epoch " + leader.epoch()
                                + "): " + disturbances,
                        cluster.liveStatuses(STATUS_TIMEOUT),
                        cluster.directory(),
                        cluster.members().stream().map(Member::id).toList(),
                        null);
            }
            assertThat(maxRssKib).as("resident memory per node, KiB").allSatisfy((node, kib) -> assertThat(kib)
                    .isLessThan(MAX_RSS_KIB));
            assertThat(noise.garbageSent.get()).as("garbage connections made").isPositive();
            for (Member m : cluster.members()) {
                String metrics = cluster.get(m.id(), "/metrics", STATUS_TIMEOUT).orElseThrow();
                assertThat(sum(metrics, "bellwether_rejected_frames_total"))
                        .as(m.id() + ": peer-port refusals counted, against garbage connections it closed")
                        .isGreaterThanOrEqualTo(count(noise.garbageClosed, m.peerPort()));
                assertThat(sum(metrics, "bellwether_http_refused_total"))
                        .as(m.id() + ": HTTP refusals counted, against the 503s and cut-off slow clients the"
                                + " noise saw")
                        .isGreaterThanOrEqualTo(
                                count(noise.streamsRefused, m.httpPort()) + count(noise.slowClosed, m.httpPort()));
            }
        }
        assertWritesFencedAndSteady(leader);
    }

    private NodeStatus awaitAgreement() {
        NodeStatus[] agreed = new NodeStatus[1];
        await().atMost(CEILING).pollInterval(Duration.ofMillis(200)).until(() -> {
            Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
            Optional<NodeStatus> leader = LocalCluster.agreedLeader(statuses);
            leader.ifPresent(l -> agreed[0] = l);
            return statuses.size() == 3 && leader.isPresent();
        });
        return agreed[0];
    }

    private long acceptedWrites() throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select count(*) from " + prefix + "_writes where accepted")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** The leader's writes: all from its epoch and node, none rejected, counters in order, no long gap. */
    private void assertWritesFencedAndSteady(NodeStatus leader) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select epoch, node, counter, accepted,"
                        + " extract(epoch from at) * 1000 from " + prefix + "_writes order by at")) {
            long writes = 0;
            long lastCounter = 0;
            double lastAt = Double.NaN;
            double maxGapMillis = 0;
            while (r.next()) {
                writes++;
                String write = "write " + r.getLong(1) + "/" + r.getString(2) + "/" + r.getLong(3);
                assertThat(r.getLong(1)).as(write + ": epoch").isEqualTo(leader.epoch());
                assertThat(r.getString(2)).as(write + ": node").isEqualTo(leader.node());
                assertThat(r.getBoolean(4)).as(write + ": accepted").isTrue();
                assertThat(r.getLong(3)).as(write + ": counter").isGreaterThan(lastCounter);
                lastCounter = r.getLong(3);
                double at = r.getDouble(5);
                if (!Double.isNaN(lastAt)) {
                    maxGapMillis = Math.max(maxGapMillis, at - lastAt);
                }
                lastAt = at;
            }
            System.out.println("soak: " + writes + " fenced writes, longest gap " + Math.round(maxGapMillis) + " ms");
            assertThat(maxGapMillis)
                    .as("longest gap between the leader's writes, ms")
                    .isLessThan(MAX_WRITE_GAP.toMillis());
        }
    }

    private static long count(Map<Integer, AtomicLong> perPort, int port) {
        AtomicLong n = perPort.get(port);
        return n == null ? 0 : n.get();
    }

    /** The sum of a Prometheus counter's samples whose labels contain every one of {@code labels}. */
    static double sum(String scrape, String name, String... labels) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})?\\s+(\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(scrape);
        double total = 0;
        outer:
        while (m.find()) {
            String found = m.group(1) == null ? "" : m.group(1);
            for (String label : labels) {
                if (!found.contains(label)) {
                    continue outer;
                }
            }
            total += Double.parseDouble(m.group(2));
        }
        return total;
    }

    private static long rssKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process just ended: no reading
        }
        return 0;
    }
}
