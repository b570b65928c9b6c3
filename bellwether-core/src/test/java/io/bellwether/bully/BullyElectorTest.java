package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Ack;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.bully.BullyMessage.HeartbeatAck;
import io.bellwether.bully.BullyMessage.Ok;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.bully.BullyMessage.Resign;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.RankedElectorTestBase;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.elector.StoredState;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Drives one bully elector through each transition with a scripted context and checks role, epoch, leader,
 * reason and effects after every event. Test names follow the transition path they drive. Members are n1 < n2
 * < n3; epochs are written {@code e(counter, rank)} with ranks n1 = 0, n2 = 1, n3 = 2.
 */
class BullyElectorTest extends RankedElectorTestBase<BullyElector> {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3);
    private static final BullyConfig CONFIG = BullyConfig.defaults();
    private static final long T_MS = CONFIG.answerTimeout().toMillis();

    BullyElectorTest() {
        super(BullyElector.class);
    }

    private void start(NodeId self, long storedEpoch, BullyConfig config) {
        startElector(self, MEMBERS, 7, storedEpoch, config);
    }

    private void start(NodeId self, long storedEpoch) {
        start(self, storedEpoch, CONFIG);
    }

    private static long ms(long millis) {
        return millis * 1_000_000;
    }

    /** Starts n2 following n3 at e(3, 2). */
    private void followN3() {
        start(N2, e(2, 2));
        deliver(N3, new Heartbeat(e(3, 2), id()));
        assertState(Role.FOLLOWER, e(3, 2), N3);
        ctx.takeSent();
    }

    /** Starts n3 (the highest) and lets it elect itself at e(counter + 1, 2). */
    private void leadAsN3(long storedEpoch) {
        start(N3, storedEpoch);
        fire("DISCOVERY");
        ctx.takeSent();
    }

    @Test
    void dormantToFollowerLoadsTheEpochAndAsksWhoCoordinates() {
        start(N2, e(4, 0));

        assertState(Role.FOLLOWER, e(4, 0), null);
        assertReason(ChangeReason.STARTED);
        assertThat(ctx.sent()).extracting(Sent::to).containsExactly(N1, N3);
        assertThat(ctx.sent()).extracting(s -> s.message().type()).containsOnly("Query");
        assertThat(ctx.deadline("DISCOVERY")).hasValue(ms(T_MS));
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void followerToCandidateWhenNoCoordinatorAnswersSendsElectionToHigherMembersOnly() {
        start(N2, 0);
        ctx.takeSent();
        fire("DISCOVERY");

        assertState(Role.CANDIDATE, 0, null);
        assertReason(ChangeReason.CAMPAIGNING);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).to()).isEqualTo(N3);
        assertThat(sent.get(0).message()).isInstanceOf(Election.class);
        assertThat(ctx.deadline("ANSWER")).hasValue(ctx.nanoTime() + ms(T_MS));
    }

    @Test
    void candidateToLeaderWithoutAnOkPersistsTheNewEpochBeforeAnnouncing() {
        start(N2, e(4, 0));
        fire("DISCOVERY");
        ctx.takeSent();
        fire("ANSWER");

        assertState(Role.LEADER, e(5, 1), N2);
        assertReason(ChangeReason.ELECTED);
        assertThat(ctx.persisted())
                .containsExactly(
                        StoredState.EMPTY.with(BullyElector.COUNTER_KEY, 5).with(BullyElector.EPOCH_KEY, e(5, 1)));
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        assertThat(ctx.sent()).extracting(Sent::to).containsExactly(N1, N3);
        assertThat(ctx.sent()).allSatisfy(s -> assertThat(s.message())
                .isInstanceOf(Coordinator.class)
                .extracting(m -> ((Coordinator) m).epoch())
                .isEqualTo(e(5, 1)));
        assertThat(ctx.validUntil())
                .isEqualTo(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
        assertThat(ctx.armed("HEARTBEAT")).isTrue();
    }

    @Test
    void highestMemberToLeaderAtOnceWithoutWaitingForAnswers() {
        leadAsN3(e(2, 0));

        assertState(Role.LEADER, e(3, 2), N3);
        assertThat(ctx.armed("ANSWER")).isFalse();
    }

    @Test
    void candidateToAwaitingCoordinatorOnOkThenRestartsWhenNoAnnouncementComes() {
        start(N2, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        Election election = (Election) ctx.takeSent().get(0).message();

        deliver(N3, new Ok(0, id(), election.messageId()));
        assertState(Role.CANDIDATE, 0, null);
        assertThat(ctx.armed("ANSWER")).isFalse();
        assertThat(ctx.deadline("COORDINATOR"))
                .hasValue(ctx.nanoTime() + CONFIG.coordinatorTimeout().toNanos());

        fire("COORDINATOR");
        List<Sent> again = ctx.takeSent();
        assertThat(again).hasSize(1);
        assertThat(again.get(0).message()).isInstanceOf(Election.class);
        assertThat(ctx.armed("ANSWER")).isTrue();
    }

    @Test
    void okThatAnswersNoElectionOfThisRoundIsIgnored() {
        start(N2, 0);
        fire("DISCOVERY");
        ctx.takeSent();

        deliver(N3, new Ok(0, id(), 424242));

        assertThat(ctx.armed("ANSWER")).isTrue();
        assertThat(ctx.armed("COORDINATOR")).isFalse();
    }

    @Test
    void candidateToFollowerOnCoordinatorFromHigherMemberPersistsAndAcknowledges() {
        start(N2, e(1, 0));
        fire("DISCOVERY");
        ctx.takeSent();
        Coordinator c = new Coordinator(e(2, 2), id());

        deliver(N3, c);

        assertState(Role.FOLLOWER, e(2, 2), N3);
        assertReason(ChangeReason.LEADER_DISCOVERED);
        assertThat(ctx.persisted()).last().satisfies(s -> assertThat(s.get(BullyElector.EPOCH_KEY, -1))
                .isEqualTo(e(2, 2)));
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).message()).isInstanceOf(Ack.class);
        assertThat(((Ack) sent.get(0).message()).ackOf()).isEqualTo(c.messageId());
        assertThat(((Ack) sent.get(0).message()).epoch()).isEqualTo(e(2, 2));
        assertThat(ctx.armed("ANSWER")).isFalse();
        assertThat(ctx.deadline("LEADER_TIMEOUT"))
                .hasValue(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
    }

    @Test
    void followerIgnoresAStaleEpochAndAnswersWithItsOwn() {
        followN3();

        deliver(N1, new Heartbeat(e(2, 0), id()));

        assertState(Role.FOLLOWER, e(3, 2), N3);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).hasSize(1);
        assertThat(((HeartbeatAck) sent.get(0).message()).epoch()).isEqualTo(e(3, 2));
    }

    @Test
    void leaderMessageWhoseEpochNamesSomeoneElseIsIgnored() {
        followN3();

        deliver(N1, new Coordinator(e(9, 2), id()));

        assertState(Role.FOLLOWER, e(3, 2), N3);
    }

    @Test
    void followerToCandidateWhenTheCoordinatorFallsSilent() {
        followN3();

        fire("LEADER_TIMEOUT");

        assertState(Role.CANDIDATE, e(3, 2), null);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_TIMEOUT);
        assertThat(ctx.takeSent()).extracting(Sent::to).containsExactly(N3);
    }

    @Test
    void followerToCandidateAtOnceWhenTheCoordinatorsConnectionCloses() {
        followN3();

        elector.onPeerDisconnected(N3);

        assertState(Role.CANDIDATE, e(3, 2), null);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_DISCONNECTED);
    }

    @Test
    void followerOfALiveCoordinatorAnswersALowerElectionWithoutStartingItsOwn() {
        followN3();

        deliver(N1, new Election(e(3, 2), id()));

        assertState(Role.FOLLOWER, e(3, 2), N3);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ok");
    }

    @Test
    void leaderAnswersALowerElectionWithOkAndItsAnnouncement() {
        leadAsN3(0);
        long epoch = elector.epoch();

        deliver(N1, new Election(0, id()));

        assertState(Role.LEADER, epoch, N3);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).extracting(s -> s.message().type()).containsExactly("Ok", "Coordinator");
        assertThat(sent).extracting(Sent::to).containsOnly(N1);
    }

    @Test
    void leaderAnswersAQueryWithAHeartbeat() {
        leadAsN3(0);

        deliver(N1, new Query(0, id()));

        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ack", "Heartbeat");
    }

    @Test
    void candidateAnswersAQueryWithAnAckOnly() {
        start(N2, 0);
        fire("DISCOVERY");
        ctx.takeSent();

        deliver(N1, new Query(0, id()));

        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ack");
    }

    @Test
    void singleMemberLeadsAtOnce() {
        ctx = new ScriptedContext(N1, List.of(N1), 7);
        elector = (BullyElector) CONFIG.create(ctx);
        elector.start();

        assertState(Role.LEADER, e(1, 0), N1);
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void leaderRenewsItsValidityWithEveryHeartbeatRound() {
        leadAsN3(0);
        ctx.advanceMillis(10);
        fire("HEARTBEAT");

        assertThat(ctx.validUntil())
                .isEqualTo(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Heartbeat");
    }

    @Test
    void leaderToFollowerWhenItsValidityLapsedWhileItStalledThenRejoins() {
        leadAsN3(0);
        ctx.setNanos(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos() + 1);

        fire("HEARTBEAT");

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertReason(ChangeReason.LEASE_NOT_RENEWED);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Query");
    }

    @Test
    void recoveringHigherMemberFollowsALowerCoordinatorDuringTheHoldDownThenPreempts() {
        start(N3, e(2, 2));
        ctx.takeSent();
        deliver(N2, new Heartbeat(e(4, 1), id()));
        assertState(Role.FOLLOWER, e(4, 1), N2);
        assertThat(ctx.deadline("PREEMPT")).hasValue(CONFIG.preemptionHoldDown().toNanos());

        fire("PREEMPT");

        assertState(Role.LEADER, e(5, 2), N3);
        assertReason(ChangeReason.ELECTED);
    }

    @Test
    void withoutPreemptionAHigherMemberKeepsFollowingALowerCoordinator() {
        start(N3, 0, CONFIG.toBuilder().preemption(false).build());
        deliver(N2, new Heartbeat(e(4, 1), id()));

        assertState(Role.FOLLOWER, e(4, 1), N2);
        assertThat(ctx.armed("PREEMPT")).isFalse();
    }

    @Test
    void leaderAfterTheHoldDownBulliesALowerCoordinatorWithANewerEpoch() {
        leadAsN3(0);
        ctx.advanceMillis(CONFIG.preemptionHoldDown().toMillis());
        deliver(N2, new Heartbeat(e(7, 1), id()));

        assertState(Role.LEADER, e(8, 2), N3);
        assertThat(ctx.takeSent())
                .filteredOn(s -> s.message() instanceof Coordinator)
                .extracting(Sent::to)
                .containsExactly(N1, N2);
    }

    @Test
    void followerOfALiveHigherCoordinatorIgnoresALowerMemberThatElectedItselfWhileCutOff() {
        start(N1, 0);
        deliver(N3, new Heartbeat(e(3, 2), id()));

        deliver(N2, new Coordinator(e(4, 1), id()));

        assertState(Role.FOLLOWER, e(3, 2), N3);
    }

    @Test
    void lowerLeaderToFollowerOnAHigherCoordinatorsNewerEpoch() {
        start(N2, e(4, 0));
        fire("DISCOVERY");
        fire("ANSWER");
        assertState(Role.LEADER, e(5, 1), N2);

        deliver(N3, new Coordinator(e(6, 2), id()));

        assertState(Role.FOLLOWER, e(6, 2), N3);
        assertReason(ChangeReason.HIGHER_EPOCH);
        assertThat(ctx.armed("HEARTBEAT")).isFalse();
    }

    @Test
    void duplicatesAreDroppedByFromAndMessageId() {
        followN3();
        Election election = new Election(0, id());

        deliver(N1, election);
        deliver(N1, election);

        assertThat(ctx.takeSent()).hasSize(1);
    }

    @Test
    void leaderToDormantResignsAfterRevokingAndFollowerElectsAtOnce() {
        leadAsN3(0);
        long epoch = elector.epoch();
        elector.stop();

        assertThat(elector.state())
                .isEqualTo(new io.bellwether.elector.ElectorState(Role.DORMANT, epoch, Optional.empty()));
        assertReason(ChangeReason.STOPPED);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Resign");

        followN3();
        deliver(N3, new Resign(e(3, 2), id()));
        assertState(Role.CANDIDATE, e(3, 2), null);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_CEDED);
    }

    @Test
    void restartedMemberNeverIssuesAnEpochItUsedBefore() {
        start(N2, 0);
        ctx.storeState(StoredState.EMPTY.with(BullyElector.COUNTER_KEY, 9).with(BullyElector.EPOCH_KEY, e(3, 2)));
        elector = (BullyElector) CONFIG.create(ctx);
        elector.start();
        fire("DISCOVERY");
        fire("ANSWER");

        assertState(Role.LEADER, e(10, 1), N2);
    }
}
