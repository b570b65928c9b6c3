package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.elector.StoredState;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.ElectionResponse;
import io.bellwether.quorum.QuorumMessage.HandoverReady;
import io.bellwether.quorum.QuorumMessage.HandoverRequest;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.bellwether.spi.StateStoreException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Drives one quorum elector through each transition with a scripted context and checks role, term, leader,
 * reason and effects after every event. Test names follow the transition path they drive.
 */
class QuorumElectorTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final NodeId N5 = NodeId.of("n5");
    /** Rules 1–9: without a standby (rule 10 is in {@code QuorumStandbyTest}). */
    private static final QuorumConfig CONFIG =
            QuorumConfig.builder().standby(false).build();

    private static final long ET_MS = CONFIG.electionTimeout().toMillis();

    private ScriptedContext ctx;
    private QuorumElector elector;

    private void startThree(long storedTerm) {
        start(List.of(N1, N2, N3), storedTerm);
    }

    private void start(List<NodeId> members, long storedTerm) {
        ctx = new ScriptedContext(N2, members, 42);
        if (storedTerm > 0) {
            ctx.storeState(StoredState.EMPTY.with("term", storedTerm));
        }
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
    }

    private void deliver(NodeId from, QuorumMessage message) {
        elector.onMessage(from, message);
    }

    private void fire(String timer) {
        elector.onTimer(ctx.fire(timer));
    }

    /** The peer's connection closes and a redial to its address is refused: its process is gone. */
    private void gone(NodeId peer) {
        elector.onPeerDisconnected(peer);
        elector.onPeerGone(peer);
    }

    private void assertState(Role role, long term, NodeId leader) {
        assertThat(elector.state().role()).as("role").isEqualTo(role);
        assertThat(elector.state().epoch()).as("announced epoch").isEqualTo(term);
        assertThat(elector.term()).as("term").isEqualTo(term);
        assertThat(elector.state().leader()).as("leader").isEqualTo(Optional.ofNullable(leader));
        assertThat(ctx.lastAnnouncement().state()).as("last announcement").isEqualTo(elector.state());
    }

    /** Scouting: the elector's own role, announced as a follower without a leader at the unchanged term. */
    private void assertScouting(long term) {
        assertThat(elector.role).as("the elector's own role").isEqualTo(QuorumRole.SCOUT);
        assertState(Role.FOLLOWER, term, null);
    }

    private void assertReason(ChangeReason reason) {
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(reason);
    }

    private static List<Sent> to(List<Sent> sent, NodeId node) {
        return sent.stream().filter(s -> s.to().equals(node)).toList();
    }

    /** Follows n1 as leader of {@code term}, having accepted heartbeat (term, 1). */
    private void followLeader(long term) {
        startThree(term);
        ctx.advanceMillis(1);
        deliver(N1, new Heartbeat(term, 1));
        ctx.takeSent();
    }

    /** Starts n2 at {@code term} and drives it to LEADER of term + 1 with n3's vote. */
    private void becomeLeader(long term) {
        startThree(term);
        fire("BACKOFF");
        deliver(N3, new ScoutingResponse(term + 1, true, term));
        deliver(N3, new ElectionResponse(term + 1));
        assertState(Role.LEADER, term + 1, N2);
        ctx.takeSent();
    }

    @Test
    void dormantToFollowerLoadsPersistedTermAndWaitsOneElectionTimeoutBeforeScouting() {
        startThree(7);

        assertState(Role.FOLLOWER, 7, null);
        assertReason(ChangeReason.STARTED);
        assertThat(ctx.deadline("BACKOFF"))
                .hasValueSatisfying(at -> assertThat(at).isBetween(ms(ET_MS + 10), ms(ET_MS + 100)));
        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void followerToScoutAsksForNextTermWithoutChangingItsOwn() {
        startThree(7);
        fire("BACKOFF");

        assertScouting(7);
        assertReason(ChangeReason.STARTED); // a scout is shown as a follower: nothing new to announce
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent())
                .containsExactlyInAnyOrder(new Sent(N1, new ScoutingRequest(8)), new Sent(N3, new ScoutingRequest(8)));
        assertThat(ctx.deadline("ROUND")).hasValue(ctx.nanoTime() + ms(100));
    }

    @Test
    void followerToScoutToCandidateSendsItsProposalsThenPersistsTheTermBeforeItBecomesCandidate() {
        startThree(7);
        fire("BACKOFF");
        ctx.takeSent();

        deliver(N1, new ScoutingResponse(8, true, 7));

        assertState(Role.CANDIDATE, 8, null);
        assertReason(ChangeReason.CAMPAIGNING);
        assertThat(ctx.persisted()).extracting(s -> s.get("term", -1)).containsExactly(8L);
        // The disk write overlaps the proposals' round trip; the candidacy (and the self-vote) follow the write.
        assertThat(ctx.sentBeforeLastPersist()).isEqualTo(2);
        assertThat(ctx.sent())
                .containsExactlyInAnyOrder(
                        new Sent(N1, new ElectionProposal(8)), new Sent(N3, new ElectionProposal(8)));
    }

    @Test
    void followerToScoutToCandidateToLeaderHeartbeatsAtOnceWithValidityFromTheProposal() {
        startThree(7);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(8, true, 7));
        long proposalSent = ctx.nanoTime();
        ctx.takeSent();
        ctx.advanceMillis(3);

        deliver(N3, new ElectionResponse(8));

        assertState(Role.LEADER, 8, N2);
        assertReason(ChangeReason.ELECTED);
        assertThat(ctx.validUntil()).isEqualTo(proposalSent + CONFIG.validityNanos());
        assertThat(ctx.sent())
                .containsExactlyInAnyOrder(new Sent(N1, new Heartbeat(8, 1)), new Sent(N3, new Heartbeat(8, 1)));
        assertThat(ctx.armed("HEARTBEAT")).isTrue();
        assertThat(ctx.deadline("VALIDITY")).hasValue(ctx.validUntil());
        assertThat(ctx.armed("ROUND")).isFalse();
    }

    @Test
    void scoutToFollowerWhenAMajorityRefusesWithoutWaitingForTheRoundTimeout() {
        startThree(7);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(8, false, 7));
        assertScouting(7);

        deliver(N3, new ScoutingResponse(8, false, 7));

        assertThat(elector.role).as("the elector's own role").isEqualTo(QuorumRole.FOLLOWER);
        assertState(Role.FOLLOWER, 7, null);
        assertReason(ChangeReason.STARTED); // shown as a follower throughout: the failed round announces nothing
        assertThat(ctx.armed("ROUND")).isFalse();
        assertThat(ctx.armed("BACKOFF")).isTrue();
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void scoutToFollowerOnRoundTimeoutThenScoutsAgainAtTheSameTerm() {
        startThree(7);
        fire("BACKOFF");
        fire("ROUND");

        assertThat(elector.role).as("the elector's own role").isEqualTo(QuorumRole.FOLLOWER);
        assertState(Role.FOLLOWER, 7, null);
        assertReason(ChangeReason.STARTED); // shown as a follower throughout: the failed round announces nothing
        ctx.takeSent();
        fire("BACKOFF");

        assertScouting(7);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new ScoutingRequest(8));
    }

    @Test
    void candidateToFollowerOnRoundTimeoutThenBackToScoutingNotToATermBump() {
        startThree(7);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(8, true, 7));
        fire("ROUND");

        assertState(Role.FOLLOWER, 8, null);
        assertReason(ChangeReason.ROUND_FAILED);
        ctx.takeSent();
        fire("BACKOFF");

        assertScouting(8);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new ScoutingRequest(9));
        assertThat(ctx.persisted()).extracting(s -> s.get("term", -1)).containsExactly(8L);
    }

    @Test
    void candidateToFollowerWhenTheDecidingVoteIsHandledAfterTheRoundDeadline() {
        startThree(7);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(8, true, 7));
        long deadline = ctx.deadline("ROUND").orElseThrow();
        ctx.takeSent();
        // Paused past the deadline: the vote is handled before the (queued) round timer.
        ctx.setNanos(deadline);

        deliver(N3, new ElectionResponse(8));

        assertState(Role.FOLLOWER, 8, null);
        assertReason(ChangeReason.ROUND_FAILED);
        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.armed("ROUND")).isFalse();
        assertThat(ctx.armed("BACKOFF")).isTrue();
    }

    @Test
    void scoutIgnoresAnswersHandledAfterTheRoundDeadline() {
        startThree(7);
        fire("BACKOFF");
        ctx.setNanos(ctx.deadline("ROUND").orElseThrow() + 1);

        deliver(N1, new ScoutingResponse(8, true, 7));

        assertState(Role.FOLLOWER, 7, null);
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void scoutToFollowerCatchesUpOnARejectionCarryingAHigherTerm() {
        startThree(3);
        fire("BACKOFF");

        deliver(N1, new ScoutingResponse(4, false, 9));

        assertState(Role.FOLLOWER, 9, null);
        assertReason(ChangeReason.HIGHER_EPOCH);
        assertThat(ctx.persisted()).extracting(s -> s.get("term", -1)).containsExactly(9L);
    }

    @Test
    void followerWithLiveLeaderRefusesScoutingAndChangesNothing() {
        followLeader(5);
        var before = ctx.announcements().size();

        deliver(N3, new ScoutingRequest(6));

        assertState(Role.FOLLOWER, 5, N1);
        assertThat(ctx.announcements()).hasSize(before);
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ScoutingResponse(6, false, 5)));
    }

    @Test
    void followerWithoutLeaderSaysYesToScoutingAndStillChangesNothing() {
        startThree(5);
        ctx.advanceMillis(ET_MS);

        deliver(N3, new ScoutingRequest(6));

        assertState(Role.FOLLOWER, 5, null);
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ScoutingResponse(6, true, 5)));
    }

    @Test
    void lowerTermScoutGetsARejectionCarryingTheReceiversTerm() {
        startThree(9);
        ctx.advanceMillis(ET_MS);

        deliver(N3, new ScoutingRequest(4));

        assertState(Role.FOLLOWER, 9, null);
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ScoutingResponse(4, false, 9)));
    }

    @Test
    void followerVotesForAHigherTermPersistingItBeforeTheVoteLeaves() {
        startThree(5);
        ctx.advanceMillis(ET_MS);

        deliver(N3, new ElectionProposal(6));

        assertState(Role.FOLLOWER, 6, null);
        assertThat(ctx.persisted()).extracting(s -> s.get("term", -1)).containsExactly(6L);
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ElectionResponse(6)));
    }

    @Test
    void followerVotesAtMostOncePerTerm() {
        startThree(5);
        ctx.advanceMillis(ET_MS);
        deliver(N3, new ElectionProposal(6));
        ctx.takeSent();

        deliver(N1, new ElectionProposal(6));
        deliver(N3, new ElectionProposal(6));

        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).hasSize(1);
    }

    @Test
    void followerThatVotedSupportsNoOtherCandidateWithinAnElectionTimeout() {
        startThree(5);
        ctx.advanceMillis(ET_MS);
        deliver(N3, new ElectionProposal(6));
        ctx.takeSent();

        ctx.advanceMillis(ET_MS - 1);
        deliver(N1, new ElectionProposal(7));
        assertThat(ctx.sent()).isEmpty();
        assertState(Role.FOLLOWER, 6, null);

        ctx.advanceMillis(1);
        deliver(N1, new ElectionProposal(7));
        assertThat(ctx.sent()).containsExactly(new Sent(N1, new ElectionResponse(7)));
        assertState(Role.FOLLOWER, 7, null);
    }

    @Test
    void followerIgnoresAHigherTermProposalWhileItsLeaderIsLive() {
        followLeader(5);

        deliver(N3, new ElectionProposal(6));

        assertState(Role.FOLLOWER, 5, N1);
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void restartedFollowerSupportsNoCandidateForOneElectionTimeout() {
        startThree(5);

        ctx.advanceMillis(ET_MS - 1);
        deliver(N3, new ScoutingRequest(6));
        deliver(N3, new ElectionProposal(6));
        assertThat(ctx.takeSent()).containsExactly(new Sent(N3, new ScoutingResponse(6, false, 5)));

        ctx.advanceMillis(1);
        deliver(N3, new ElectionProposal(6));
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ElectionResponse(6)));
    }

    @Test
    void followerToLeaderlessAfterMissedHeartbeatsThenBacksOffBeforeScouting() {
        followLeader(5);
        assertThat(ctx.deadline("LEADER_TIMEOUT")).hasValue(ctx.nanoTime() + ms(ET_MS));

        fire("LEADER_TIMEOUT");

        assertState(Role.FOLLOWER, 5, null);
        assertReason(ChangeReason.LEADER_TIMEOUT);
        assertThat(ctx.deadline("BACKOFF"))
                .hasValueSatisfying(at -> assertThat(at - ctx.nanoTime()).isBetween(ms(10), ms(100)));
        // The leader is forgotten before the backoff: a peer's scouting is already answered with yes.
        deliver(N3, new ScoutingRequest(6));
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ScoutingResponse(6, true, 5)));
    }

    @Test
    void followersTakeTurnsToScoutAfterLosingTheLeader_inIdOrderWithoutTheLostLeader() {
        // n2 ranks first among {n2, n3} once n1 is lost: its wait lies in the first half of the first slot.
        followLeader(5);
        gone(N1);
        long slot = ms(90) / 2;
        assertThat(ctx.deadline("BACKOFF"))
                .hasValueSatisfying(at -> assertThat(at - ctx.nanoTime()).isBetween(ms(10), ms(10) + slot / 2));

        // n3 ranks second: a whole slot later.
        ctx = new ScriptedContext(N3, List.of(N1, N2, N3), 7);
        ctx.storeState(StoredState.EMPTY.with("term", 5));
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
        ctx.advanceMillis(1);
        deliver(N1, new Heartbeat(5, 1));
        gone(N1);
        assertThat(ctx.deadline("BACKOFF")).hasValueSatisfying(at -> assertThat(at - ctx.nanoTime())
                .isBetween(ms(10) + slot, ms(10) + slot + slot / 2));
    }

    @Test
    void heartbeatsKeepTheLeaderAliveAndEachIsAcknowledged() {
        followLeader(5);
        ctx.advanceMillis(100);
        deliver(N1, new Heartbeat(5, 2));

        assertThat(ctx.sent()).containsExactly(new Sent(N1, new HeartbeatResponse(5, 2)));
        assertThat(ctx.deadline("LEADER_TIMEOUT")).hasValue(ctx.nanoTime() + ms(ET_MS));
        assertState(Role.FOLLOWER, 5, N1);
    }

    @Test
    void followerToLeaderlessAtOnceWhenTheLeaderIsGone_andMaySupportACandidateImmediately() {
        followLeader(5);

        gone(N1);

        assertState(Role.FOLLOWER, 5, null);
        assertReason(ChangeReason.LEADER_DISCONNECTED);
        deliver(N3, new ElectionProposal(6));
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ElectionResponse(6)));
    }

    @Test
    void disconnectOfANonLeaderPeerKeepsTheFence() {
        followLeader(5);
        elector.onPeerDisconnected(N3);

        assertState(Role.FOLLOWER, 5, N1);
        fire("LEADER_TIMEOUT");
        ctx.setNanos(ctx.nanoTime() - 1);
        deliver(N3, new ElectionProposal(6));
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void followerToCandidateOnCession_namedSuccessorProposesAtOnceWithoutScouting() {
        followLeader(5);

        deliver(N1, new LeadershipCession(5, Optional.of(N2)));

        assertState(Role.CANDIDATE, 6, null);
        assertThat(ctx.announcements())
                .extracting(ScriptedContext.Announced::reason)
                .contains(ChangeReason.LEADER_CEDED);
        assertThat(ctx.persisted()).extracting(st -> st.get("term", -1)).containsExactly(6L);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new ElectionProposal(6, Optional.of(N1)));
    }

    @Test
    void followerToLeaderlessOnCession_othersBackOffButSupportTheSuccessorAtOnce() {
        followLeader(5);

        deliver(N1, new LeadershipCession(5, Optional.of(N3)));

        assertState(Role.FOLLOWER, 5, null);
        assertReason(ChangeReason.LEADER_CEDED);
        assertThat(ctx.armed("BACKOFF")).isTrue();
        deliver(N3, new ScoutingRequest(6));
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ScoutingResponse(6, true, 5)));
    }

    @Test
    void followerStillFollowingTheCedingLeaderVotesForTheSuccessorsTransferProposal() {
        followLeader(5);

        // The successor's proposal overtook the cession.
        deliver(N3, new ElectionProposal(6, Optional.of(N1)));

        assertState(Role.FOLLOWER, 6, null);
        assertThat(ctx.announcements())
                .extracting(ScriptedContext.Announced::reason)
                .contains(ChangeReason.LEADER_CEDED);
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ElectionResponse(6)));
    }

    @Test
    void transferProposalNamingAnotherLeaderDoesNotDeposeMine() {
        followLeader(5);

        deliver(N3, new ElectionProposal(6, Optional.of(N3)));

        assertState(Role.FOLLOWER, 5, N1);
        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void staleOrDuplicatedHeartbeatIsDroppedByItsSequenceNumber() {
        followLeader(5);
        deliver(N1, new Heartbeat(5, 3));
        ctx.takeSent();

        deliver(N1, new Heartbeat(5, 3));
        deliver(N1, new Heartbeat(5, 2));

        assertThat(ctx.sent()).isEmpty();
        deliver(N1, new Heartbeat(5, 4));
        assertThat(ctx.sent()).containsExactly(new Sent(N1, new HeartbeatResponse(5, 4)));
    }

    @Test
    void followerAdoptsAHigherTermHeartbeatAndAcknowledgesIt() {
        followLeader(5);

        deliver(N3, new Heartbeat(7, 1));

        assertState(Role.FOLLOWER, 7, N3);
        assertThat(ctx.persisted()).extracting(s -> s.get("term", -1)).containsExactly(7L);
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new HeartbeatResponse(7, 1)));
    }

    @Test
    void lowerTermHeartbeatIsAnsweredWithTheReceiversTerm() {
        followLeader(5);

        deliver(N3, new Heartbeat(4, 10));

        assertState(Role.FOLLOWER, 5, N1);
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new HeartbeatResponse(5, 10)));
    }

    @Test
    void candidateToFollowerOnASameTermHeartbeat() {
        startThree(7);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(8, true, 7));
        ctx.takeSent();

        deliver(N3, new Heartbeat(8, 1));

        assertState(Role.FOLLOWER, 8, N3);
        assertThat(ctx.armed("ROUND")).isFalse();
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new HeartbeatResponse(8, 1)));
    }

    @Test
    void leaderValidityFollowsTheLatestRoundAMajorityConfirmed() {
        becomeLeader(7);
        long round1 = ctx.nanoTime();
        ctx.advanceMillis(100);
        fire("HEARTBEAT");
        long round2 = ctx.nanoTime();
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new Heartbeat(8, 2));

        deliver(N1, new HeartbeatResponse(8, 1));
        assertThat(ctx.validUntil()).isEqualTo(round1 + CONFIG.validityNanos());
        deliver(N3, new HeartbeatResponse(8, 2));
        assertThat(ctx.validUntil()).isEqualTo(round2 + CONFIG.validityNanos());
        assertThat(ctx.deadline("VALIDITY")).hasValue(round2 + CONFIG.validityNanos());
    }

    @Test
    void leaderToFollowerWhenNoMajorityConfirmsWithinItsValidity_thenHoldsDown() {
        becomeLeader(7);
        for (int i = 0; i < 3; i++) {
            ctx.advanceMillis(100);
            fire("HEARTBEAT");
        }
        ctx.takeSent();

        fire("VALIDITY");

        assertState(Role.FOLLOWER, 8, null);
        assertReason(ChangeReason.LOST_QUORUM);
        assertThat(ctx.sent())
                .containsExactlyInAnyOrder(
                        new Sent(N1, new LeadershipCession(8, Optional.empty())),
                        new Sent(N3, new LeadershipCession(8, Optional.empty())));
        assertThat(ctx.armed("HEARTBEAT")).isFalse();
        long steppedDown = ctx.nanoTime();
        ctx.takeSent();
        fire("BACKOFF");
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.deadline("BACKOFF"))
                .hasValueSatisfying(at -> assertThat(at).isGreaterThanOrEqualTo(steppedDown + ms(400)));
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void leaderToFollowerWithoutAHeartbeatWhenItsTimerFiresAfterValidityLapsed() {
        becomeLeader(7);
        ctx.setNanos(ctx.validUntil());
        ctx.cancel(() -> "VALIDITY");
        elector.onTimer(ctx.fire("HEARTBEAT"));

        assertState(Role.FOLLOWER, 8, null);
        assertReason(ChangeReason.LOST_QUORUM);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new LeadershipCession(8, Optional.empty()));
    }

    @Test
    void leaderToFollowerAtOnceWhenAMajorityIsGone() {
        becomeLeader(7);
        deliver(N3, new HeartbeatResponse(8, 1));
        long before = ctx.validUntil();

        gone(N1);
        assertState(Role.LEADER, 8, N2);
        assertThat(ctx.validUntil()).isEqualTo(before);

        gone(N3);
        assertState(Role.FOLLOWER, 8, null);
        assertReason(ChangeReason.LOST_QUORUM);
        assertThat(ctx.validUntil()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void leaderToFollowerOnAHeartbeatResponseCarryingAHigherTerm() {
        becomeLeader(7);

        deliver(N1, new HeartbeatResponse(11, 1));

        assertThat(ctx.announcements()).extracting(a -> a.state().role()).endsWith(Role.FOLLOWER);
        assertState(Role.FOLLOWER, 11, null);
        assertThat(ctx.announcements().get(ctx.announcements().size() - 2).state())
                .as("revocation announced in the old term first")
                .satisfies(s -> {
                    assertThat(s.role()).isEqualTo(Role.FOLLOWER);
                    assertThat(s.epoch()).isEqualTo(8);
                });
        assertThat(ctx.sent()).extracting(Sent::message).contains(new LeadershipCession(8, Optional.empty()));
    }

    @Test
    void leaderIgnoresHigherTermScoutingAndProposalsFromARejoiningNode() {
        becomeLeader(7);

        deliver(N3, new ScoutingRequest(20));
        deliver(N3, new ElectionProposal(20));

        assertState(Role.LEADER, 8, N2);
        assertThat(ctx.sent()).containsExactly(new Sent(N3, new ScoutingResponse(20, false, 8)));
    }

    @Test
    void leaderStopRevokesFirstThenCedesToTheMostRecentlyConfirmingPeer() {
        becomeLeader(7);
        ctx.advanceMillis(100);
        fire("HEARTBEAT");
        deliver(N3, new HeartbeatResponse(8, 1));
        deliver(N1, new HeartbeatResponse(8, 2));
        ctx.takeSent();

        elector.stop();

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertReason(ChangeReason.STOPPED);
        assertThat(ctx.sent())
                .containsExactlyInAnyOrder(
                        new Sent(N1, new LeadershipCession(8, Optional.of(N1))),
                        new Sent(N3, new LeadershipCession(8, Optional.of(N1))));
        ctx.takeSent();
        deliver(N3, new ScoutingRequest(9));
        assertThat(ctx.sent()).isEmpty();
    }

    /** n2 leads term 8; n3 confirmed round 1 and n1 round 2, so n1 is the best successor. */
    private void leadWithN1MostRecent() {
        becomeLeader(7);
        ctx.advanceMillis(100);
        fire("HEARTBEAT");
        deliver(N3, new HeartbeatResponse(8, 1));
        deliver(N1, new HeartbeatResponse(8, 2));
        ctx.takeSent();
    }

    /** As {@link #leadWithN1MostRecent}, then asked to stop: it has asked n1 to take over. */
    private void handingOverToN1() {
        leadWithN1MostRecent();
        elector.beginStop();
        ctx.takeSent();
    }

    /** Follows n1 in term 5; n1 asked it to take over, and n3's vote gave it a majority for term 6. */
    private void successorWithItsMajority() {
        followLeader(5);
        deliver(N1, new HandoverRequest(5));
        deliver(N3, new ElectionResponse(6));
    }

    @Test
    void leaderBeginStopAsksTheMostRecentlyConfirmingPeerToTakeOverAndLeadsOnWithoutHeartbeats() {
        leadWithN1MostRecent();

        assertThat(elector.beginStop()).isTrue();

        assertState(Role.LEADER, 8, N2);
        assertThat(ctx.sent()).containsExactly(new Sent(N1, new HandoverRequest(8)));
        assertThat(ctx.armed("HEARTBEAT"))
                .as("no heartbeat: voters at term 9 would answer it")
                .isFalse();
        assertThat(ctx.armed("HANDOVER")).isTrue();
        assertThat(elector.beginStop()).as("already handing over").isTrue();
        assertThat(ctx.sent()).hasSize(1);
    }

    @Test
    void handingOverLeaderRevokesThenCedesToTheSuccessorFirstWhenItReportsAMajority() {
        handingOverToN1();

        deliver(N1, new HandoverReady(8));

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertReason(ChangeReason.STOPPED);
        assertThat(ctx.sent())
                .containsExactly(
                        new Sent(N1, new LeadershipCession(8, Optional.of(N1))),
                        new Sent(N3, new LeadershipCession(8, Optional.of(N1))));
        ctx.takeSent();
        elector.stop();
        deliver(N3, new ScoutingRequest(9));
        assertThat(ctx.sent()).as("stopped: it handles nothing more").isEmpty();
    }

    @Test
    void handingOverLeaderIgnoresReadinessFromAnotherPeerOrForAnotherTerm() {
        handingOverToN1();

        deliver(N3, new HandoverReady(8));
        deliver(N1, new HandoverReady(7));

        assertState(Role.LEADER, 8, N2);
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void handingOverLeaderCedesOnItsDeadlineWhenTheSuccessorDoesNotReport() {
        handingOverToN1();

        fire("HANDOVER");

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new LeadershipCession(8, Optional.of(N1)));
    }

    @Test
    void handingOverLeaderWhoseSuccessorDisconnectsCedesAtOnceNamingAnother() {
        handingOverToN1();

        elector.onPeerDisconnected(N1);

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new LeadershipCession(8, Optional.of(N3)));
    }

    @Test
    void handingOverLeaderToldOfAHigherTermCedesToItsSuccessorAndStops() {
        handingOverToN1();

        // A voter that already voted for the successor at term 9 answers a heartbeat that was in flight.
        deliver(N3, new HeartbeatResponse(9, 2));

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertThat(ctx.lastAnnouncement().state().role())
                .as("not a follower of the new term")
                .isEqualTo(Role.DORMANT);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new LeadershipCession(8, Optional.of(N1)));
    }

    @Test
    void beginStopOfAFollowerHasNothingToWaitFor() {
        followLeader(5);

        assertThat(elector.beginStop()).isFalse();

        assertState(Role.FOLLOWER, 5, N1);
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void followerAskedByItsLeaderProposesAtOnceButLeadsOnlyOnceThatLeaderCedes() {
        followLeader(5);
        long proposed = ctx.nanoTime();

        deliver(N1, new HandoverRequest(5));

        assertState(Role.CANDIDATE, 6, null);
        assertThat(ctx.persisted()).extracting(st -> st.get("term", -1)).containsExactly(6L);
        assertThat(ctx.takeSent())
                .containsExactlyInAnyOrder(
                        new Sent(N1, new ElectionProposal(6, Optional.of(N1))),
                        new Sent(N3, new ElectionProposal(6, Optional.of(N1))));

        deliver(N3, new ElectionResponse(6));

        assertState(Role.CANDIDATE, 6, null);
        assertThat(ctx.takeSent()).containsExactly(new Sent(N1, new HandoverReady(5)));

        ctx.advanceMillis(2);
        deliver(N1, new LeadershipCession(5, Optional.of(N2)));

        assertState(Role.LEADER, 6, N2);
        assertReason(ChangeReason.ELECTED);
        assertThat(ctx.validUntil()).as("validity from the proposal").isEqualTo(proposed + CONFIG.validityNanos());
        assertThat(ctx.sent()).extracting(Sent::message).contains(new Heartbeat(6, 1));
    }

    @Test
    void successorWhoseCessionArrivesBeforeTheVotesLeadsOnTheMajority() {
        followLeader(5);
        deliver(N1, new HandoverRequest(5));
        ctx.takeSent();

        deliver(N1, new LeadershipCession(5, Optional.of(N2)));
        assertState(Role.CANDIDATE, 6, null);
        deliver(N3, new ElectionResponse(6));

        assertState(Role.LEADER, 6, N2);
        assertThat(ctx.sent()).extracting(Sent::message).doesNotContain(new HandoverReady(5));
    }

    @Test
    void successorWithoutTheCessionGivesUpAtTheRoundDeadlineAndALateCessionChangesNothing() {
        successorWithItsMajority();

        fire("ROUND");
        assertState(Role.FOLLOWER, 6, null);
        assertReason(ChangeReason.ROUND_FAILED);

        deliver(N1, new LeadershipCession(5, Optional.of(N2)));
        assertState(Role.FOLLOWER, 6, null);
    }

    @Test
    void successorWithItsMajorityWaitsBeyondTheProposalTimeoutForASlowCession() {
        successorWithItsMajority();

        // The old leader's listeners are slow to hear of its revocation; the votes are still good.
        ctx.advanceMillis(CONFIG.proposalTimeout().toMillis() + 50);
        deliver(N1, new LeadershipCession(5, Optional.of(N2)));

        assertState(Role.LEADER, 6, N2);
    }

    @Test
    void successorWithItsMajorityTakesTheAwaitedLeadersDepartureAsItsCession() {
        successorWithItsMajority();

        gone(N1);

        assertState(Role.LEADER, 6, N2);
    }

    @Test
    void handoverRequestFromANonLeaderOrForAnotherTermIsIgnored() {
        followLeader(5);

        deliver(N3, new HandoverRequest(5));
        deliver(N1, new HandoverRequest(4));

        assertState(Role.FOLLOWER, 5, N1);
        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void voterInAHandoverKeepsAFenceThatNeitherTheOldLeaderNorTheSuccessorCanLift() {
        followLeader(5);
        deliver(N3, new ElectionProposal(6, Optional.of(N1)));
        ctx.takeSent();

        // Whatever disconnects, goes or cedes, the old leader may still be valid on this member's confirmation.
        gone(N3);
        gone(N1);
        deliver(N1, new LeadershipCession(5, Optional.of(N3)));
        deliver(N1, new ScoutingRequest(7));

        assertThat(ctx.takeSent()).containsExactly(new Sent(N1, new ScoutingResponse(7, false, 6)));
        ctx.advanceMillis(ET_MS);
        deliver(N1, new ScoutingRequest(7));
        assertThat(ctx.sent()).containsExactly(new Sent(N1, new ScoutingResponse(7, true, 6)));
    }

    @Test
    void scoutWhosePersistFailsStaysOutOfTheCandidacyItProposed() {
        startThree(7);
        fire("BACKOFF");
        ctx.takeSent();
        ctx.failPersistWith(new StateStoreException("disk full"));

        assertThatThrownBy(() -> deliver(N1, new ScoutingResponse(8, true, 7))).isInstanceOf(StateStoreException.class);

        // The proposals went out, but this member neither took the term nor became a candidate: the votes it may
        // get can make nobody leader.
        assertThat(elector.term()).isEqualTo(7);
        assertThat(elector.state().role()).isNotEqualTo(Role.CANDIDATE);
        assertThat(ctx.announcements()).noneMatch(a -> a.state().role() == Role.CANDIDATE);
    }

    @Test
    void failedPersistSendsNoVoteAndKeepsTheTerm() {
        startThree(5);
        ctx.advanceMillis(ET_MS);
        ctx.failPersistWith(new StateStoreException("disk full"));

        assertThatThrownBy(() -> deliver(N3, new ElectionProposal(6))).isInstanceOf(StateStoreException.class);

        assertThat(elector.term()).isEqualTo(5);
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void messagesFromNonMembersChangeNothing() {
        startThree(5);
        ctx.advanceMillis(ET_MS);

        deliver(NodeId.of("stranger"), new ElectionProposal(6));
        deliver(NodeId.of("stranger"), new Heartbeat(9, 1));

        assertState(Role.FOLLOWER, 5, null);
        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void singleMemberElectsItselfAfterTheStartupFence() {
        start(List.of(N2), 0);
        fire("BACKOFF");

        assertState(Role.LEADER, 1, N2);
        assertThat(ctx.validUntil()).isGreaterThan(ctx.nanoTime());
        ctx.advanceMillis(100);
        fire("HEARTBEAT");
        assertThat(ctx.validUntil()).isEqualTo(ctx.nanoTime() + CONFIG.validityNanos());
    }

    @Test
    void fiveMemberLeaderStaysValidWithTwoOfFourConfirmations() {
        start(List.of(N1, N2, N3, N4, N5), 0);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(1, true, 0));
        deliver(N3, new ScoutingResponse(1, true, 0));
        deliver(N1, new ElectionResponse(1));
        assertState(Role.CANDIDATE, 1, null);
        deliver(N3, new ElectionResponse(1));
        assertState(Role.LEADER, 1, N2);

        ctx.advanceMillis(100);
        fire("HEARTBEAT");
        long round2 = ctx.nanoTime();
        deliver(N4, new HeartbeatResponse(1, 2));
        deliver(N5, new HeartbeatResponse(1, 2));

        assertThat(ctx.validUntil()).isEqualTo(round2 + CONFIG.validityNanos());
        gone(N4);
        assertState(Role.LEADER, 1, N2);
        assertThat(ctx.validUntil()).isLessThan(round2 + CONFIG.validityNanos());
    }

    @Test
    void candidateDropsTheVoteOfAPeerThatIsGone() {
        start(List.of(N1, N2, N3, N4, N5), 0);
        fire("BACKOFF");
        deliver(N1, new ScoutingResponse(1, true, 0));
        deliver(N3, new ScoutingResponse(1, true, 0));
        deliver(N1, new ElectionResponse(1));
        gone(N1);
        deliver(N3, new ElectionResponse(1));

        assertState(Role.CANDIDATE, 1, null);
        deliver(N4, new ElectionResponse(1));
        assertState(Role.LEADER, 1, N2);
    }

    private static long ms(long millis) {
        return millis * 1_000_000;
    }
}
