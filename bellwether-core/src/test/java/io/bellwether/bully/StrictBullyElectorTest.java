package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyElectorBase.Phase;
import io.bellwether.bully.BullyMessage.Accepted;
import io.bellwether.bully.BullyMessage.Ack;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Halt;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.bully.BullyMessage.NewCoordinator;
import io.bellwether.bully.BullyMessage.Ok;
import io.bellwether.bully.BullyMessage.Query;
import io.bellwether.bully.BullyMessage.Ready;
import io.bellwether.bully.BullyMessage.Refused;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.RankedElectorTestBase;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Drives one strict-mode bully elector through each transition with a scripted context and checks phase, role,
 * epoch, leader, reason and effects after every event. Test names follow the transition path they drive. Members
 * are n1 < n2 < n3; epochs are written {@code e(counter, rank)} with ranks n1 = 0, n2 = 1, n3 = 2.
 */
class StrictBullyElectorTest extends RankedElectorTestBase<StrictBullyElector> {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3);
    private static final BullyConfig CONFIG =
            BullyConfig.defaults().toBuilder().strict(true).build();
    private static final long T = CONFIG.answerTimeout().toNanos();
    private static final long T_PRIME = CONFIG.coordinatorTimeout().toNanos();

    StrictBullyElectorTest() {
        super(StrictBullyElector.class);
    }

    private void start(NodeId self, long storedEpoch, BullyConfig config) {
        startElector(self, MEMBERS, 7, storedEpoch, config);
    }

    private void start(NodeId self, long storedEpoch) {
        start(self, storedEpoch, CONFIG);
    }

    private void assertState(Phase phase, Role role, long epoch, NodeId leader) {
        assertThat(elector.phase()).as("phase").isEqualTo(phase);
        assertState(role, epoch, leader);
    }

    private static <M extends ElectorMessage> List<Sent> only(List<Sent> sent, Class<M> type) {
        return sent.stream().filter(s -> type.isInstance(s.message())).toList();
    }

    private static long idOf(Sent s) {
        return ((BullyMessage) s.message()).messageId();
    }

    private static long epochOf(Sent s) {
        return ((BullyMessage) s.message()).epoch();
    }

    /** Each recipient of a {@code type} message in {@code sent} answers it with Accepted. */
    private void acceptAll(List<Sent> sent, Class<? extends BullyMessage> type) {
        for (Sent s : only(sent, type)) {
            deliver(s.to(), new Accepted(0, id(), idOf(s)));
        }
    }

    /** The one answer (Accepted or Refused) sent in {@code sent}. */
    private static BullyMessage answer(List<Sent> sent) {
        List<Sent> answers = sent.stream()
                .filter(s -> s.message() instanceof Accepted || s.message() instanceof Refused)
                .toList();
        assertThat(answers).hasSize(1);
        return (BullyMessage) answers.get(0).message();
    }

    /** n3 (the highest) starts with {@code storedEpoch}, finds no coordinator and leads with both members. */
    private long leadAsN3(long storedEpoch) {
        start(N3, storedEpoch);
        ctx.takeSent();
        fire("DISCOVERY");
        acceptAll(ctx.takeSent(), Halt.class);
        acceptAll(ctx.takeSent(), NewCoordinator.class);
        ctx.takeSent();
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        return elector.epoch();
    }

    /** n2 starts with {@code storedEpoch} and is admitted by n3 at {@code epoch}. */
    private void followN3AsN2(long storedEpoch, long epoch) {
        start(N2, storedEpoch);
        ctx.takeSent();
        deliver(N3, new Halt(epoch, id()));
        deliver(N3, new NewCoordinator(epoch, id()));
        deliver(N3, new Ready(epoch, id()));
        assertState(Phase.IDLE, Role.FOLLOWER, epoch, N3);
        ctx.takeSent();
    }

    // ---- winner: Halt, NewCoordinator, Ready ----

    @Test
    void highestMemberToHaltingPersistsTheCounterThenHaltsTheLowerMembers() {
        start(N3, e(2, 0));
        ctx.takeSent();
        fire("DISCOVERY");

        assertState(Phase.HALTING, Role.CANDIDATE, e(2, 0), null);
        assertReason(ChangeReason.CAMPAIGNING);
        assertThat(ctx.persisted()).last().satisfies(s -> {
            assertThat(s.get(BullyElector.COUNTER_KEY, -1)).isEqualTo(3);
            assertThat(s.get(BullyElector.EPOCH_KEY, -1)).as("not adopted yet").isEqualTo(e(2, 0));
        });
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).extracting(Sent::to).containsExactly(N1, N2);
        assertThat(sent).allSatisfy(s -> assertThat(s.message()).isInstanceOf(Halt.class));
        assertThat(sent).extracting(StrictBullyElectorTest::epochOf).containsOnly(e(3, 2));
        assertThat(ctx.deadline("HALT_ANSWERS")).hasValue(ctx.nanoTime() + T);
    }

    @Test
    void haltingToInstallingWhenEveryLowerMemberAcceptedPersistsTheEpochBeforeNewCoordinator() {
        start(N3, e(2, 0));
        ctx.takeSent();
        fire("DISCOVERY");
        acceptAll(ctx.takeSent(), Halt.class);

        assertState(Phase.INSTALLING, Role.CANDIDATE, e(3, 2), null);
        assertThat(ctx.persisted()).last().satisfies(s -> assertThat(s.get(BullyElector.EPOCH_KEY, -1))
                .isEqualTo(e(3, 2)));
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).extracting(Sent::to).containsExactlyInAnyOrder(N1, N2);
        assertThat(sent).allSatisfy(s -> assertThat(s.message()).isInstanceOf(NewCoordinator.class));
        assertThat(ctx.armed("HALT_ANSWERS")).isFalse();
        assertThat(ctx.deadline("INSTALL_ANSWERS")).hasValue(ctx.nanoTime() + T);
    }

    @Test
    void installingToLeaderSendsReadyToTheGroupBeforeItAnnouncesLeader() {
        start(N3, e(2, 0));
        ctx.takeSent();
        fire("DISCOVERY");
        acceptAll(ctx.takeSent(), Halt.class);
        acceptAll(ctx.takeSent(), NewCoordinator.class);

        assertState(Phase.LEADING, Role.LEADER, e(3, 2), N3);
        assertReason(ChangeReason.ELECTED);
        List<Sent> sent = ctx.sent();
        assertThat(only(sent, Ready.class)).extracting(Sent::to).containsExactlyInAnyOrder(N1, N2);
        assertThat(ctx.sentBeforeLastAnnouncement())
                .as("Ready sent before LEADER")
                .isEqualTo(2);
        assertThat(ctx.validUntil())
                .isEqualTo(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
        assertThat(ctx.armed("HEARTBEAT")).isTrue();
        assertThat(ctx.armed("INSTALL_ANSWERS")).isFalse();
    }

    @Test
    void haltingToInstallingAfterTheAnswerTimeoutLeavesTheSilentMemberOut() {
        start(N3, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        List<Sent> halts = ctx.takeSent();
        acceptAll(halts.stream().filter(s -> s.to().equals(N2)).toList(), Halt.class);
        assertThat(elector.phase()).isEqualTo(Phase.HALTING);

        fire("HALT_ANSWERS");

        assertThat(elector.phase()).isEqualTo(Phase.INSTALLING);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).extracting(Sent::to).containsExactly(N2);
        acceptAll(sent, NewCoordinator.class);
        assertThat(only(ctx.takeSent(), Ready.class)).extracting(Sent::to).containsExactly(N2);
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
    }

    @Test
    void installingToLeaderAfterTheAnswerTimeoutSendsReadyOnlyToMembersThatAccepted() {
        start(N3, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        acceptAll(ctx.takeSent(), Halt.class);
        List<Sent> ncs = ctx.takeSent();
        acceptAll(ncs.stream().filter(s -> s.to().equals(N1)).toList(), NewCoordinator.class);

        fire("INSTALL_ANSWERS");

        assertThat(only(ctx.takeSent(), Ready.class)).extracting(Sent::to).containsExactly(N1);
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
    }

    @Test
    void haltingDoesNotWaitForAMemberWhoseConnectionClosed() {
        start(N3, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        List<Sent> halts = ctx.takeSent();
        acceptAll(halts.stream().filter(s -> s.to().equals(N2)).toList(), Halt.class);

        elector.onPeerDisconnected(N1);

        assertThat(elector.phase()).isEqualTo(Phase.INSTALLING);
        assertThat(ctx.takeSent()).extracting(Sent::to).containsExactly(N2);
    }

    @Test
    void answersToAnotherRoundOrFromAnotherMemberAreIgnored() {
        start(N3, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        List<Sent> halts = ctx.takeSent();
        Sent toN1 = only(halts, Halt.class).get(0);

        deliver(N2, new Accepted(0, id(), idOf(toN1)));
        deliver(N1, new Accepted(0, id(), 424242));

        assertThat(elector.phase()).isEqualTo(Phase.HALTING);
        assertThat(ctx.takeSent()).isEmpty();
    }

    @Test
    void haltRefusedAtANewerEpochHaltsAgainAboveIt() {
        start(N3, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        Sent toN1 = only(ctx.takeSent(), Halt.class).get(0);

        deliver(N1, new Refused(e(7, 1), id(), idOf(toN1)));

        assertState(Phase.HALTING, Role.CANDIDATE, 0, null);
        List<Sent> again = ctx.takeSent();
        assertThat(again).extracting(Sent::to).containsExactly(N1, N2);
        assertThat(again).extracting(StrictBullyElectorTest::epochOf).containsOnly(e(8, 2));
    }

    @Test
    void haltingToFollowerWhenAHigherMemberRefusesBecauseItIsAliveAfterAll() {
        start(N2, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        ctx.takeSent();
        fire("ANSWER");
        List<Sent> halts = ctx.takeSent();
        assertThat(halts)
                .extracting(Sent::to)
                .as("Halt goes to the higher member too")
                .containsExactly(N1, N3);
        Sent toN3 = halts.get(1);

        deliver(N3, new Refused(0, id(), idOf(toN3)));

        assertState(Phase.IDLE, Role.FOLLOWER, 0, null);
        assertReason(ChangeReason.ROUND_FAILED);
        assertThat(ctx.deadline("DISCOVERY")).hasValue(ctx.nanoTime() + T_PRIME);
    }

    @Test
    void haltingWaitsOnlyForTheLowerMembers() {
        start(N2, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        ctx.takeSent();
        fire("ANSWER");
        List<Sent> halts = ctx.takeSent();

        acceptAll(halts.stream().filter(s -> s.to().equals(N1)).toList(), Halt.class);

        assertThat(elector.phase()).isEqualTo(Phase.INSTALLING);
        assertThat(ctx.takeSent()).extracting(Sent::to).containsExactly(N1);
    }

    @Test
    void singleMemberLeadsAtOnce() {
        ctx = new ScriptedContext(N1, List.of(N1), 7);
        elector = (StrictBullyElector) CONFIG.create(ctx);
        elector.start();

        assertState(Phase.LEADING, Role.LEADER, e(1, 0), N1);
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void restartedMemberNeverIssuesAnEpochItUsedBeforeEvenForAnAbandonedReorganization() {
        start(N2, 0);
        fire("DISCOVERY");
        fire("ANSWER");
        Sent toN3 = only(ctx.takeSent(), Halt.class).stream()
                .filter(s -> s.to().equals(N3))
                .findFirst()
                .orElseThrow();
        assertThat(epochOf(toN3)).isEqualTo(e(1, 1));
        deliver(N3, new Refused(0, id(), idOf(toN3)));

        elector.stop();
        elector = (StrictBullyElector) CONFIG.create(ctx);
        elector.start();
        fire("DISCOVERY");
        fire("ANSWER");

        assertThat(only(ctx.takeSent(), Halt.class))
                .extracting(StrictBullyElectorTest::epochOf)
                .containsOnly(e(2, 1));
    }

    // ---- member: Halt, NewCoordinator, Ready ----

    @Test
    void followerToHaltedStopsNamingItsCoordinatorThenAccepts() {
        followN3AsN2(0, e(3, 2));
        Halt halt = new Halt(e(4, 2), id());

        deliver(N3, halt);

        assertState(Phase.HALTED, Role.FOLLOWER, e(3, 2), null);
        assertReason(ChangeReason.HALTED);
        Accepted accepted = (Accepted) answer(ctx.takeSent());
        assertThat(accepted.epoch()).isEqualTo(e(3, 2));
        assertThat(accepted.ackOf()).isEqualTo(halt.messageId());
        assertThat(ctx.persisted())
                .extracting(s -> s.get(BullyElector.EPOCH_KEY, -1))
                .doesNotContain(e(4, 2));
        assertThat(ctx.deadline("AWAIT_NEW_COORDINATOR")).hasValue(ctx.nanoTime() + T_PRIME);
        assertThat(ctx.armed("LEADER_TIMEOUT")).isFalse();
    }

    @Test
    void haltedToReorganizingPersistsTheEpochBeforeAcceptingAndStillNamesNoOne() {
        start(N2, e(2, 2));
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();
        NewCoordinator nc = new NewCoordinator(e(3, 2), id());

        deliver(N3, nc);

        assertState(Phase.REORGANIZING, Role.FOLLOWER, e(3, 2), null);
        assertThat(ctx.persisted()).last().satisfies(s -> assertThat(s.get(BullyElector.EPOCH_KEY, -1))
                .isEqualTo(e(3, 2)));
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        assertThat(((Accepted) answer(ctx.takeSent())).ackOf()).isEqualTo(nc.messageId());
        assertThat(ctx.armed("AWAIT_NEW_COORDINATOR")).isFalse();
        assertThat(ctx.deadline("AWAIT_READY")).hasValue(ctx.nanoTime() + T_PRIME);
    }

    @Test
    void reorganizingToFollowerNamesTheCoordinatorOnlyOnReady() {
        start(N2, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(1, 2), id()));
        deliver(N3, new NewCoordinator(e(1, 2), id()));
        ctx.takeSent();
        Ready ready = new Ready(e(1, 2), id());

        deliver(N3, ready);

        assertState(Phase.IDLE, Role.FOLLOWER, e(1, 2), N3);
        assertReason(ChangeReason.LEADER_DISCOVERED);
        assertThat(((Accepted) answer(ctx.takeSent())).ackOf()).isEqualTo(ready.messageId());
        assertThat(ctx.deadline("LEADER_TIMEOUT"))
                .hasValue(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
        assertThat(ctx.armed("AWAIT_READY")).isFalse();
    }

    @Test
    void leaderToHaltedRevokesItsLeadershipBeforeItAnswers() {
        start(N2, e(1, 0));
        fire("DISCOVERY");
        fire("ANSWER");
        acceptAll(ctx.takeSent(), Halt.class);
        acceptAll(ctx.takeSent(), NewCoordinator.class);
        assertState(Phase.LEADING, Role.LEADER, e(2, 1), N2);
        ctx.takeSent();

        deliver(N3, new Halt(e(3, 2), id()));

        assertState(Phase.HALTED, Role.FOLLOWER, e(2, 1), null);
        assertReason(ChangeReason.HALTED);
        assertThat(ctx.sentBeforeLastAnnouncement())
                .as("revoked before the answer")
                .isZero();
        assertThat(answer(ctx.takeSent())).isInstanceOf(Accepted.class);
        assertThat(ctx.armed("HEARTBEAT")).isFalse();
        assertThat(ctx.armed("VALIDITY")).isFalse();
    }

    @Test
    void haltAtAStaleEpochIsRefusedWithTheMembersEpoch() {
        followN3AsN2(0, e(5, 2));

        deliver(N3, new Halt(e(4, 2), id()));

        assertState(Phase.IDLE, Role.FOLLOWER, e(5, 2), N3);
        assertThat(answer(ctx.takeSent()))
                .isInstanceOf(Refused.class)
                .extracting(BullyMessage::epoch)
                .isEqualTo(e(5, 2));
    }

    @Test
    void haltWhoseEpochDoesNotNameTheSenderIsRefused() {
        start(N1, 0);
        ctx.takeSent();

        deliver(N2, new Halt(e(4, 2), id()));

        assertThat(elector.phase()).isEqualTo(Phase.IDLE);
        assertThat(answer(ctx.takeSent())).isInstanceOf(Refused.class);
    }

    @Test
    void haltFromAMemberLowerThanTheLiveCoordinatorIsRefused() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        deliver(N3, new NewCoordinator(e(3, 2), id()));
        deliver(N3, new Ready(e(3, 2), id()));
        ctx.takeSent();

        deliver(N2, new Halt(e(4, 1), id()));

        assertState(Phase.IDLE, Role.FOLLOWER, e(3, 2), N3);
        assertThat(answer(ctx.takeSent())).isInstanceOf(Refused.class);
    }

    @Test
    void haltFromAMemberLowerThanTheWinnerHaltingUsIsRefused() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();

        deliver(N2, new Halt(e(4, 1), id()));

        assertThat(elector.phase()).isEqualTo(Phase.HALTED);
        assertThat(answer(ctx.takeSent())).isInstanceOf(Refused.class);
        deliver(N3, new NewCoordinator(e(3, 2), id()));
        assertThat(elector.phase()).isEqualTo(Phase.REORGANIZING);
    }

    @Test
    void haltedMemberFollowsAHigherWinnerThatHaltsItNext() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N2, new Halt(e(3, 1), id()));
        ctx.takeSent();

        deliver(N3, new Halt(e(4, 2), id()));

        assertThat(elector.phase()).isEqualTo(Phase.HALTED);
        assertThat(answer(ctx.takeSent())).isInstanceOf(Accepted.class);
        deliver(N2, new NewCoordinator(e(3, 1), id()));
        assertThat(answer(ctx.takeSent()))
                .as("the lower winner's NewCoordinator")
                .isInstanceOf(Refused.class);
    }

    @Test
    void leaderAfterTheHoldDownRefusesALowerMembersHaltAndReorganizesAboveIt() {
        leadAsN3(0);
        ctx.advanceMillis(CONFIG.preemptionHoldDown().toMillis());

        deliver(N2, new Halt(e(5, 1), id()));

        List<Sent> sent = ctx.takeSent();
        assertThat(answer(sent)).isInstanceOf(Refused.class);
        assertState(Phase.HALTING, Role.CANDIDATE, e(1, 2), null);
        assertThat(only(sent, Halt.class))
                .extracting(StrictBullyElectorTest::epochOf)
                .containsOnly(e(6, 2));
    }

    @Test
    void recoveringHigherMemberAcceptsALowerCoordinatorsHaltDuringTheHoldDownThenPreempts() {
        start(N3, e(2, 2));
        ctx.takeSent();
        deliver(N2, new Halt(e(4, 1), id()));
        assertThat(answer(ctx.takeSent())).isInstanceOf(Accepted.class);
        deliver(N2, new NewCoordinator(e(4, 1), id()));
        deliver(N2, new Ready(e(4, 1), id()));
        assertState(Phase.IDLE, Role.FOLLOWER, e(4, 1), N2);
        assertThat(ctx.deadline("PREEMPT")).hasValue(CONFIG.preemptionHoldDown().toNanos());
        ctx.takeSent();

        fire("PREEMPT");

        assertState(Phase.HALTING, Role.CANDIDATE, e(4, 1), null);
        assertThat(only(ctx.takeSent(), Halt.class))
                .extracting(StrictBullyElectorTest::epochOf)
                .containsOnly(e(5, 2));
    }

    @Test
    void newCoordinatorOutOfPhaseIsRefused() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new NewCoordinator(e(3, 2), id()));
        assertThat(answer(ctx.takeSent())).as("not halted").isInstanceOf(Refused.class);

        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();
        deliver(N2, new NewCoordinator(e(3, 1), id()));
        assertThat(answer(ctx.takeSent())).as("from another member").isInstanceOf(Refused.class);
        deliver(N3, new NewCoordinator(e(4, 2), id()));
        assertThat(answer(ctx.takeSent())).as("for another epoch").isInstanceOf(Refused.class);

        assertState(Phase.HALTED, Role.FOLLOWER, 0, null);
        assertThat(ctx.persisted()).isEmpty();
    }

    @Test
    void readyBeforeNewCoordinatorIsRefusedAndNamesNoOne() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();

        deliver(N3, new Ready(e(3, 2), id()));

        assertState(Phase.HALTED, Role.FOLLOWER, 0, null);
        assertThat(answer(ctx.takeSent())).isInstanceOf(Refused.class);
    }

    @Test
    void haltedToCandidateWhenNewCoordinatorDoesNotCome() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();

        fire("AWAIT_NEW_COORDINATOR");

        assertState(Phase.ELECTING, Role.CANDIDATE, 0, null);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Election");
    }

    @Test
    void reorganizingToCandidateWhenReadyDoesNotCome() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        deliver(N3, new NewCoordinator(e(3, 2), id()));
        ctx.takeSent();

        fire("AWAIT_READY");

        assertState(Phase.ELECTING, Role.CANDIDATE, e(3, 2), null);
    }

    @Test
    void haltedToCandidateAtOnceWhenTheWinnersConnectionCloses() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));

        elector.onPeerDisconnected(N3);

        assertThat(elector.phase()).isEqualTo(Phase.ELECTING);
    }

    @Test
    void haltedToCandidateAtOnceWhenTheWinnerResigns() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();

        deliver(N3, new BullyMessage.Resign(e(3, 2), id()));

        assertState(Phase.ELECTING, Role.CANDIDATE, 0, null);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ack", "Election", "Election");
    }

    @Test
    void haltedMemberKeepsWaitingWhenAnotherMemberResigns() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        ctx.takeSent();

        deliver(N2, new BullyMessage.Resign(e(1, 1), id()));

        assertState(Phase.HALTED, Role.FOLLOWER, 0, null);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ack");
    }

    @Test
    void memberAnswersARepeatedNewCoordinatorAndReadyAgain() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        deliver(N3, new NewCoordinator(e(3, 2), id()));
        ctx.takeSent();

        deliver(N3, new NewCoordinator(e(3, 2), id()));
        assertThat(answer(ctx.takeSent())).isInstanceOf(Accepted.class);
        assertThat(elector.phase()).isEqualTo(Phase.REORGANIZING);

        deliver(N3, new Ready(e(3, 2), id()));
        deliver(N3, new Ready(e(3, 2), id()));
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Accepted", "Accepted");
        assertState(Phase.IDLE, Role.FOLLOWER, e(3, 2), N3);
    }

    @Test
    void duplicatesAreDroppedByFromAndMessageId() {
        start(N1, 0);
        ctx.takeSent();
        Halt halt = new Halt(e(3, 2), id());

        deliver(N3, halt);
        deliver(N3, halt);

        assertThat(ctx.takeSent()).hasSize(1);
    }

    // ---- joining a leading coordinator ----

    @Test
    void leaderAdmitsAQueryingMemberWithHaltNewCoordinatorAndReadyAtItsEpoch() {
        long epoch = leadAsN3(0);

        deliver(N1, new Query(0, id()));
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).extracting(s -> s.message().type()).containsExactly("Ack", "Halt");
        assertThat(epochOf(sent.get(1))).isEqualTo(epoch);
        acceptAll(sent, Halt.class);
        sent = ctx.takeSent();
        assertThat(sent).extracting(s -> s.message().type()).containsExactly("NewCoordinator");
        acceptAll(sent, NewCoordinator.class);

        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ready");
        assertState(Phase.LEADING, Role.LEADER, epoch, N3);
    }

    @Test
    void leaderAnswersALowerElectionWithOkAndAnAdmission() {
        leadAsN3(0);

        deliver(N1, new Election(0, id()));

        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ok", "Halt");
    }

    @Test
    void leaderResendsAnUnansweredAdmissionStepUnderANewIdAndGivesUpAfterThreeAttempts() {
        leadAsN3(0);
        deliver(N1, new Query(0, id()));
        Sent first = only(ctx.takeSent(), Halt.class).get(0);

        fire("ADMISSIONS");
        Sent second = only(ctx.takeSent(), Halt.class).get(0);
        assertThat(idOf(second)).isNotEqualTo(idOf(first));
        deliver(N1, new Accepted(0, id(), idOf(first)));
        assertThat(ctx.takeSent()).as("an answer to an earlier attempt").isEmpty();

        fire("ADMISSIONS");
        assertThat(only(ctx.takeSent(), Halt.class)).hasSize(1);
        fire("ADMISSIONS");
        assertThat(ctx.takeSent()).isEmpty();
        assertThat(ctx.armed("ADMISSIONS")).isFalse();
    }

    @Test
    void followerHearingACoordinatorItDoesNotFollowAsksToJoinOncePerCoordinatorTimeout() {
        start(N1, 0);
        ctx.takeSent();

        deliver(N3, new Heartbeat(e(2, 2), id()));
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Query", "HeartbeatAck");
        assertState(Phase.IDLE, Role.FOLLOWER, 0, null);
        assertThat(ctx.deadline("DISCOVERY")).hasValue(ctx.nanoTime() + T_PRIME);

        ctx.advanceMillis(CONFIG.heartbeatInterval().toMillis());
        deliver(N3, new Heartbeat(e(2, 2), id()));
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("HeartbeatAck");
    }

    @Test
    void leaderHearingANewerCoordinatorItWouldFollowStopsActingAndAsksToJoin() {
        start(N2, 0);
        fire("DISCOVERY");
        fire("ANSWER");
        acceptAll(ctx.takeSent(), Halt.class);
        acceptAll(ctx.takeSent(), NewCoordinator.class);
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        ctx.takeSent();

        deliver(N3, new Heartbeat(e(5, 2), id()));

        assertState(Phase.IDLE, Role.FOLLOWER, e(1, 1), null);
        assertReason(ChangeReason.HIGHER_EPOCH);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Query", "HeartbeatAck");
    }

    @Test
    void reorganizingMemberLeftOutOfTheReadyAsksAgainWhenItHearsTheWinnerLead() {
        start(N1, 0);
        ctx.takeSent();
        deliver(N3, new Halt(e(3, 2), id()));
        deliver(N3, new NewCoordinator(e(3, 2), id()));
        ctx.takeSent();

        deliver(N3, new Heartbeat(e(3, 2), id()));
        assertThat(ctx.takeSent())
                .as("within one answer timeout the Ready may still come")
                .extracting(s -> s.message().type())
                .containsExactly("HeartbeatAck");

        ctx.advanceMillis(CONFIG.answerTimeout().toMillis());
        deliver(N3, new Heartbeat(e(3, 2), id()));
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Query", "HeartbeatAck");
        assertState(Phase.IDLE, Role.FOLLOWER, e(3, 2), null);
    }

    @Test
    void followerRefreshesItsCoordinatorOnHeartbeatsOfItsEpoch() {
        followN3AsN2(0, e(3, 2));
        ctx.advanceMillis(100);

        deliver(N3, new Heartbeat(e(3, 2), id()));

        assertThat(ctx.deadline("LEADER_TIMEOUT"))
                .hasValue(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("HeartbeatAck");
    }

    // ---- the election before the Halt ----

    @Test
    void candidateToAwaitingHaltOnOkThenRestartsWhenNoHaltComes() {
        start(N2, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        Election election = (Election) ctx.takeSent().get(0).message();

        deliver(N3, new Ok(0, id(), election.messageId()));
        assertThat(elector.phase()).isEqualTo(Phase.AWAITING_HALT);
        assertThat(ctx.deadline("AWAIT_HALT")).hasValue(ctx.nanoTime() + T_PRIME);

        fire("AWAIT_HALT");
        assertThat(elector.phase()).isEqualTo(Phase.ELECTING);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Election");
    }

    @Test
    void awaitingHaltToHaltedWhenTheHigherMembersHaltComes() {
        start(N2, 0);
        ctx.takeSent();
        fire("DISCOVERY");
        Election election = (Election) ctx.takeSent().get(0).message();
        deliver(N3, new Ok(0, id(), election.messageId()));

        deliver(N3, new Halt(e(1, 2), id()));

        assertState(Phase.HALTED, Role.FOLLOWER, 0, null);
        assertThat(ctx.armed("AWAIT_HALT")).isFalse();
    }

    @Test
    void followerToCandidateAtOnceWhenTheCoordinatorsConnectionCloses() {
        followN3AsN2(0, e(3, 2));

        elector.onPeerDisconnected(N3);

        assertState(Phase.ELECTING, Role.CANDIDATE, e(3, 2), null);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_DISCONNECTED);
    }

    @Test
    void coordinatorFromASimpleModeMemberIsAnsweredButNeverAdopted() {
        start(N1, 0);
        ctx.takeSent();

        deliver(N3, new Coordinator(e(2, 2), id()));

        assertState(Phase.IDLE, Role.FOLLOWER, 0, null);
        assertThat(ctx.takeSent()).extracting(s -> s.message()).singleElement().isInstanceOf(Ack.class);
    }

    @Test
    void leaderToDormantResignsAfterRevoking() {
        long epoch = leadAsN3(0);

        elector.stop();

        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertReason(ChangeReason.STOPPED);
        assertThat(ctx.sentBeforeLastAnnouncement()).isZero();
        assertThat(ctx.takeSent())
                .allSatisfy(s -> assertThat(s.message()).isInstanceOf(BullyMessage.Resign.class))
                .extracting(StrictBullyElectorTest::epochOf)
                .containsOnly(epoch);
    }
}
