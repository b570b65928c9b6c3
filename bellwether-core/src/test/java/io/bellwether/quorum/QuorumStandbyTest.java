package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.elector.StoredState;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.bellwether.quorum.QuorumMessage.StandbyConfirm;
import io.bellwether.quorum.QuorumMessage.StandbyReady;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import io.bellwether.quorum.QuorumMessage.StandbyRound;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Rule 10 of {@code docs/quorum.md}, the standby successor: exact messages in, exact effects out. The member
 * under test is n2.
 */
class QuorumStandbyTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final NodeId N5 = NodeId.of("n5");
    private static final List<NodeId> FIVE = List.of(N1, N2, N3, N4, N5);
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();
    private static final long ET_MS = CONFIG.electionTimeout().toMillis();

    private ScriptedContext ctx;
    private QuorumElector elector;

    private void start(List<NodeId> members, StoredState stored) {
        ctx = new ScriptedContext(N2, members, 42);
        ctx.storeState(stored);
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
    }

    private void deliver(NodeId from, QuorumMessage message) {
        elector.onMessage(from, message);
    }

    /** The peer's connection closes and a redial to its address is refused: its process is gone. */
    private void gone(NodeId peer) {
        elector.onPeerDisconnected(peer);
        elector.onPeerGone(peer);
    }

    /** Follows n1, leader of term 5, among {@code members}. */
    private void follow(List<NodeId> members) {
        start(members, StoredState.EMPTY.with("term", 5));
        ctx.advanceMillis(1);
        deliver(N1, new Heartbeat(5, 1));
        ctx.takeSent();
    }

    /** Follows n1 among five, which named it its standby for term 6; round 1 went out at the returned time. */
    private long standbyOfN1() {
        follow(FIVE);
        deliver(N1, new StandbyRequest(5, 6));
        long sent = ctx.nanoTime();
        ctx.takeSent();
        return sent;
    }

    private static long ms(long millis) {
        return millis * 1_000_000L;
    }

    @Test
    void aNamedStandbyPersistsItsOwnPledgeThenAsksTheOtherFollowersForTheirs() {
        follow(FIVE);

        deliver(N1, new StandbyRequest(5, 6));

        assertThat(ctx.persisted()).last().satisfies(s -> assertThat(s.get("pledge", 0))
                .isEqualTo(6));
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        assertThat(ctx.sent())
                .as("the fellow followers, not the leader")
                .containsExactlyInAnyOrder(
                        new Sent(N3, new StandbyRound(5, 6, 1)),
                        new Sent(N4, new StandbyRound(5, 6, 1)),
                        new Sent(N5, new StandbyRound(5, 6, 1)));
        long interval = CONFIG.validityNanos() * 2 / 3;
        assertThat(ctx.deadline("STANDBY")).hasValue(ctx.nanoTime() + interval);
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(elector.term())
                .as("its term does not move while the leader leads")
                .isEqualTo(5);
    }

    @Test
    void aStandbyRequestFromAnyoneButTheLeaderOrForAnotherTermIsIgnored() {
        follow(FIVE);

        deliver(N3, new StandbyRequest(5, 6));
        deliver(N1, new StandbyRequest(4, 6));
        deliver(N1, new StandbyRequest(5, 5));

        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.armed("STANDBY")).isFalse();
    }

    @Test
    void aFollowerPledgesDurablyBeforeItConfirmsAndThenSupportsNoOtherCandidateForAnElectionTimeout() {
        follow(FIVE);

        deliver(N3, new StandbyRound(5, 6, 1));

        assertThat(ctx.persisted()).last().satisfies(s -> {
            assertThat(s.get("pledge", 0)).isEqualTo(6);
            assertThat(s.get("term", 0)).isEqualTo(5);
        });
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        assertThat(ctx.takeSent()).containsExactly(new Sent(N3, new StandbyConfirm(5, 6, 1)));

        // The leader cedes to its standby: the follower's fence for the leader is lifted, not its pledge's.
        deliver(N1, new LeadershipCession(5, Optional.of(N3)));
        assertThat(elector.state().leader()).isEmpty();
        deliver(N4, new ScoutingRequest(6));
        deliver(N4, new ScoutingRequest(7));
        deliver(N3, new ScoutingRequest(7));
        assertThat(ctx.takeSent())
                .containsExactly(
                        new Sent(N4, new ScoutingResponse(6, false, 5)),
                        new Sent(N4, new ScoutingResponse(7, false, 5)),
                        new Sent(N3, new ScoutingResponse(7, true, 5)));

        ctx.advanceMillis(ET_MS);
        deliver(N4, new ScoutingRequest(6));
        deliver(N4, new ScoutingRequest(7));
        assertThat(ctx.takeSent())
                .as("term 6 was pledged for good; the fence is over")
                .containsExactly(
                        new Sent(N4, new ScoutingResponse(6, false, 5)),
                        new Sent(N4, new ScoutingResponse(7, true, 5)));
    }

    @Test
    void aPledgedTermGoesToNoOtherStandbyAndALowerOneToNobody() {
        follow(FIVE);
        deliver(N3, new StandbyRound(5, 7, 1));
        ctx.takeSent();

        deliver(N4, new StandbyRound(5, 7, 1));
        deliver(N4, new StandbyRound(5, 6, 1));
        deliver(N3, new StandbyRound(5, 7, 2));

        assertThat(ctx.sent()).containsExactly(new Sent(N3, new StandbyConfirm(5, 7, 2)));
        assertThat(ctx.persisted())
                .as("one write for the pledge, none for its repetition")
                .hasSize(1);
    }

    @Test
    void aFollowerWithoutALeaderPledgesNothing() {
        follow(FIVE);
        gone(N1);

        deliver(N3, new StandbyRound(5, 6, 1));

        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void aStandbyWithAMajorityReportsOnceAndLeadsOnTheCessionAloneWithValidityFromTheConfirmedRound() {
        long round1 = standbyOfN1();
        ctx.advanceMillis(1);

        deliver(N3, new StandbyConfirm(5, 6, 1));
        assertThat(ctx.sent()).as("itself and n3 of five: not yet").isEmpty();
        deliver(N4, new StandbyConfirm(5, 6, 1));
        assertThat(ctx.takeSent()).containsExactly(new Sent(N1, new StandbyReady(5, 6)));
        deliver(N5, new StandbyConfirm(5, 6, 1));
        assertThat(ctx.sent()).as("reported once").isEmpty();

        ctx.advanceMillis(2);
        deliver(N1, new LeadershipCession(5, Optional.of(N2)));

        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        assertThat(elector.state().epoch()).as("the pledged term").isEqualTo(6);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.ELECTED);
        assertThat(ctx.persisted()).last().satisfies(s -> assertThat(s.get("term", 0))
                .isEqualTo(6));
        assertThat(ctx.validUntil()).isEqualTo(round1 + CONFIG.validityNanos());
        assertThat(ctx.sent())
                .extracting(Sent::message)
                .contains(new Heartbeat(6, 1))
                .doesNotContain(new ElectionProposal(6), new ElectionProposal(7));
    }

    @Test
    void aStandbyWhoseConfirmationsHaveAgedFallsBackToProposingAboveItsPledgeOnTheCession() {
        standbyOfN1();
        ctx.advanceMillis(1);
        deliver(N3, new StandbyConfirm(5, 6, 1));
        deliver(N4, new StandbyConfirm(5, 6, 1));
        ctx.takeSent();

        ctx.advanceMillis(ET_MS);
        deliver(N1, new LeadershipCession(5, Optional.of(N2)));

        assertThat(elector.state().role()).isEqualTo(Role.CANDIDATE);
        assertThat(elector.term()).isEqualTo(7);
        assertThat(ctx.sent()).extracting(Sent::message).contains(new ElectionProposal(7, Optional.of(N1)));
    }

    @Test
    void aStandbyDropsTheConfirmationOfAPeerThatIsGone() {
        standbyOfN1();
        ctx.advanceMillis(1);
        deliver(N3, new StandbyConfirm(5, 6, 1));
        gone(N3);
        deliver(N4, new StandbyConfirm(5, 6, 1));

        assertThat(ctx.sent()).as("n3's confirmation no longer counts").isEmpty();
        deliver(N1, new LeadershipCession(5, Optional.of(N2)));
        assertThat(elector.state().role()).isNotEqualTo(Role.LEADER);
    }

    @Test
    void aStandbyTakesNoCessionNamingAnotherAndNoStaleConfirmation() {
        standbyOfN1();
        ctx.advanceMillis(1);
        deliver(N3, new StandbyConfirm(5, 7, 1));
        deliver(N4, new StandbyConfirm(5, 6, 9));
        assertThat(ctx.sent()).as("another pledge term, a round never sent").isEmpty();
        deliver(N3, new StandbyConfirm(5, 6, 1));
        deliver(N4, new StandbyConfirm(5, 6, 1));
        ctx.takeSent();

        deliver(N1, new LeadershipCession(5, Optional.of(N3)));

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(elector.term()).isEqualTo(5);
    }

    @Test
    void aReadyStandbyProposesAboveItsPledgeAtOnceNamingItsLeaderWhenThatLeaderIsProvenGone() {
        standbyOfN1();
        ctx.advanceMillis(1);
        deliver(N3, new StandbyConfirm(5, 6, 1));
        deliver(N4, new StandbyConfirm(5, 6, 1));
        ctx.takeSent();
        ctx.advanceMillis(2);

        gone(N1);
        long proposed = ctx.nanoTime();

        assertThat(elector.state().role()).isEqualTo(Role.CANDIDATE);
        assertThat(elector.term()).as("above its pledge of 6").isEqualTo(7);
        assertThat(ctx.sent())
                .extracting(Sent::message)
                .as("no backoff and no scouting: the proposal names the dead leader as ceded")
                .contains(new ElectionProposal(7, Optional.of(N1)))
                .noneMatch(m -> m instanceof ScoutingRequest);
        assertThat(ctx.armed("STANDBY")).isFalse();

        ctx.advanceMillis(1);
        deliver(N3, new ElectionResponse(7));
        deliver(N4, new ElectionResponse(7));

        assertThat(elector.state().role())
                .as("no cession to wait for: its leader is gone")
                .isEqualTo(Role.LEADER);
        assertThat(elector.state().epoch()).isEqualTo(7);
        assertThat(ctx.validUntil()).as("from its proposal").isEqualTo(proposed + CONFIG.validityNanos());
    }

    @Test
    void aReadyStandbyTakesNoMereClosingOfItsLeadersConnectionForADeparture() {
        standbyOfN1();
        ctx.advanceMillis(1);
        deliver(N3, new StandbyConfirm(5, 6, 1));
        deliver(N4, new StandbyConfirm(5, 6, 1));
        ctx.takeSent();

        elector.onPeerDisconnected(N1);
        elector.onPeerConnected(N1);
        elector.onPeerGone(N1); // a refusal from before the reconnection proves nothing

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(elector.state().leader()).contains(N1);
        assertThat(elector.term()).isEqualTo(5);
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void aStandbyWhoseConfirmationsHaveAgedScoutsAboveItsPledgeWhenItsLeaderIsProvenGone() {
        standbyOfN1();
        ctx.advanceMillis(1);
        deliver(N3, new StandbyConfirm(5, 6, 1));
        deliver(N4, new StandbyConfirm(5, 6, 1));
        ctx.takeSent();
        ctx.advanceMillis(ET_MS); // no round confirmed since: the pledges no longer make a valid leadership

        gone(N1);

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(elector.state().leader()).isEmpty();
        assertThat(elector.term()).isEqualTo(5);
        assertThat(ctx.armed("BACKOFF")).isTrue();
    }

    @Test
    void aStandbyWhoseLeaderTimedOutWaitsBackoffMinBeforeItsSlot() {
        standbyOfN1();

        ctx.advanceMillis(ET_MS);
        elector.onTimer(ctx.fire("LEADER_TIMEOUT"));

        long slot = (CONFIG.backoffMax().toNanos() - CONFIG.backoffMin().toNanos()) / 4;
        assertThat(ctx.deadline("BACKOFF")).hasValueSatisfying(at -> assertThat(at - ctx.nanoTime())
                .isBetween(CONFIG.backoffMin().toNanos(), CONFIG.backoffMin().toNanos() + slot / 2));
    }

    @Test
    void theLostLeadersStandbyScoutsFirstAboveItsPledge() {
        standbyOfN1();

        gone(N1);

        assertThat(ctx.armed("STANDBY")).as("a standby only while it follows").isFalse();
        long slot = (CONFIG.backoffMax().toNanos() - CONFIG.backoffMin().toNanos()) / 4;
        assertThat(ctx.deadline("BACKOFF"))
                .as("its leader proven gone, it skips backoff-min")
                .hasValueSatisfying(at -> assertThat(at - ctx.nanoTime()).isBetween(0L, slot / 2));
        ctx.advanceMillis(ET_MS); // past its own start-up fence
        elector.onTimer(ctx.fire("BACKOFF"));
        assertThat(ctx.sent())
                .as("term 6 is its own pledge")
                .extracting(Sent::message)
                .contains(new ScoutingRequest(7));
    }

    @Test
    void aRestartedMemberNeverVotesInTheTermItPledgedAndSkipsItWhenItCampaigns() {
        start(List.of(N1, N2, N3), StoredState.EMPTY.with("term", 5).with("pledge", 6));
        ctx.advanceMillis(ET_MS);

        elector.onTimer(ctx.fire("BACKOFF"));

        assertThat(ctx.takeSent()).extracting(Sent::message).containsOnly(new ScoutingRequest(7));
        ctx.advanceMillis(CONFIG.scoutingTimeout().toMillis());
        elector.onTimer(ctx.fire("ROUND"));
        deliver(N3, new StandbyRound(5, 6, 1));
        deliver(N3, new ScoutingRequest(6));
        assertThat(ctx.sent())
                .as("it cannot tell whom it pledged term 6 to: no confirmation, no vote in it")
                .containsExactly(new Sent(N3, new ScoutingResponse(6, false, 5)));
    }

    @Test
    void aPledgeStopsVotesInEveryTermUpToIt() {
        // Only the highest pledge is stored: an earlier one, to another standby, may have been for any term below.
        start(List.of(N1, N2, N3), StoredState.EMPTY.with("term", 5).with("pledge", 8));
        ctx.advanceMillis(ET_MS);

        deliver(N3, new ScoutingRequest(6));
        deliver(N3, new ElectionProposal(8));
        deliver(N3, new ScoutingRequest(9));

        assertThat(ctx.sent())
                .containsExactly(
                        new Sent(N3, new ScoutingResponse(6, false, 5)),
                        new Sent(N3, new ScoutingResponse(9, true, 5)));
        assertThat(elector.term()).isEqualTo(5);
    }

    /** n2 leads term 8 among three, elected with n3's vote. */
    private void leadTerm8() {
        start(List.of(N1, N2, N3), StoredState.EMPTY.with("term", 7));
        ctx.advanceMillis(ET_MS);
        elector.onTimer(ctx.fire("BACKOFF"));
        deliver(N3, new ScoutingResponse(8, true, 7));
        deliver(N3, new ElectionResponse(8));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
    }

    @Test
    void aNewLeaderNamesTheFollowerThatVotedItsStandbyForTheNextTerm() {
        leadTerm8();

        assertThat(ctx.sent())
                .contains(new Sent(N3, new StandbyRequest(8, 9)))
                .noneMatch(s -> s.message() instanceof StandbyRequest && s.to().equals(N1));
    }

    @Test
    void aLeaderWithAReadyStandbyCedesToItAtOnceWithoutAPreparedHandover() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 9));
        ctx.takeSent();

        assertThat(elector.beginStop()).as("nothing to prepare").isFalse();
        assertThat(ctx.sent()).isEmpty();
        elector.stop();

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertThat(ctx.sent())
                .as("the standby alone: its heartbeats tell the others")
                .containsExactly(new Sent(N3, new LeadershipCession(8, Optional.of(N3))));
    }

    @Test
    void aLeaderReportsItsStandbyAsSuccessorOnlyOnceReadyAndForgetsItWhenItsConnectionCloses() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 10));
        deliver(N1, new StandbyReady(8, 9));
        assertThat(ctx.successors()).as("named, not ready").isEmpty();

        deliver(N3, new StandbyReady(8, 9));
        deliver(N3, new StandbyReady(8, 9));
        assertThat(ctx.successors()).containsExactly(Optional.of(N3));

        elector.onPeerDisconnected(N3);
        assertThat(ctx.successors()).containsExactly(Optional.of(N3), Optional.empty());
    }

    @Test
    void aLeaderThatStepsDownHasNoSuccessorLeft() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 9));

        deliver(N1, new Heartbeat(9, 1));

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.successors()).containsExactly(Optional.of(N3), Optional.empty());
    }

    @Test
    void aLeaderIgnoresReadinessForAnotherTermOrFromAnother() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 10));
        deliver(N1, new StandbyReady(8, 9));
        ctx.takeSent();

        assertThat(elector.beginStop())
                .as("a prepared handover, to the standby")
                .isTrue();
        assertThat(ctx.sent()).extracting(Sent::to).containsExactly(N3);
    }

    @Test
    void aStandbyThatStopsConfirmingHeartbeatsIsReplacedForAHigherTermAndOneThatConfirmsIsKept() {
        leadTerm8();
        ctx.takeSent();
        long rounds = ET_MS / CONFIG.heartbeatInterval().toMillis();
        for (long r = 2; r <= rounds; r++) {
            ctx.advanceMillis(CONFIG.heartbeatInterval().toMillis());
            elector.onTimer(ctx.fire("HEARTBEAT"));
            deliver(N1, new HeartbeatResponse(8, r));
            deliver(N3, new HeartbeatResponse(8, r));
        }
        assertThat(ctx.takeSent())
                .as("never ready, but confirming: kept, and asked again for the same term")
                .filteredOn(s -> s.message() instanceof StandbyRequest)
                .isNotEmpty()
                .allMatch(s -> s.equals(new Sent(N3, new StandbyRequest(8, 9))));

        for (long r = rounds + 1; r <= rounds + 3; r++) {
            ctx.advanceMillis(CONFIG.heartbeatInterval().toMillis());
            elector.onTimer(ctx.fire("HEARTBEAT"));
            deliver(N1, new HeartbeatResponse(8, r));
        }

        assertThat(ctx.sent())
                .filteredOn(s -> s.message() instanceof StandbyRequest)
                .filteredOn(s -> !s.equals(new Sent(N3, new StandbyRequest(8, 9))))
                .containsExactly(new Sent(N3, new StandbyRequest(8, 0)), new Sent(N1, new StandbyRequest(8, 10)));
    }

    @Test
    void aLeaderAsksItsStandbyAgainForTheSameTermUntilItIsReady() {
        leadTerm8();
        ctx.takeSent();

        for (long r = 2; r <= 4; r++) { // past one standby interval (two thirds of the validity)
            ctx.advanceMillis(CONFIG.heartbeatInterval().toMillis());
            elector.onTimer(ctx.fire("HEARTBEAT"));
            deliver(N3, new HeartbeatResponse(8, r));
        }
        assertThat(ctx.takeSent())
                .as("the first request may have overtaken the first heartbeat")
                .filteredOn(s -> s.message() instanceof StandbyRequest)
                .containsExactly(new Sent(N3, new StandbyRequest(8, 9)));

        deliver(N3, new StandbyReady(8, 9));
        for (long r = 5; r <= 8; r++) {
            ctx.advanceMillis(CONFIG.heartbeatInterval().toMillis());
            elector.onTimer(ctx.fire("HEARTBEAT"));
            deliver(N3, new HeartbeatResponse(8, r));
        }
        assertThat(ctx.sent()).noneMatch(s -> s.message() instanceof StandbyRequest);
    }

    @Test
    void aGroupOfTwoNamesNoStandby() {
        start(List.of(N1, N2), StoredState.EMPTY.with("term", 7));
        ctx.advanceMillis(ET_MS);
        elector.onTimer(ctx.fire("BACKOFF"));
        deliver(N1, new ScoutingResponse(8, true, 7));
        deliver(N1, new ElectionResponse(8));

        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        assertThat(ctx.sent()).noneMatch(s -> s.message() instanceof StandbyRequest);
    }

    @Test
    void withoutStandbyNoneIsNamed() {
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("term", 7));
        elector = (QuorumElector) QuorumConfig.builder().standby(false).build().create(ctx);
        elector.start();
        ctx.advanceMillis(ET_MS);
        elector.onTimer(ctx.fire("BACKOFF"));
        deliver(N3, new ScoutingResponse(8, true, 7));
        deliver(N3, new ElectionResponse(8));

        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        assertThat(ctx.sent()).noneMatch(s -> s.message() instanceof StandbyRequest);
    }
}
