package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.Environment;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.elector.StoredState;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
import io.bellwether.quorum.QuorumMessage.HandoverReady;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.bellwether.quorum.QuorumMessage.StandbyReady;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Rule 11 of {@code docs/quorum.md}: a leader hands its leadership to the connected member of the highest priority
 * above its own once that member has confirmed every heartbeat for {@code priority-hold-down}, by the graceful
 * hand-over path; equal or lower priorities never move a leadership. The member under test is n2, priority 0.
 */
class QuorumPriorityTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final long HOLD_DOWN_MS = 300;
    private static final QuorumConfig CONFIG = QuorumConfig.builder()
            .priorityHoldDown(Duration.ofMillis(HOLD_DOWN_MS))
            .build();

    private ScriptedContext ctx;
    private QuorumElector elector;
    /** The sequence of the leader's latest heartbeat round. */
    private long sequence;

    private void deliver(NodeId from, QuorumMessage message) {
        elector.onMessage(from, message);
    }

    private void fire(String timer) {
        elector.onTimer(ctx.fire(timer));
    }

    /** n2 leads term 8 among {@code members}, elected with n3's vote; round 1 is out. */
    private void leadTerm8(QuorumConfig config, List<NodeId> members) {
        ctx = new ScriptedContext(N2, members, 42);
        ctx.storeState(StoredState.EMPTY.with("term", 7));
        elector = (QuorumElector) config.create(ctx);
        elector.start();
        ctx.advanceMillis(config.electionTimeout().toMillis());
        fire("BACKOFF");
        deliver(N3, new ScoutingResponse(8, true, 7));
        deliver(N3, new ElectionResponse(8));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        sequence = 1;
        ctx.takeSent();
    }

    private void leadTerm8() {
        leadTerm8(CONFIG, List.of(N1, N2, N3));
    }

    /** The peers answer the latest round with their priorities, then the next round goes out. */
    private void round(Map<NodeId, Integer> priorities) {
        ctx.advanceMillis(1);
        priorities.forEach((peer, priority) -> deliver(peer, new HeartbeatResponse(8, sequence, priority)));
        fire("HEARTBEAT");
        sequence++;
    }

    /** Rounds until {@code millis} have passed since the first of them. */
    private void roundsFor(long millis, Map<NodeId, Integer> priorities) {
        long end = ctx.nanoTime() + millis * 1_000_000L;
        while (ctx.nanoTime() < end) {
            round(priorities);
        }
    }

    private List<Sent> cessions() {
        return ctx.sent().stream()
                .filter(s -> s.message() instanceof LeadershipCession)
                .toList();
    }

    @Test
    void leaderToFollowerHandsOverToItsReadyStandbyOfHigherPriorityOnceTheHoldDownHasPassed() {
        leadTerm8();
        assertThat(ctx.sent()).isEmpty();
        deliver(N3, new StandbyReady(8, 9)); // n3 was named standby for term 9 on election

        roundsFor(HOLD_DOWN_MS - 100, Map.of(N1, 0, N3, 5));
        assertThat(elector.state().role())
                .as("not before n3 has kept up for the hold-down")
                .isEqualTo(Role.LEADER);
        assertThat(cessions()).isEmpty();
        ctx.takeSent();

        roundsFor(200, Map.of(N1, 0, N3, 5));

        assertThat(ctx.lastAnnouncement().state()).isEqualTo(new ElectorState(Role.FOLLOWER, 8, Optional.empty()));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.TRANSFERRED);
        assertThat(cessions())
                .as("rule 10.5: the ready standby alone, named")
                .containsExactly(new Sent(N3, new LeadershipCession(8, Optional.of(N3))));
        assertThat(ctx.armed("HEARTBEAT")).isFalse();
        assertThat(ctx.deadline("BACKOFF"))
                .as("no hold-off: it may lead again should n3 fail")
                .hasValueSatisfying(at -> assertThat(at)
                        .isBetween(
                                ctx.nanoTime(),
                                ctx.nanoTime() + CONFIG.backoffMax().toNanos()));
    }

    @Test
    void leaderNeverHandsOverToMembersOfEqualOrLowerPriority() {
        leadTerm8(
                QuorumConfig.builder()
                        .priority(3)
                        .priorityHoldDown(Duration.ZERO)
                        .build(),
                List.of(N1, N2, N3));
        deliver(N3, new StandbyReady(8, 9));

        roundsFor(2_000, Map.of(N1, 3, N3, -7));

        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        assertThat(cessions()).isEmpty();
        assertThat(ctx.announcements()).noneMatch(a -> a.reason() == ChangeReason.TRANSFERRED);
    }

    @Test
    void aMemberThatStopsKeepingUpStartsItsHoldDownAgain() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 9));
        roundsFor(HOLD_DOWN_MS - 100, Map.of(N1, 0, N3, 5));

        // n3 misses rounds for more than half an election timeout (n1 becomes the standby), then answers again.
        roundsFor(CONFIG.electionTimeout().toMillis() / 2 + 100, Map.of(N1, 0));
        assertThat(elector.standby.named()).contains(N1);
        roundsFor(HOLD_DOWN_MS - 100, Map.of(N1, 0, N3, 5));
        assertThat(elector.state().role())
                .as("its hold-down counts from its return")
                .isEqualTo(Role.LEADER);
        assertThat(elector.standby.named()).contains(N1);

        roundsFor(200, Map.of(N1, 0, N3, 5));
        assertThat(ctx.sent())
                .as("once it has kept up for the hold-down, n3 is named standby again, for a new pledge term")
                .contains(new Sent(N3, new StandbyRequest(8, 11)));
        deliver(N3, new StandbyReady(8, 11));
        round(Map.of(N1, 0, N3, 5));

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(cessions()).containsExactly(new Sent(N3, new LeadershipCession(8, Optional.of(N3))));
    }

    @Test
    void leaderNamesTheMemberOfHighestPriorityItsStandbyThenHandsOverWhenItIsReady() {
        leadTerm8();
        assertThat(elector.standby.named()).contains(N3);

        roundsFor(HOLD_DOWN_MS + 100, Map.of(N1, 9, N3, 5));

        assertThat(ctx.sent())
                .as("n3 withdrawn, n1 named for a new pledge term")
                .containsSubsequence(new Sent(N3, new StandbyRequest(8, 0)), new Sent(N1, new StandbyRequest(8, 10)));
        assertThat(elector.state().role()).as("n1 is not ready yet").isEqualTo(Role.LEADER);
        ctx.takeSent();

        deliver(N1, new StandbyReady(8, 10));
        round(Map.of(N1, 9, N3, 5));

        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.TRANSFERRED);
        assertThat(cessions()).containsExactly(new Sent(N1, new LeadershipCession(8, Optional.of(N1))));
    }

    @Test
    void aStandbyOfHigherPriorityThatDoesNotGetReadyIsPreparedAsRule9SuccessorAfterAnElectionTimeout() {
        leadTerm8();
        roundsFor(HOLD_DOWN_MS + 100, Map.of(N1, 0, N3, 5));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        assertThat(ctx.sent()).doesNotContain(new Sent(N3, new HandoverRequest(8)));

        roundsFor(CONFIG.electionTimeout().toMillis(), Map.of(N1, 0, N3, 5));

        assertThat(ctx.sent()).contains(new Sent(N3, new HandoverRequest(8)));
        assertThat(elector.state().role())
                .as("it leads on until n3 reports its majority")
                .isEqualTo(Role.LEADER);
        ctx.takeSent();
        deliver(N3, new HandoverReady(8));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.TRANSFERRED);
        assertThat(ctx.sent()).startsWith(new Sent(N3, new LeadershipCession(8, Optional.of(N3))));
    }

    @Test
    void withoutAStandbyTheLeaderPreparesTheMemberOfHigherPriorityAsItsSuccessor() {
        leadTerm8(
                QuorumConfig.builder()
                        .standby(false)
                        .priorityHoldDown(Duration.ofMillis(HOLD_DOWN_MS))
                        .build(),
                List.of(N1, N2, N3));

        roundsFor(HOLD_DOWN_MS + 100, Map.of(N1, 4, N3, 0));

        assertThat(ctx.sent())
                .as("rule 9.1 with the member of higher priority")
                .contains(new Sent(N1, new HandoverRequest(8)));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        ctx.takeSent();

        deliver(N1, new HandoverReady(8));

        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.TRANSFERRED);
        assertThat(ctx.sentBeforeLastAnnouncement()).isZero();
        assertThat(ctx.sent())
                .as("the successor first")
                .containsExactly(
                        new Sent(N1, new LeadershipCession(8, Optional.of(N1))),
                        new Sent(N3, new LeadershipCession(8, Optional.of(N1))));
    }

    @Test
    void inAGroupOfTwoTheLeaderCedesNamingTheMemberOfHigherPriority() {
        leadTerm8(CONFIG, List.of(N2, N3));

        roundsFor(HOLD_DOWN_MS + 100, Map.of(N3, 1));

        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.TRANSFERRED);
        assertThat(cessions()).containsExactly(new Sent(N3, new LeadershipCession(8, Optional.of(N3))));
    }

    @Test
    void aFollowerAnnouncesItsPriorityInEveryHeartbeatAnswer() {
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("term", 5));
        elector = (QuorumElector) QuorumConfig.builder().priority(-4).build().create(ctx);
        elector.start();

        deliver(N1, new Heartbeat(5, 1));
        deliver(N3, new Heartbeat(4, 9));

        assertThat(ctx.sent())
                .containsExactly(
                        new Sent(N1, new HeartbeatResponse(5, 1, -4)), new Sent(N3, new HeartbeatResponse(5, 9, -4)));
    }

    @Test
    void aPriorityTravelsInFourMoreBytesOnlyWhenItIsNotZero() {
        QuorumCodec codec = QuorumCodec.INSTANCE;
        int type = codec.typeOf(new HeartbeatResponse(5, 1));

        assertThat(codec.encode(new HeartbeatResponse(5, 1, 0))).hasSize(16);
        byte[] withPriority = codec.encode(new HeartbeatResponse(5, 1, -4));
        assertThat(withPriority).hasSize(20);
        assertThat(codec.decode(type, withPriority)).isEqualTo(new HeartbeatResponse(5, 1, -4));
        assertThat(codec.decode(type, codec.encode(new HeartbeatResponse(5, 1))))
                .isEqualTo(new HeartbeatResponse(5, 1));

        byte[] zero =
                java.nio.ByteBuffer.allocate(20).putLong(5).putLong(1).putInt(0).array();
        assertThatThrownBy(() -> codec.decode(type, zero))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("priority is 0");
        byte[] tooHigh = java.nio.ByteBuffer.allocate(20)
                .putLong(5)
                .putLong(1)
                .putInt(1001)
                .array();
        assertThatThrownBy(() -> codec.decode(type, tooHigh))
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("priority is 1001");
        assertThatThrownBy(() -> codec.encode(new HeartbeatResponse(5, 1, 1001)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void priorityOutOfRangeIsRefusedNamingTheKeyAndTheRange() {
        assertThatThrownBy(() -> QuorumConfig.builder().priority(1001))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priority = 1001 is out of range: allowed -1000 to 1000");
        assertThatThrownBy(() -> QuorumAlgorithm.INSTANCE.check("priority", -1001))
                .hasMessageContaining("priority = -1001 is out of range");
        assertThatThrownBy(() -> QuorumConfig.builder().priorityHoldDown(Duration.ofMinutes(11)))
                .hasMessageContaining("priority-hold-down");
        QuorumConfig configured =
                (QuorumConfig) QuorumAlgorithm.INSTANCE.configure(Map.of("priority", 7), Environment.of(""));
        assertThat(configured.priority()).isEqualTo(7);
        assertThat(configured.priorityHoldDown()).isEqualTo(Duration.ofSeconds(1));
        assertThat(configured.withPriority(2).priority()).isEqualTo(2);
    }
}
