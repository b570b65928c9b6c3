package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import io.bellwether.testkit.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hazard behind the quorum elector's rule 2 with real processes: the two ends of a connection learn of its
 * end at different times. Every member-to-member connection runs through a {@link TcpProxy} (of each pair the
 * lower id dials, so one proxy per pair, in the dialer's configuration). The test cuts the leader's connections
 * on the followers' side only: the followers read the end of their connections at once and their redials to the
 * leader's address are accepted and held silent (the leader still runs, so nothing refuses them), while the
 * leader's connections stay open and swallow its heartbeats. The leader learns nothing; it can only run out of
 * confirmations. A follower that took the closing as the leader's departure would elect a successor while the
 * old leader still holds a valid leadership.
 *
 * <p>Each node's {@code /history} gives its validity windows: a leadership starts at the {@code at} of the
 * {@code role} change to LEADER (the moment its listeners heard, a little after the elector took the role) and
 * is valid until the earlier of its {@code revoked} event's {@code at} and {@code validUntil}. All nodes run on
 * this machine and stamp with its one wall clock, so stamps of different nodes can be compared.
 */
@Tag("processes")
@Timeout(600)
class OneSidedCutValidityTest {
    private static final Duration CEILING = Duration.ofSeconds(180);

    /** As in {@link MultiProcessQuorumTest}: a 2 s election timeout, so that a loaded machine elects no one early. */
    private static final String TIMINGS = "quorum: {heartbeat-interval: 250ms, missed-heartbeats: 8}\n";

    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One proxy per pair, keyed "dialer>target". */
    private final Map<String, TcpProxy> proxies = new ConcurrentHashMap<>();

    private LocalCluster cluster;

    /** A leadership of one node: from {@code start} until {@code end} (null: still valid). */
    record Window(String node, long epoch, Instant start, Instant end) {
        boolean overlaps(Window other) {
            return (end == null || other.start.isBefore(end)) && (other.end == null || start.isBefore(other.end));
        }
    }

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
        proxies.values().forEach(TcpProxy::close);
    }

    @Test
    void leaderCutOnTheFollowersSideOnlyEndsItsValidityBeforeASuccessorIsElected() throws Exception {
        cluster = LocalCluster.start(
                3, "quorum", TIMINGS, List.of("io.bellwether.server.cli.Main", "node"), (from, to, port) -> {
                    if (from.compareTo(to) > 0) {
                        return port; // the higher id never dials; its departure probes reach the real listener
                    }
                    TcpProxy proxy = new TcpProxy(port);
                    proxies.put(from + ">" + to, proxy);
                    return proxy.port();
                });
        NodeStatus leader = awaitLeader(3, 0, null);
        String old = leader.node();
        List<String> followers = new ArrayList<>();
        cluster.members().forEach(m -> {
            if (!m.id().equals(old)) {
                followers.add(m.id());
            }
        });

        proxies.forEach((pair, proxy) -> {
            String[] ends = pair.split(">");
            if (ends[0].equals(old)) {
                proxy.cut(TcpProxy.Side.TARGET); // the leader dialed: the follower it reached sees the end
            } else if (ends[1].equals(old)) {
                proxy.cut(TcpProxy.Side.CLIENT); // the follower dialed: it sees the end
            }
        });

        // The followers learn at once: their connection to the old leader is no longer up.
        await().atMost(CEILING).pollInterval(POLL).until(() -> followers.stream()
                .allMatch(f -> cluster.status(f, STATUS_TIMEOUT)
                        .map(s -> !"CONNECTED"
                                .equals(s.raw()
                                        .path("peers")
                                        .path(old)
                                        .path("state")
                                        .asText()))
                        .orElse(false)));

        NodeStatus successor = awaitLeader(2, leader.epoch(), old);
        assertThat(successor.node()).isIn(followers);

        // The old leader ends its leadership on its own (check-quorum), never having learned of the cut.
        JsonNode revoked = await().atMost(CEILING)
                .pollInterval(POLL)
                .until(
                        () -> history(old).stream()
                                .filter(c -> c.path("kind").asText().equals("revoked")
                                        && c.path("revokedEpoch").asLong() == leader.epoch())
                                .findFirst()
                                .orElse(null),
                        c -> c != null);
        // Its validity ran out: the runtime's watchdog (VALIDITY_EXPIRED, revocation-lead early) or check-quorum.
        assertThat(revoked.path("reason").asText()).isIn("VALIDITY_EXPIRED", "LOST_QUORUM");
        NodeStatus oldNow = cluster.status(old, STATUS_TIMEOUT).orElseThrow();
        assertThat(followers)
                .as("the old leader's connections to its followers are still up from its side: it was never told")
                .allSatisfy(f -> assertThat(
                                oldNow.raw().path("peers").path(f).path("state").asText())
                        .isEqualTo("CONNECTED"));

        List<Window> windows = new ArrayList<>();
        for (LocalCluster.Member m : cluster.members()) {
            windows.addAll(windows(m.id(), history(m.id())));
        }
        assertThat(windows)
                .as("the old leader's window and the successor's")
                .anySatisfy(w -> assertThat(w.node()).isEqualTo(old))
                .anySatisfy(w -> assertThat(w.node()).isEqualTo(successor.node()));
        for (Window a : windows) {
            for (Window b : windows) {
                if (a != b && !a.node().equals(b.node())) {
                    assertThat(a.overlaps(b))
                            .as("validity windows %s and %s overlap", a, b)
                            .isFalse();
                }
            }
        }
    }

    /** Waits until a node other than {@code not} leads above {@code aboveEpoch} and {@code expected} agree on it. */
    private NodeStatus awaitLeader(int expected, long aboveEpoch, String not) {
        NodeStatus[] found = new NodeStatus[1];
        await().atMost(CEILING).pollInterval(POLL).until(() -> {
            Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
            if (not != null) {
                statuses.remove(not);
            }
            Optional<NodeStatus> agreed = LocalCluster.agreedLeader(statuses);
            if (statuses.size() == expected
                    && agreed.isPresent()
                    && agreed.get().epoch() > aboveEpoch) {
                found[0] = agreed.get();
                return true;
            }
            return false;
        });
        return found[0];
    }

    private List<JsonNode> history(String node) throws Exception {
        String body = cluster.get(node, "/history", STATUS_TIMEOUT).orElseThrow();
        List<JsonNode> changes = new ArrayList<>();
        JSON.readTree(body).path("changes").forEach(changes::add);
        return changes;
    }

    /** A node's leaderships from its history: each from its first LEADER change to its revocation. */
    static List<Window> windows(String node, List<JsonNode> changes) {
        Map<Long, Instant> starts = new java.util.TreeMap<>();
        Map<Long, Instant> ends = new java.util.TreeMap<>();
        for (JsonNode c : changes) {
            Instant at = Instant.parse(c.path("at").asText());
            if (c.path("kind").asText().equals("revoked")) {
                Instant validUntil = Instant.parse(c.path("validUntil").asText());
                ends.put(c.path("revokedEpoch").asLong(), at.isBefore(validUntil) ? at : validUntil);
            } else if (c.path("role").asText().equals("LEADER")) {
                starts.putIfAbsent(c.path("epoch").asLong(), at);
            }
        }
        List<Window> out = new ArrayList<>();
        starts.forEach((epoch, start) -> out.add(new Window(node, epoch, start, ends.get(epoch))));
        return out;
    }
}
