package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.Role;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class ElectionMonitorHistoryTest {
    private static final NodeId SELF = NodeId.of("n1");

    @Test
    void historyKeepsTheLatestChangesOldestFirstAndDropsTheOldestBeyondItsBound() {
        ListenedElection election = new ListenedElection();
        ElectionMonitor monitor = new ElectionMonitor(
                election, "demo", "quorum", List.of(SELF), Map::of, new NodeMetrics("demo", SELF, "default"));
        monitor.start();
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
    void historyIsACopyThatLaterChangesDoNotAlter() {
        ListenedElection election = new ListenedElection();
        ElectionMonitor monitor = new ElectionMonitor(
                election, "demo", "quorum", List.of(SELF), Map::of, new NodeMetrics("demo", SELF, "default"));
        monitor.start();
        election.listener.roleChanged(Role.FOLLOWER, Role.CANDIDATE, 1);
        List<ElectionMonitor.Change> before = monitor.history();

        election.listener.roleChanged(Role.CANDIDATE, Role.FOLLOWER, 2);

        assertThat(before).hasSize(monitor.history().size() - 2);
    }

    @Test
    void electedIsRecordedAsLeadingAtItsEpochEvenBeforeTheElectionsRoleSaysSo() {
        ListenedElection election = new ListenedElection();
        election.role = Role.CANDIDATE;
        ElectionMonitor monitor = new ElectionMonitor(
                election, "demo", "quorum", List.of(SELF), Map::of, new NodeMetrics("demo", SELF, "default"));
        monitor.start();
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
        public AutoCloseable runWhileLeader(LeaderTask task) {
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
