package io.bellwether.invitation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.elector.StoredState;
import io.bellwether.invitation.InvitationElector.GroupView;
import io.bellwether.invitation.InvitationElector.Phase;
import io.bellwether.invitation.InvitationMessage.Accept;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinator;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinatorAnswer;
import io.bellwether.invitation.InvitationMessage.AreYouThere;
import io.bellwether.invitation.InvitationMessage.AreYouThereAnswer;
import io.bellwether.invitation.InvitationMessage.Invitation;
import io.bellwether.invitation.InvitationMessage.Ready;
import io.bellwether.invitation.InvitationMessage.ReadyAck;
import io.bellwether.spi.StateStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Drives one invitation elector through each transition with a scripted context and checks role, epoch,
 * leader, group and effects after every event. Test names follow the transition path they drive.
 */
class InvitationElectorTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final NodeId N5 = NodeId.of("n5");
    private static final List<NodeId> THREE = List.of(N1, N2, N3);
    private static final List<NodeId> FIVE = List.of(N1, N2, N3, N4, N5);
    private static final InvitationConfig CONFIG = InvitationConfig.defaults();
    private static final InvitationConfig GATED =
            InvitationConfig.builder().majorityGate(true).build();

    private ScriptedContext ctx;
    private InvitationElector elector;
    private List<NodeId> members;
    /** Message ids for messages this test sends, per sender (any increasing sequence will do). */
    private long nextId = 1000;

    private void start(NodeId self, List<NodeId> members, InvitationConfig config, long storedCounter) {
        this.members = members;
        ctx = new ScriptedContext(self, members, 7);
        if (storedCounter > 0) {
            ctx.storeState(StoredState.EMPTY.with(InvitationElector.COUNTER_KEY, storedCounter));
        }
        elector = (InvitationElector) config.create(ctx);
        elector.start();
    }

    private void deliver(InvitationMessage message) {
        elector.onMessage(message.from(), message);
    }

    private void fire(String timer) {
        elector.onTimer(ctx.fire(timer));
    }

    private long id() {
        return nextId++;
    }

    private long epoch(long counter, NodeId coordinator) {
        return InvitationElector.epochOf(new GroupNumber(counter, coordinator), members);
    }

    private GroupView view() {
        return elector.group().orElseThrow();
    }

    private long storedCounter() {
        return ctx.storedState().get(InvitationElector.COUNTER_KEY, 0);
    }

    private void assertState(Role role, long epoch, NodeId leader) {
        assertThat(elector.state().role()).as("role").isEqualTo(role);
        assertThat(elector.state().epoch()).as("epoch").isEqualTo(epoch);
        assertThat(elector.state().leader()).as("leader").isEqualTo(Optional.ofNullable(leader));
        assertThat(ctx.lastAnnouncement().state()).as("last announcement").isEqualTo(elector.state());
    }

    private static <T> List<T> messages(List<Sent> sent, Class<T> type) {
        return sent.stream()
                .map(Sent::message)
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }

    private static List<NodeId> recipients(List<Sent> sent, Class<?> type) {
        return sent.stream()
                .filter(s -> type.isInstance(s.message()))
                .map(Sent::to)
                .toList();
    }

    /** Runs a check round; returns the AreYouCoordinator sent to each peer, in member order. */
    private List<Sent> checkRound() {
        ctx.takeSent();
        fire("CHECK");
        return ctx.takeSent();
    }

    private AreYouCoordinator checkSentTo(List<Sent> round, NodeId peer) {
        return round.stream()
                .filter(s -> s.to().equals(peer))
                .map(s -> (AreYouCoordinator) s.message())
                .findFirst()
                .orElseThrow();
    }

    /**
     * Makes this elector (which must be the highest of those involved) coordinator of a group with {@code
     * joiners}: one check finds them as coordinators of their groups of one, it merges, they accept, Ready.
     */
    private void mergeWith(List<NodeId> joiners) {
        List<Sent> round = checkRound();
        for (NodeId j : joiners) {
            deliver(new AreYouCoordinatorAnswer(
                    j, new GroupNumber(1, j), id(), checkSentTo(round, j).messageId(), true));
        }
        fire("ANSWERS");
        ctx.takeSent();
        GroupNumber number = view().number();
        for (NodeId j : joiners) {
            deliver(new Accept(j, number, id(), 0));
        }
        fire("ACCEPTS");
    }

    // ---------------------------------------------------------------- start → group of one

    @Test
    void startFormsGroupOfOneUnderAPersistedNewNumberAndLeadsItWithoutTheGate() {
        start(N2, THREE, CONFIG, 4);

        assertThat(ctx.persisted()).hasSize(1);
        assertThat(storedCounter()).isEqualTo(5);
        assertState(Role.LEADER, epoch(5, N2), N2);
        assertThat(ctx.announcements().get(0).reason()).isEqualTo(ChangeReason.STARTED);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.ELECTED);
        assertThat(view()).isEqualTo(new GroupView(new GroupNumber(5, N2), Phase.NORMAL, List.of(N2), true));
        assertThat(ctx.validUntil()).isEqualTo(ctx.nanoTime() + CONFIG.validityNanos());
        assertThat(ctx.armed("CHECK")).isTrue();
        assertThat(ctx.sent()).isEmpty();
    }

    @Test
    void startWithTheMajorityGateFormsGroupOfOneThatDoesNotAct() {
        start(N2, THREE, GATED, 0);

        assertState(Role.FOLLOWER, epoch(1, N2), null);
        assertThat(view().acting()).isFalse();
        assertThat(ctx.validUntil()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void startRefusesToRunWhenTheCounterCannotBePersisted() {
        ctx = new ScriptedContext(N1, THREE, 7);
        ctx.failPersistWith(new StateStoreException("disk full"));
        elector = (InvitationElector) CONFIG.create(ctx);

        assertThatThrownBy(() -> elector.start()).isInstanceOf(StateStoreException.class);
        assertThat(ctx.announcements()).isEmpty();
    }

    @Test
    void epochEncodesCounterAndCoordinatorRankAndPreservesGroupOrder() {
        assertThat(InvitationElector.epochOf(new GroupNumber(3, N2), THREE)).isEqualTo(3L * 65536 + 1);
        assertThat(InvitationElector.epochOf(new GroupNumber(3, N3), THREE))
                .isGreaterThan(InvitationElector.epochOf(new GroupNumber(3, N2), THREE))
                .isLessThan(InvitationElector.epochOf(new GroupNumber(4, N1), THREE));
    }

    // ---------------------------------------------------------------- AreYouCoordinator

    @Test
    void coordinatorChecksEveryOtherMemberEveryCheckInterval() {
        start(N2, THREE, CONFIG, 0);
        List<Sent> round = checkRound();

        assertThat(recipients(round, AreYouCoordinator.class)).containsExactlyInAnyOrder(N1, N3);
        assertThat(messages(round, AreYouCoordinator.class))
                .allSatisfy(q -> assertThat(q.group()).isEqualTo(new GroupNumber(1, N2)));
        assertThat(ctx.deadline("CHECK"))
                .hasValue(ctx.nanoTime() + CONFIG.checkInterval().toNanos());
        assertThat(ctx.deadline("ANSWERS"))
                .hasValue(ctx.nanoTime() + CONFIG.answerTimeout().toNanos());
    }

    @Test
    void coordinatorAnswersAreYouCoordinatorWithYesAndItsGroup() {
        start(N2, THREE, CONFIG, 0);
        deliver(new AreYouCoordinator(N1, new GroupNumber(3, N1), 77));

        List<Sent> sent = ctx.takeSent();
        assertThat(sent)
                .containsExactly(new Sent(
                        N1, new AreYouCoordinatorAnswer(N2, new GroupNumber(1, N2), idOfFirst(sent), 77, true)));
    }

    /** The id this elector chose for the first of {@code sent} (its ids start at a random point). */
    private static long idOfFirst(List<Sent> sent) {
        return ((InvitationMessage) sent.get(0).message()).messageId();
    }

    /** Each recipient of a Ready acknowledges it. */
    private void ackReadies(List<Sent> sent) {
        for (Sent s : sent) {
            if (s.message() instanceof Ready r) {
                deliver(new ReadyAck(s.to(), r.group(), id(), r.messageId()));
            }
        }
    }

    @Test
    void duplicateAreYouCoordinatorIsAnsweredOnce() {
        start(N2, THREE, CONFIG, 0);
        AreYouCoordinator q = new AreYouCoordinator(N1, new GroupNumber(3, N1), 77);
        deliver(q);
        deliver(q);

        assertThat(ctx.takeSent()).hasSize(1);
    }

    @Test
    void messageWhoseSenderFieldIsNotItsPeerIsDropped() {
        start(N2, THREE, CONFIG, 0);
        elector.onMessage(N3, new AreYouCoordinator(N1, new GroupNumber(3, N1), 77));

        assertThat(ctx.sent()).isEmpty();
    }

    // ---------------------------------------------------------------- merge with priorities

    @Test
    void highestPriorityCoordinatorMergesAtOnceInvitingWhatItFoundUnderANewNumber() {
        start(N3, THREE, CONFIG, 0);
        List<Sent> round = checkRound();
        deliver(new AreYouCoordinatorAnswer(
                N1, new GroupNumber(6, N1), id(), checkSentTo(round, N1).messageId(), true));
        deliver(new AreYouCoordinatorAnswer(
                N2, new GroupNumber(1, N2), id(), checkSentTo(round, N2).messageId(), true));
        fire("ANSWERS");

        GroupNumber merged = new GroupNumber(7, N3); // above every counter seen
        assertThat(storedCounter()).isEqualTo(7);
        assertState(Role.CANDIDATE, epoch(7, N3), null);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.CAMPAIGNING);
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        List<Sent> invitations = ctx.takeSent();
        assertThat(recipients(invitations, Invitation.class)).containsExactly(N1, N2);
        assertThat(messages(invitations, Invitation.class))
                .allSatisfy(i -> assertThat(i.group()).isEqualTo(merged));
        assertThat(view().phase()).isEqualTo(Phase.ELECTION);

        deliver(new Accept(N1, merged, id(), 0));
        deliver(new Accept(N2, merged, id(), 0));
        assertThat(view().phase())
                .as("invited coordinators forward to members it cannot know: it waits the full timeout")
                .isEqualTo(Phase.ELECTION);
        fire("ACCEPTS");

        assertState(Role.LEADER, epoch(7, N3), N3);
        assertThat(view().members()).containsExactly(N1, N2, N3);
        List<Sent> readies = ctx.takeSent();
        assertThat(recipients(readies, Ready.class)).containsExactly(N1, N2);
        assertThat(messages(readies, Ready.class))
                .allSatisfy(r -> assertThat(r.members()).containsExactly(N1, N2, N3));
    }

    @Test
    void lowerPriorityCoordinatorWaitsThePriorityDelayAndTheHigherOnesInvitationCancelsItsMerge() {
        start(N1, THREE, CONFIG, 0);
        List<Sent> round = checkRound();
        deliver(new AreYouCoordinatorAnswer(
                N3, new GroupNumber(2, N3), id(), checkSentTo(round, N3).messageId(), true));
        deliver(new AreYouCoordinatorAnswer(
                N2, new GroupNumber(1, N2), id(), checkSentTo(round, N2).messageId(), true));
        fire("ANSWERS");

        assertThat(ctx.sent()).as("no invitation yet").isEmpty();
        assertThat(ctx.deadline("MERGE"))
                .hasValue(ctx.nanoTime() + 2 * CONFIG.mergeDelay().toNanos());

        GroupNumber n3Group = new GroupNumber(3, N3);
        deliver(new Invitation(N3, n3Group, 500));

        assertThat(ctx.armed("MERGE")).isFalse();
        assertThat(ctx.armed("READY")).isTrue();
        assertState(Role.FOLLOWER, epoch(3, N3), null);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.HIGHER_EPOCH);
        assertThat(storedCounter()).isEqualTo(3);
        assertThat(ctx.sentBeforeLastPersist()).isZero();
        List<Sent> accept = ctx.takeSent();
        assertThat(accept).containsExactly(new Sent(N3, new Accept(N1, n3Group, idOfFirst(accept), 500)));

        deliver(new Ready(N3, n3Group, 501, List.of(N1, N2, N3)));
        assertState(Role.FOLLOWER, epoch(3, N3), N3);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.LEADER_DISCOVERED);
        assertThat(view()).isEqualTo(new GroupView(n3Group, Phase.NORMAL, List.of(N1, N2, N3), false));
        assertThat(ctx.takeSent()).singleElement().satisfies(s -> {
            assertThat(s.to()).isEqualTo(N3);
            assertThat(s.message()).isInstanceOf(ReadyAck.class);
            assertThat(((ReadyAck) s.message()).inReplyTo()).isEqualTo(501);
        });
        assertThat(ctx.armed("ARE_YOU_THERE")).isTrue();
    }

    @Test
    void invitationWithANumberNotAboveTheCurrentGroupIsIgnored() {
        start(N1, THREE, CONFIG, 9); // group (10, n1)
        deliver(new Invitation(N3, new GroupNumber(10, N1), 500));
        deliver(new Invitation(N3, new GroupNumber(9, N3), 501));

        assertThat(ctx.sent()).isEmpty();
        assertThat(view().number()).isEqualTo(new GroupNumber(10, N1));
    }

    // ---------------------------------------------------------------- forwarding

    @Test
    void invitedCoordinatorStopsActingThenForwardsTheInvitationToItsOldMembers() {
        start(N4, FIVE, CONFIG, 0);
        mergeWith(List.of(N1, N2));
        assertState(Role.LEADER, epoch(2, N4), N4);
        ctx.takeSent();

        GroupNumber n5Group = new GroupNumber(10, N5);
        deliver(new Invitation(N5, n5Group, 900));

        assertState(Role.FOLLOWER, epoch(10, N5), null);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.HIGHER_EPOCH);
        List<Sent> sent = ctx.takeSent();
        assertThat(recipients(sent, Invitation.class)).containsExactlyInAnyOrder(N1, N2);
        assertThat(messages(sent, Invitation.class)).allSatisfy(i -> {
            assertThat(i.from()).isEqualTo(N4);
            assertThat(i.group()).isEqualTo(n5Group);
        });
        assertThat(recipients(sent, Accept.class)).containsExactly(N5);
        assertThat(view().phase()).isEqualTo(Phase.REORGANIZATION);
    }

    @Test
    void memberAcceptsTheInvitationItsCoordinatorForwards() {
        start(N1, THREE, CONFIG, 0);
        GroupNumber n2Group = new GroupNumber(2, N2);
        deliver(new Invitation(N2, n2Group, 10));
        deliver(new Ready(N2, n2Group, 11, List.of(N1, N2)));
        ctx.takeSent();

        GroupNumber n3Group = new GroupNumber(5, N3);
        deliver(new Invitation(N2, n3Group, 12)); // forwarded by n2

        assertThat(ctx.takeSent()).singleElement().satisfies(s -> {
            assertThat(s.to())
                    .as("accepts to the new coordinator, not the forwarder")
                    .isEqualTo(N3);
            assertThat(s.message()).isEqualTo(new Accept(N1, n3Group, ((Accept) s.message()).messageId(), 12));
        });
    }

    @Test
    void memberIgnoresAForwardFromACoordinatorItDoesNotFollow() {
        start(N1, THREE, CONFIG, 0);
        deliver(new Invitation(N2, new GroupNumber(5, N3), 12));

        assertThat(ctx.sent()).isEmpty();
        assertThat(view().phase()).isEqualTo(Phase.NORMAL);
    }

    // ---------------------------------------------------------------- priority

    @Test
    void coordinatorInvitedByALowerPriorityCoordinatorMergesAtOnceInsteadOfJoining() {
        start(N3, THREE, CONFIG, 0);
        deliver(new Invitation(N1, new GroupNumber(4, N1), 40));

        assertThat(view().phase()).isEqualTo(Phase.ELECTION);
        assertThat(view().number()).isEqualTo(new GroupNumber(5, N3));
        List<Sent> sent = ctx.takeSent();
        assertThat(recipients(sent, Accept.class)).isEmpty();
        assertThat(recipients(sent, Invitation.class)).containsExactly(N1);
    }

    @Test
    void memberWhoseCoordinatorForwardsALowerPriorityInvitationBreaksAwayIntoAGroupOfOne() {
        start(N2, THREE, CONFIG, 0);
        GroupNumber g = new GroupNumber(2, N3);
        deliver(new Invitation(N3, g, 10));
        deliver(new Ready(N3, g, 11, List.of(N2, N3)));
        ctx.takeSent();

        deliver(new Invitation(N3, new GroupNumber(5, N1), 12)); // n3 forwards n1's invitation

        assertThat(ctx.sent()).as("no Accept to a lower-priority coordinator").isEmpty();
        assertThat(view()).isEqualTo(new GroupView(new GroupNumber(6, N2), Phase.NORMAL, List.of(N2), true));
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_CEDED);
    }

    // ---------------------------------------------------------------- lost members

    @Test
    void coordinatorReformsItsGroupUnderANewNumberWhenAMemberFallsSilentForALease() {
        start(N3, THREE, CONFIG, 0);
        mergeWith(List.of(N1, N2));
        GroupNumber g = view().number();
        ackReadies(ctx.takeSent());

        // n1 keeps answering every check; n2 is gone.
        long end = ctx.nanoTime()
                + CONFIG.lease().toNanos()
                + CONFIG.checkInterval().toNanos();
        while (view().number().equals(g) && ctx.nanoTime() < end) {
            List<Sent> round = checkRound();
            deliver(new AreYouCoordinatorAnswer(
                    N1, g, id(), checkSentTo(round, N1).messageId(), false));
            fire("ANSWERS");
        }

        assertThat(view().number()).isGreaterThan(g);
        assertThat(view().phase()).isEqualTo(Phase.ELECTION);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LOST_QUORUM);
        List<Sent> invitations = ctx.takeSent();
        assertThat(recipients(invitations, Invitation.class)).containsExactly(N1, N2);
        deliver(new Accept(N1, view().number(), id(), 0));

        assertThat(view().phase())
                .as("n2 has not accepted: it waits for the timeout")
                .isEqualTo(Phase.ELECTION);
        fire("ACCEPTS");
        assertThat(view().members()).containsExactly(N1, N3);
        assertState(Role.LEADER, InvitationElector.epochOf(view().number(), THREE), N3);
    }

    // ---------------------------------------------------------------- stale Accept / Ready

    @Test
    void staleAcceptForAnotherGroupNumberIsDropped() {
        start(N3, THREE, CONFIG, 0);
        List<Sent> round = checkRound();
        deliver(new AreYouCoordinatorAnswer(
                N1, new GroupNumber(1, N1), id(), checkSentTo(round, N1).messageId(), true));
        fire("ANSWERS");
        GroupNumber current = view().number();

        deliver(new Accept(N1, new GroupNumber(current.counter() - 1, N3), id(), 0));
        deliver(new Accept(N2, new GroupNumber(current.counter() + 1, N3), id(), 0));
        fire("ACCEPTS");

        assertThat(view().members()).containsExactly(N3);
    }

    @Test
    void staleReadyForAnotherGroupOrFromAnotherCoordinatorIsDroppedAndTheRightOneApplied() {
        start(N1, THREE, CONFIG, 0);
        GroupNumber accepted = new GroupNumber(4, N3);
        deliver(new Invitation(N3, accepted, 20));
        ctx.takeSent();

        deliver(new Ready(N3, new GroupNumber(3, N3), 21, List.of(N1, N3)));
        deliver(new Ready(N2, accepted, 22, List.of(N1, N2, N3)));
        assertThat(view().phase()).isEqualTo(Phase.REORGANIZATION);
        assertThat(ctx.sent()).isEmpty();

        deliver(new Ready(N3, accepted, 23, List.of(N1, N3)));
        assertThat(view()).isEqualTo(new GroupView(accepted, Phase.NORMAL, List.of(N1, N3), false));
    }

    @Test
    void readyTimeoutFormsGroupOfOneAboveTheAcceptedNumber() {
        start(N1, THREE, CONFIG, 0);
        deliver(new Invitation(N3, new GroupNumber(4, N3), 20));
        fire("READY");

        assertThat(view().number()).isEqualTo(new GroupNumber(5, N1));
        assertState(Role.LEADER, epoch(5, N1), N1);
    }

    // ---------------------------------------------------------------- AreYouThere

    @Test
    void coordinatorAnswersAreYouThereYesOnlyForItsGroupAndItsMembers() {
        start(N3, THREE, CONFIG, 0);
        mergeWith(List.of(N1));
        GroupNumber g = view().number();
        ctx.takeSent();

        deliver(new AreYouThere(N1, g, id()));
        deliver(new AreYouThere(N2, g, id()));
        deliver(new AreYouThere(N1, new GroupNumber(1, N3), id()));

        assertThat(messages(ctx.takeSent(), AreYouThereAnswer.class))
                .extracting(AreYouThereAnswer::yes)
                .containsExactly(true, false, false);
    }

    @Test
    void memberAsksItsCoordinatorAndKeepsFollowingOnYes() {
        start(N1, THREE, CONFIG, 0);
        GroupNumber g = new GroupNumber(2, N3);
        deliver(new Invitation(N3, g, 10));
        deliver(new Ready(N3, g, 11, List.of(N1, N3)));
        ctx.takeSent();

        fire("ARE_YOU_THERE");
        AreYouThere q = (AreYouThere) ctx.takeSent().get(0).message();
        assertThat(q.group()).isEqualTo(g);
        deliver(new AreYouThereAnswer(N3, g, 12, q.messageId(), true));

        assertThat(ctx.armed("ARE_YOU_THERE_TIMEOUT")).isFalse();
        assertThat(ctx.armed("ARE_YOU_THERE")).isTrue();
        assertState(Role.FOLLOWER, epoch(2, N3), N3);
    }

    @Test
    void coordinatorFailureViaAreYouThereTimeoutFormsGroupOfOneWithHigherNeverReusedNumbersAcrossRestarts() {
        start(N1, THREE, CONFIG, 0);
        List<GroupNumber> numbers = new ArrayList<>();
        numbers.add(view().number()); // (1, n1)
        GroupNumber g = new GroupNumber(8, N3);
        deliver(new Invitation(N3, g, 10));
        deliver(new Ready(N3, g, 11, List.of(N1, N3)));
        numbers.add(view().number());

        fire("ARE_YOU_THERE");
        fire("ARE_YOU_THERE_TIMEOUT");

        assertState(Role.LEADER, epoch(9, N1), N1);
        List<ScriptedContext.Announced> all = ctx.announcements();
        assertThat(all.get(all.size() - 2).reason()).isEqualTo(ChangeReason.LEADER_TIMEOUT);
        numbers.add(view().number());

        for (int restart = 0; restart < 3; restart++) {
            StoredState kept = ctx.storedState();
            ctx = new ScriptedContext(N1, THREE, 100 + restart);
            ctx.storeState(kept);
            elector = (InvitationElector) CONFIG.create(ctx);
            elector.start();
            numbers.add(view().number());
        }

        assertThat(numbers).extracting(GroupNumber::counter).containsExactly(1L, 8L, 9L, 10L, 11L, 12L);
        assertThat(numbers).doesNotHaveDuplicates();
    }

    @Test
    void aNoFromTheCoordinatorFormsGroupOfOne() {
        start(N1, THREE, CONFIG, 0);
        GroupNumber g = new GroupNumber(2, N3);
        deliver(new Invitation(N3, g, 10));
        deliver(new Ready(N3, g, 11, List.of(N1, N3)));
        ctx.takeSent();
        fire("ARE_YOU_THERE");
        AreYouThere q = (AreYouThere) ctx.takeSent().get(0).message();
        deliver(new AreYouThereAnswer(N3, g, 12, q.messageId(), false));

        assertThat(view().number()).isEqualTo(new GroupNumber(3, N1));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.ELECTED);
        assertThat(ctx.announcements().get(ctx.announcements().size() - 2).reason())
                .isEqualTo(ChangeReason.LEADER_CEDED);
    }

    @Test
    void coordinatorConnectionClosedFormsGroupOfOne() {
        start(N1, THREE, CONFIG, 0);
        GroupNumber g = new GroupNumber(2, N3);
        deliver(new Invitation(N3, g, 10));
        deliver(new Ready(N3, g, 11, List.of(N1, N3)));
        elector.onPeerDisconnected(N2);
        assertThat(view().number()).isEqualTo(g);

        elector.onPeerDisconnected(N3);
        assertThat(view().number()).isEqualTo(new GroupNumber(3, N1));
    }

    // ---------------------------------------------------------------- validity without the gate

    @Test
    void coordinatorRenewsItsBoundedValidityAtEveryCheck() {
        start(N1, THREE, CONFIG, 0);
        ctx.advanceMillis(150);
        checkRound();

        assertThat(ctx.validUntil()).isEqualTo(ctx.nanoTime() + CONFIG.validityNanos());
        assertThat(ctx.validUntil()).isLessThan(Long.MAX_VALUE / 2);
    }

    @Test
    void coordinatorWhoseValidityLapsedDuringAPauseStepsDownAndLeadsAgainOnlyUnderANewNumber() {
        start(N1, THREE, CONFIG, 0);
        long firstEpoch = elector.state().epoch();
        ctx.setNanos(ctx.deadline("CHECK").orElseThrow() + CONFIG.lease().toNanos()); // paused past validity
        checkRound();

        List<ScriptedContext.Announced> all = ctx.announcements();
        assertThat(all).extracting(a -> a.reason()).contains(ChangeReason.LOST_QUORUM);
        assertState(Role.LEADER, epoch(2, N1), N1);
        assertThat(elector.state().epoch()).isGreaterThan(firstEpoch);
        assertThat(ctx.validUntil()).isGreaterThan(ctx.nanoTime());
    }

    // ---------------------------------------------------------------- majority gate

    @Test
    void majorityGateCoordinatorLeadsOnlyOnceAMajorityOfConfiguredMembersConfirmed() {
        start(N5, FIVE, GATED, 0);
        mergeWith(List.of(N4));
        assertState(Role.FOLLOWER, epoch(2, N5), null);
        ackReadies(ctx.takeSent());
        assertThat(elector.state().role()).as("2 of 5 is no majority").isEqualTo(Role.FOLLOWER);

        mergeWith(List.of(N3, N4));
        GroupNumber g = view().number();
        assertThat(view().members()).containsExactly(N3, N4, N5);
        long readySent = ctx.nanoTime();
        List<Sent> readies = ctx.takeSent();
        ctx.advanceMillis(2);
        ackReadies(readies.subList(0, 1));
        assertThat(elector.state().role()).as("two of five: still no majority").isEqualTo(Role.FOLLOWER);
        ackReadies(readies.subList(1, 2));

        assertState(Role.LEADER, InvitationElector.epochOf(g, FIVE), N5);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.ELECTED);
        assertThat(ctx.validUntil()).isEqualTo(readySent + GATED.validityNanos());
    }

    @Test
    void majorityGateCoordinatorStepsDownWhenConfirmationsStopAndReorganizesUnderANewNumber() {
        start(N5, FIVE, GATED, 0);
        mergeWith(List.of(N3, N4));
        GroupNumber g = view().number();
        ackReadies(ctx.takeSent());
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);

        // Members keep confirming through the check round.
        List<Sent> round = checkRound();
        ctx.advanceMillis(1);
        deliver(new AreYouCoordinatorAnswer(N3, g, id(), checkSentTo(round, N3).messageId(), false));
        deliver(new AreYouCoordinatorAnswer(N4, g, id(), checkSentTo(round, N4).messageId(), false));
        long confirmedRound = ctx.nanoTime() - 1_000_000;
        assertThat(ctx.validUntil()).isEqualTo(confirmedRound + GATED.validityNanos());

        // Then they fall silent.
        fire("ANSWERS");
        fire("VALIDITY");

        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LOST_QUORUM);
        assertThat(elector.state().role()).isEqualTo(Role.CANDIDATE);
        assertThat(view().number()).isGreaterThan(g);
        assertThat(recipients(ctx.takeSent(), Invitation.class)).containsExactly(N3, N4);
    }

    @Test
    void majorityGateMemberAnsweringItsCoordinatorsCheckJoinsNoOtherGroupUntilTheLeaseRunsOut() {
        start(N1, THREE, GATED, 0);
        GroupNumber g = new GroupNumber(2, N2);
        deliver(new Invitation(N2, g, 10));
        deliver(new Ready(N2, g, 11, List.of(N1, N2)));
        deliver(new AreYouCoordinator(N2, g, 12));
        List<Sent> answer = ctx.takeSent();
        assertThat(messages(answer, AreYouCoordinatorAnswer.class))
                .singleElement()
                .satisfies(a -> {
                    assertThat(a.coordinator()).isFalse();
                    assertThat(a.group()).isEqualTo(g);
                });

        // Its coordinator vanishes; it forms a group of one, but stays fenced for n2.
        fire("ARE_YOU_THERE");
        fire("ARE_YOU_THERE_TIMEOUT");
        ctx.takeSent();
        deliver(new Invitation(N3, new GroupNumber(9, N3), 50));
        assertThat(ctx.sent()).as("fenced: no Accept").isEmpty();

        ctx.advanceMillis(GATED.lease().toMillis());
        deliver(new Invitation(N3, new GroupNumber(9, N3), 51));
        assertThat(recipients(ctx.takeSent(), Accept.class)).containsExactly(N3);
    }

    @Test
    void majorityGateMemberOfAMinorityGroupNamesNoLeader() {
        start(N1, FIVE, GATED, 0);
        GroupNumber g = new GroupNumber(2, N2);
        deliver(new Invitation(N2, g, 10));
        deliver(new Ready(N2, g, 11, List.of(N1, N2)));

        assertState(Role.FOLLOWER, InvitationElector.epochOf(g, FIVE), null);
    }

    // ---------------------------------------------------------------- stop

    @Test
    void stopRevokesLeadershipAndIgnoresLaterEvents() {
        start(N1, THREE, CONFIG, 0);
        elector.stop();

        assertThat(elector.state()).isEqualTo(io.bellwether.elector.ElectorState.DORMANT);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.STOPPED);
        assertThat(elector.group()).isEmpty();
        deliver(new AreYouCoordinator(N2, new GroupNumber(3, N2), 1));
        assertThat(ctx.sent()).isEmpty();
    }

    // ---------------------------------------------------------------- resign (and stay)

    private static final long HOLD_OFF_NANOS = 2_000_000_000L;

    /** n3 coordinates an acting group of n1, n2, n3 (no gate). */
    private void coordinateThree() {
        start(N3, THREE, CONFIG, 0);
        mergeWith(List.of(N1, N2));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        ctx.takeSent();
    }

    @Test
    void coordinatorToPassiveGroupOfOneOnResignRevokingBeforeAnythingLeaves() {
        coordinateThree();
        GroupNumber old = view().number();

        elector.resign(HOLD_OFF_NANOS);

        GroupView v = view();
        assertThat(v.number().isAbove(old)).isTrue();
        assertThat(v.members()).containsExactly(N3);
        assertThat(v.acting()).isFalse();
        assertState(Role.FOLLOWER, epoch(v.number().counter(), N3), null);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.sent())
                .as("nothing leaves: its old members learn it when they ask")
                .isEmpty();
        assertThat(ctx.deadline("CHECK"))
                .as("no check (so no merge) before the hold-off is over")
                .hasValue(ctx.nanoTime() + HOLD_OFF_NANOS);

        deliver(new AreYouThere(N1, old, id()));
        assertThat(messages(ctx.takeSent(), AreYouThereAnswer.class))
                .singleElement()
                .satisfies(a -> assertThat(a.yes()).isFalse());
    }

    @Test
    void resignedMemberJoinsALowerCoordinatorsGroupDuringItsHoldOff() {
        coordinateThree();
        long leaderships = ctx.announcements().stream()
                .filter(a -> a.state().role() == Role.LEADER)
                .count();
        elector.resign(HOLD_OFF_NANOS);
        ctx.takeSent();
        GroupNumber lower = new GroupNumber(view().number().counter() + 1, N2);

        deliver(new Invitation(N2, lower, id()));

        assertThat(messages(ctx.takeSent(), Accept.class))
                .as("the priority rule is suspended during its hold-off")
                .singleElement();
        deliver(new Ready(N2, lower, id(), List.of(N1, N2, N3)));
        assertState(Role.FOLLOWER, epoch(lower.counter(), N2), N2);
        assertThat(ctx.announcements())
                .filteredOn(a -> a.state().role() == Role.LEADER)
                .hasSize((int) leaderships);
    }

    @Test
    void resignedMemberLeftAloneFormsAnActingGroupOnceItsHoldOffIsOver() {
        coordinateThree();
        elector.resign(HOLD_OFF_NANOS);
        long resignedAt = ctx.nanoTime();
        GroupNumber passive = view().number();

        fire("CHECK");

        assertThat(ctx.nanoTime()).isGreaterThanOrEqualTo(resignedAt + HOLD_OFF_NANOS);
        assertThat(view().number().isAbove(passive)).isTrue();
        assertThat(elector.state().role())
                .as("a group of one acts without the gate")
                .isEqualTo(Role.LEADER);
    }

    @Test
    void resignedMemberWhoseCoordinatorFailsFormsAPassiveGroup() {
        start(N3, THREE, CONFIG, 0);
        elector.resign(HOLD_OFF_NANOS);
        GroupNumber lower = new GroupNumber(5, N2);
        deliver(new Invitation(N2, lower, id()));
        assertThat(view().phase()).isEqualTo(Phase.REORGANIZATION);
        int leaderships = (int) ctx.announcements().stream()
                .filter(a -> a.state().role() == Role.LEADER)
                .count();

        fire("READY");

        assertThat(view().acting()).isFalse();
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.announcements())
                .filteredOn(a -> a.state().role() == Role.LEADER)
                .hasSize(leaderships);
    }
}
