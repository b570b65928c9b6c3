package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ElectionMonitorTest {
    private static final NodeId SELF = NodeId.of("n1");

    @Test
    void historyKeepsTheLatestChangesOldestFirstAndDropsTheOldestBeyondItsBound() {
        ListenedElection election = new ListenedElection();
        ElectionMonitor monitor = started(election, metrics());
        int changes = ElectionMonitor.HISTORY + 44;
        Role previous = Role.FOLLOWER;
        for (int epoch = 1; epoch <= changes; epoch++) {
            Role next = previous == Role.FOLLOWER ? Role.CANDIDATE : Role.FOLLOWER;
            election.listener.roleChanged(previous, next, epoch);
            previous = next;
        }

        List<ElectionMonitor.Change> history = monitor.history();

        // Every role change here also raises the epoch: a role and a leader change each.
        assertThat(history).hasSize(ElectionMonitor.HISTORY);
        ElectionMonitor.Change last = history.get(history.size() - 1);
        assertThat(last.snapshot().epoch()).isEqualTo(changes);
        assertThat(last.snapshot().role()).isEqualTo(previous);
        assertThat(history.get(0).snapshot().epoch()).isEqualTo(changes - ElectionMonitor.HISTORY / 2 + 1);
        for (int i = 1; i < history.size(); i++) {
            assertThat(history.get(i).snapshot().epoch())
                    .isGreaterThanOrEqualTo(history.get(i - 1).snapshot().epoch());
            assertThat(history.get(i).at()).isAfterOrEqualTo(history.get(i - 1).at());
        }
    }

    @Test
    void historyServedOverHttpKeepsOnlyTheNewestChangesNumberedOnAndStaysSmall() throws Exception {
        ListenedElection election = new ListenedElection();
        NodeMetrics metrics = metrics();
        ElectionMonitor monitor = started(election, metrics);
        int roleChanges = 3 * ElectionMonitor.HISTORY;
        Role previous = Role.FOLLOWER;
        for (int epoch = 1; epoch <= roleChanges; epoch++) {
            Role next = previous == Role.FOLLOWER ? Role.CANDIDATE : Role.FOLLOWER;
            election.listener.roleChanged(previous, next, epoch);
            previous = next;
        }
        // A role and a leader change for each, after the monitor's first (DORMANT to FOLLOWER).
        long recorded = 1 + 2L * roleChanges;

        String body;
        try (io.bellwether.server.http.StatusServer server = new io.bellwether.server.http.StatusServer(
                new java.net.InetSocketAddress("127.0.0.1", 0),
                monitor,
                metrics,
                Map.of(),
                java.time.Duration.ofSeconds(15))) {
            server.start();
            java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.url() + "history"))
                                    .timeout(java.time.Duration.ofSeconds(10))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            body = response.body();
        }

        com.fasterxml.jackson.databind.JsonNode history =
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(body);
        assertThat(history.path("limit").asInt()).isEqualTo(ElectionMonitor.HISTORY);
        com.fasterxml.jackson.databind.JsonNode changes = history.path("changes");
        assertThat(changes).hasSize(ElectionMonitor.HISTORY);
        for (int i = 0; i < changes.size(); i++) {
            assertThat(changes.get(i).path("seq").asLong())
                    .as("the newest %d changes, oldest first", ElectionMonitor.HISTORY)
                    .isEqualTo(recorded - ElectionMonitor.HISTORY + 1 + i);
        }
        assertThat(changes.get(changes.size() - 1).path("epoch").asLong()).isEqualTo(roleChanges);
        // What an outsider can make the node hold and send: bounded by the count, whatever happened before.
        assertThat(body.length()).isLessThan(ElectionMonitor.HISTORY * 200);
    }

    @Test
    void historyIsACopyThatLaterChangesDoNotAlter() {
        ListenedElection election = new ListenedElection();
        ElectionMonitor monitor = started(election, metrics());
        election.listener.roleChanged(Role.FOLLOWER, Role.CANDIDATE, 1);
        List<ElectionMonitor.Change> before = monitor.history();

        election.listener.roleChanged(Role.CANDIDATE, Role.FOLLOWER, 2);

        assertThat(before).hasSize(monitor.history().size() - 2);
    }

    @Test
    void electedIsRecordedAsLeadingAtItsEpochEvenBeforeTheElectionsRoleSaysSo() {
        ListenedElection election = new ListenedElection();
        election.role = Role.CANDIDATE;
        ElectionMonitor monitor = started(election, metrics());
        java.time.Instant before = java.time.Instant.now();

        election.listener.elected(new HeldLeadership(7));

        ElectionMonitor.Change last = monitor.history().get(monitor.history().size() - 1);
        assertThat(last.snapshot().role()).isEqualTo(Role.LEADER);
        assertThat(last.snapshot().epoch()).isEqualTo(7);
        assertThat(last.snapshot().leader()).contains(SELF);
        assertThat(last.at()).isAfterOrEqualTo(before);
        assertThat(monitor.snapshot().role()).isEqualTo(Role.LEADER);
        // The role and leader events that follow for the same leadership, once role() says LEADER, change nothing.
        int changes = monitor.history().size();
        election.role = Role.LEADER;
        election.listener.roleChanged(Role.CANDIDATE, Role.LEADER, 7);
        election.listener.leaderChanged(Optional.of(new LeaderView(SELF, Optional.empty(), 7, System.nanoTime())));
        assertThat(monitor.history()).hasSize(changes);
    }

    @Test
    void theFirstLeaderIsNoFailoverAndALeaderlessGapIsTimed() {
        ListenedElection election = new ListenedElection();
        NodeMetrics metrics = metrics();
        started(election, metrics);

        election.listener.leaderChanged(Optional.of(view("n2", 3)));
        assertThat(failover(metrics).count()).isZero();

        election.listener.leaderChanged(Optional.empty());
        election.listener.leaderChanged(Optional.of(view("n3", 4)));

        assertThat(failover(metrics).count()).isEqualTo(1);
        assertThat(failover(metrics).totalTime(TimeUnit.NANOSECONDS)).isPositive();
    }

    @Test
    void aLeaderHandedOverWithNoGapSeenHereCountsAsAFailoverOfZero() {
        ListenedElection election = new ListenedElection();
        NodeMetrics metrics = metrics();
        started(election, metrics);
        election.listener.leaderChanged(Optional.of(view("n2", 3)));

        // A follower: the new leader's first heartbeat in a higher term came before any sign of the old one's end.
        election.listener.leaderChanged(Optional.of(view("n3", 4)));
        election.listener.roleChanged(Role.FOLLOWER, Role.FOLLOWER, 4);
        // The standby: elected on the cession while it still followed n3.
        election.listener.elected(new HeldLeadership(5));

        assertThat(failover(metrics).count()).isEqualTo(2);
        assertThat(failover(metrics).totalTime(TimeUnit.NANOSECONDS)).isZero();
    }

    private static NodeMetrics metrics() {
        return new NodeMetrics("demo", SELF, "default");
    }

    /** A monitor of {@code election}, started: it listens from now on. */
    private static ElectionMonitor started(ListenedElection election, NodeMetrics metrics) {
        ElectionMonitor monitor = new ElectionMonitor(election, "demo", "quorum", List.of(SELF), Map::of, metrics);
        monitor.start();
        return monitor;
    }

    private static LeaderView view(String leader, long epoch) {
        return new LeaderView(NodeId.of(leader), Optional.empty(), epoch, System.nanoTime());
    }

    private static Timer failover(NodeMetrics metrics) {
        return metrics.registry().get("bellwether.failover").timer();
    }

    private record HeldLeadership(long epoch) implements Leadership {
        @Override
        public long validUntilNanos() {
            return System.nanoTime() + 1_000_000_000L;
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public void checkValid() {}

        @Override
        public CompletionStage<io.bellwether.RevocationReason> revoked() {
            return new CompletableFuture<>();
        }
    }

    /** An election that only hands its listener to the test, which plays the events. */
    private static final class ListenedElection implements Election {
        ElectionListener listener;
        volatile Role role = Role.FOLLOWER;

        @Override
        public NodeId self() {
            return SELF;
        }

        @Override
        public String group() {
            return "default";
        }

        @Override
        public void start() {}

        @Override
        public Role role() {
            return role;
        }

        @Override
        public long epoch() {
            return 0;
        }

        @Override
        public Optional<LeaderView> leader() {
            return Optional.empty();
        }

        @Override
        public boolean isLeader() {
            return false;
        }

        @Override
        public Optional<Leadership> leadership() {
            return Optional.empty();
        }

        @Override
        public void addListener(ElectionListener l) {
            listener = l;
        }

        @Override
        public void removeListener(ElectionListener l) {
            listener = null;
        }

        @Override
        public io.bellwether.TaskHandle runWhileLeader(LeaderTask task, io.bellwether.TaskOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}

        @Override
        public CompletionStage<Void> closed() {
            return CompletableFuture.completedFuture(null);
        }
    }
}
