package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.ring.RingConfig;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Election#resign(Duration)} on the real runtime, with groups of three over an in-process network, for every
 * peer algorithm: the leader gives up leadership, another member leads, the resigned member stays a follower that
 * knows the new leader, and its leadership was revoked (its {@code revoked()} calls returned and its {@link
 * Leadership#revoked()} completed, with the reason given) before the new leader was elected. Order is checked on
 * one shared log of listener events, never on times. The lease algorithm's counterpart is in {@code
 * LeaseElectionTest}.
 */
class ResignElectionTest {
    private static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Longer than every test: the resigned member never competes again within one. */
    private static final Duration HOLD_OFF = Duration.ofSeconds(30);

    private final InProcessNetwork network = new InProcessNetwork();
    private final Map<NodeId, Election> elections = new LinkedHashMap<>();
    /** Listener events of every member, in the order they happened. */
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    private final Object changed = new Object();

    @AfterEach
    void closeAll() {
        elections.values().forEach(Election::close);
        network.close();
    }

    /**
     * The ranked algorithms with a leader timeout of 400 ms rather than 150 ms: on a loaded test machine a heartbeat
     * round late by more than the revocation lead lets the watchdog revoke a leadership that the elector then renews,
     * which would only slow these tests down.
     */
    static Stream<Arguments> algorithms() {
        BullyConfig bully =
                BullyConfig.defaults().toBuilder().missedHeartbeats(8).build();
        return Stream.of(
                Arguments.of("quorum", QuorumConfig.defaults()),
                Arguments.of("bully", bully),
                Arguments.of("bully-strict", bully.toBuilder().strict(true).build()),
                Arguments.of(
                        "ring",
                        RingConfig.defaults().toBuilder().missedHeartbeats(8).build()),
                Arguments.of("invitation", InvitationConfig.defaults()),
                Arguments.of(
                        "invitation-gated",
                        InvitationConfig.builder().majorityGate(true).build()));
    }

    private void startGroup(ElectorSpec spec, long seed) {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            members.put(NodeId.of("node-" + i), new NodeAddress("localhost", 7200 + i));
        }
        for (NodeId id : members.keySet()) {
            Election election = Election.builder()
                    .group("resign")
                    .self(id)
                    .members(members)
                    .algorithm(spec)
                    .stateStore(new InMemoryStateStore())
                    .transport(network.transport(id))
                    .seed(seed * 31 + id.hashCode())
                    .build();
            election.addListener(new ElectionListener() {
                @Override
                public void elected(Leadership leadership) {
                    events.add("elected " + id + " " + leadership.epoch());
                    leadership
                            .revoked()
                            .thenAccept(r -> events.add("leadership " + id + " " + leadership.epoch() + " " + r));
                    signal();
                }

                @Override
                public void revoked(Leadership leadership, RevocationReason reason) {
                    events.add("revoked " + id + " " + leadership.epoch() + " " + reason);
                    signal();
                }

                @Override
                public void leaderChanged(Optional<LeaderView> leader) {
                    signal();
                }
            });
            elections.put(id, election);
        }
        elections.values().forEach(Election::start);
    }

    private void signal() {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    /** Waits, woken by listener events, until every member agrees on one valid leader other than {@code not}. */
    private Election awaitAgreedLeader(NodeId not) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        synchronized (changed) {
            while (true) {
                Optional<Election> leader = agreedLeader(not);
                if (leader.isPresent()) {
                    return leader.get();
                }
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("within 10 s, all agree on one leader other than %s; now: %s", not, views())
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }

    private Optional<Election> agreedLeader(NodeId not) {
        List<Election> leaders =
                elections.values().stream().filter(Election::isLeader).toList();
        if (leaders.size() != 1 || leaders.get(0).self().equals(not)) {
            return Optional.empty();
        }
        Election leader = leaders.get(0);
        Optional<Leadership> held = leader.leadership();
        if (held.isEmpty()) {
            return Optional.empty();
        }
        long epoch = held.get().epoch();
        boolean all = elections.values().stream().allMatch(e -> e.leader()
                .filter(v -> v.leader().equals(leader.self()) && v.epoch() == epoch)
                .isPresent());
        return all ? Optional.of(leader) : Optional.empty();
    }

    private String views() {
        StringBuilder s = new StringBuilder();
        elections.values().forEach(e -> s.append(e.self())
                .append('=')
                .append(e.role())
                .append(e.isLeader() ? "(valid)" : "")
                .append('@')
                .append(e.epoch())
                .append(e.leader().map(v -> "->" + v.leader()).orElse(""))
                .append(' '));
        return s.toString();
    }

    /** Waits, woken by listener events, until the event log holds {@code event}: listeners hear after the state. */
    private void awaitEvent(String event) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        synchronized (changed) {
            while (!events.contains(event)) {
                long left = deadline - System.nanoTime();
                assertThat(left)
                        .as("within 10 s, %s; events: %s", event, events)
                        .isPositive();
                TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }

    /** Resigns the agreed leader with {@code reason} and checks the hand-over; returns the old leader. */
    private Election resignAndCheck(RevocationReason reason) throws InterruptedException {
        Election old = awaitAgreedLeader(null);
        long oldEpoch = old.leadership().orElseThrow().epoch();
        awaitEvent("elected " + old.self() + " " + oldEpoch);
        int from = events.size();

        ((RuntimeElection) old).resign(HOLD_OFF, reason);

        Election next = awaitAgreedLeader(old.self());
        long newEpoch = next.leadership().orElseThrow().epoch();
        awaitEvent("elected " + next.self() + " " + newEpoch);
        assertThat(old.role()).as("the resigned member stays a member").isEqualTo(Role.FOLLOWER);
        assertThat(old.leader()).as("and knows the new leader").hasValueSatisfying(v -> assertThat(v.leader())
                .isEqualTo(next.self()));
        List<String> after;
        synchronized (events) {
            after = List.copyOf(events.subList(from, events.size()));
        }
        // The leadership the resignation ended: the one agreed on above, or, where the algorithm re-elected the same
        // member at a newer epoch in between (ranked algorithms settling at start), that newer one.
        String revokedPrefix = "revoked " + old.self() + " ";
        String revoked = after.stream()
                .filter(e -> e.startsWith(revokedPrefix) && e.endsWith(" " + reason))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("no revocation of " + old.self() + " for " + reason + ": " + after));
        long resignedEpoch = Long.parseLong(revoked.substring(revokedPrefix.length(), revoked.lastIndexOf(' ')));
        assertThat(resignedEpoch)
                .as("the resignation ended a leadership of %s: %s", old.self(), after)
                .isGreaterThanOrEqualTo(oldEpoch);
        String leadershipRevoked = "leadership " + old.self() + " " + resignedEpoch + " " + reason;
        String elected = "elected " + next.self() + " " + newEpoch;
        assertThat(after).contains(revoked, leadershipRevoked, elected);
        int firstOtherElected = after.stream()
                .filter(e -> e.startsWith("elected ") && !e.startsWith("elected " + old.self() + " "))
                .findFirst()
                .map(after::indexOf)
                .orElseThrow();
        assertThat(after.indexOf(revoked))
                .as("the old leader's listeners heard before any other member was elected: %s", after)
                .isLessThan(firstOtherElected);
        assertThat(after.indexOf(leadershipRevoked))
                .as("its Leadership completed revoked() before: %s", after)
                .isLessThan(firstOtherElected);
        assertThat(after.subList(after.indexOf(revoked), after.size()))
                .as("the resigned member does not lead again during its hold-off: %s", after)
                .noneMatch(e -> e.startsWith("elected " + old.self() + " "));
        return old;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("algorithms")
    void leaderResignsAnotherMemberLeadsAndTheResignedOneFollowsIt(String name, ElectorSpec spec)
            throws InterruptedException {
        startGroup(spec, 1);

        resignAndCheck(RevocationReason.RESIGNED);
    }

    @Test
    void theRevocationReasonGivenIsTheOneListenersAndTheLeadershipSee() throws InterruptedException {
        startGroup(QuorumConfig.defaults(), 2);

        resignAndCheck(RevocationReason.TASK_UNHEALTHY);
    }

    @Test
    void aLeaderTaskIsCancelledBeforeTheSuccessorIsElected() throws Exception {
        startGroup(QuorumConfig.defaults(), 3);
        Election old = awaitAgreedLeader(null);
        CompletableFuture<Void> running = new CompletableFuture<>();
        old.runWhileLeader(leadership -> {
            // Runs on the thread that cancels the task, before the cancellation returns.
            leadership.revoked().thenRun(() -> events.add("task cancelled " + old.self()));
            running.complete(null);
            leadership.revoked().toCompletableFuture().get();
        });
        running.get(10, TimeUnit.SECONDS);
        int from = events.size();

        old.resign(HOLD_OFF);

        Election next = awaitAgreedLeader(old.self());
        // The members agree as soon as the successor leads; its listeners hear of it a moment later.
        String electedEvent =
                "elected " + next.self() + " " + next.leadership().orElseThrow().epoch();
        awaitEvent(electedEvent);
        List<String> after;
        synchronized (events) {
            after = List.copyOf(events.subList(from, events.size()));
        }
        int elected = after.indexOf(electedEvent);
        assertThat(elected).isNotNegative();
        assertThat(after.indexOf("task cancelled " + old.self()))
                .as("cancelled before the successor was elected: %s", after)
                .isNotNegative()
                .isLessThan(elected);
    }

    @Test
    void aFollowerThatResignsOnlyStartsItsHoldOff() throws InterruptedException {
        startGroup(QuorumConfig.defaults(), 4);
        Election leader = awaitAgreedLeader(null);
        long epoch = leader.leadership().orElseThrow().epoch();
        Election follower = elections.values().stream()
                .filter(e -> !e.equals(leader))
                .findFirst()
                .orElseThrow();

        follower.resign(HOLD_OFF);

        assertThat(follower.role()).isEqualTo(Role.FOLLOWER);
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.leadership().orElseThrow().epoch()).isEqualTo(epoch);
        assertThat(follower.leader())
                .hasValueSatisfying(v -> assertThat(v.leader()).isEqualTo(leader.self()));
    }

    @Test
    void resignFromTheLeadersOwnListenerHandsOverWithoutWaitingForItself() throws Exception {
        startGroup(QuorumConfig.defaults(), 5);
        Election old = awaitAgreedLeader(null);
        CompletableFuture<Void> returned = new CompletableFuture<>();
        old.addListener(new ElectionListener() {
            @Override
            public void roleChanged(Role previous, Role current, long epoch) {}

            @Override
            public void leaderChanged(Optional<LeaderView> leader) {
                if (leader.isPresent() && leader.get().leader().equals(old.self()) && !returned.isDone()) {
                    old.resign(HOLD_OFF); // on the notifier: it cannot wait for the listeners
                    returned.complete(null);
                }
            }
        });

        returned.get(10, TimeUnit.SECONDS);

        Election next = awaitAgreedLeader(old.self());
        assertThat(next.self()).isNotEqualTo(old.self());
        assertThat(old.role()).isEqualTo(Role.FOLLOWER);
    }

    @Test
    void aHoldOffOutOfRangeIsRefusedNamingTheArgumentAndTheRangeAndChangesNothing() throws InterruptedException {
        startGroup(QuorumConfig.defaults(), 6);
        Election leader = awaitAgreedLeader(null);
        long epoch = leader.leadership().orElseThrow().epoch();

        assertThatThrownBy(() -> leader.resign(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdOff")
                .hasMessageContaining("PT-0.001S")
                .hasMessageContaining("0 to 24 hours");
        assertThatThrownBy(() -> leader.resign(Duration.ofHours(24).plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdOff")
                .hasMessageContaining("0 to 24 hours");
        assertThatThrownBy(() -> leader.resign(null)).isInstanceOf(NullPointerException.class);

        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.leadership().orElseThrow().epoch()).isEqualTo(epoch);
    }

    @Test
    void resignBeforeStartIsRefused() {
        Election e = Election.builder()
                .group("resign")
                .self(NodeId.of("node-1"))
                .member(NodeId.of("node-1"), new NodeAddress("localhost", 7201))
                .algorithm(QuorumConfig.defaults())
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(NodeId.of("node-1")))
                .build();
        elections.put(e.self(), e);

        assertThatThrownBy(e::resign).isInstanceOf(IllegalStateException.class).hasMessageContaining("not started");
    }

    @Test
    void theDefaultHoldOffIsTheAlgorithmsElectionTimeout() {
        assertThat(QuorumConfig.defaults().resignHoldOff())
                .contains(QuorumConfig.defaults().electionTimeout());
        assertThat(BullyConfig.defaults().resignHoldOff())
                .contains(BullyConfig.defaults().leaderTimeout());
        assertThat(RingConfig.defaults().resignHoldOff())
                .contains(RingConfig.defaults().leaderTimeout());
        assertThat(InvitationConfig.defaults().resignHoldOff())
                .contains(InvitationConfig.defaults().lease().multipliedBy(2));
    }
}
