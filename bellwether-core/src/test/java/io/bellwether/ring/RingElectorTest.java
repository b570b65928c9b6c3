package io.bellwether.ring;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.RankedElectorTestBase;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.ring.RingMessage.Ack;
import io.bellwether.ring.RingMessage.Coordinator;
import io.bellwether.ring.RingMessage.Election;
import io.bellwether.ring.RingMessage.ElectionId;
import io.bellwether.ring.RingMessage.Heartbeat;
import io.bellwether.ring.RingMessage.Query;
import io.bellwether.ring.RingMessage.Resign;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Drives one ring elector through each transition with a scripted context and checks role, epoch, leader,
 * reason and effects after every event. Test names follow the transition path they drive. The ring is n1 → n2
 * → n3 → n4 → n1; epochs are written {@code e(counter, rank)} with ranks n1 = 0 … n4 = 3.
 */
class RingElectorTest extends RankedElectorTestBase<RingElector> {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3, N4);
    private static final RingConfig CONFIG = RingConfig.defaults();
    private static final ElectionId FROM_N1 = new ElectionId(N1, 77);

    RingElectorTest() {
        super(RingElector.class);
    }

    private void start(NodeId self, long storedEpoch) {
        startElector(self, MEMBERS, 11, storedEpoch, CONFIG);
    }

    /** The messages sent since the last call, without acknowledgements. */
    private List<Sent> takeHops() {
        return ctx.takeSent().stream()
                .filter(s -> !(s.message() instanceof Ack))
                .toList();
    }

    @Test
    void dormantToFollowerAsksWhoCoordinatesThenCandidateSendsItsIdToTheSuccessor() {
        start(N2, e(3, 3));
        assertState(Role.FOLLOWER, e(3, 3), null);
        assertReason(ChangeReason.STARTED);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Query");

        fire("DISCOVERY");

        assertState(Role.CANDIDATE, e(3, 3), null);
        assertReason(ChangeReason.CAMPAIGNING);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).to()).isEqualTo(N3);
        Election election = (Election) sent.get(0).message();
        assertThat(election.ids()).containsExactly(N2);
        assertThat(election.election().origin()).isEqualTo(N2);
        assertThat(election.maxCounter()).isEqualTo(3);
        assertThat(ctx.deadline("HOP"))
                .hasValue(ctx.nanoTime() + CONFIG.hopTimeout().toNanos());
        assertThat(ctx.armed("ELECTION_DEADLINE")).isTrue();
    }

    @Test
    void hopIsRetriedToTheSameSuccessorThenSkipsItKeepingItsMessageId() {
        start(N2, 0);
        fire("DISCOVERY");
        Election first = (Election) ctx.takeSent().stream()
                .filter(s -> s.message() instanceof Election)
                .findFirst()
                .orElseThrow()
                .message();

        fire("HOP");
        assertThat(ctx.takeSent()).containsExactly(new Sent(N3, first));
        fire("HOP");
        assertThat(ctx.takeSent()).containsExactly(new Sent(N4, first));

        deliver(N4, new Ack(0, id(), first.messageId()));
        assertThat(ctx.armed("HOP")).isFalse();
    }

    @Test
    void followerAppendsItsIdForwardsOnceAndAcknowledgesEveryCopy() {
        start(N2, 0);
        ctx.takeSent();
        Election incoming = new Election(0, id(), FROM_N1, 5, List.of(N1));

        deliver(N1, incoming);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0))
                .isEqualTo(new Sent(N1, new Ack(0, ((Ack) sent.get(0).message()).messageId(), incoming.messageId())));
        Election forwarded = (Election) sent.get(1).message();
        assertThat(sent.get(1).to()).isEqualTo(N3);
        assertThat(forwarded.ids()).containsExactly(N1, N2);
        assertThat(forwarded.election()).isEqualTo(FROM_N1);
        assertThat(forwarded.maxCounter()).isEqualTo(5);

        deliver(N1, incoming);
        deliver(N4, new Election(0, id(), FROM_N1, 5, List.of(N1, N4)));
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Ack");
    }

    @Test
    void memberFindingItsOwnIdEndsTheElectionNamingTheMaxAtANewEpoch() {
        start(N2, e(2, 0));
        ctx.takeSent();

        deliver(N1, new Election(e(2, 0), id(), FROM_N1, 4, List.of(N2, N3, N4, N1)));

        assertState(Role.FOLLOWER, e(5, 3), N4);
        assertReason(ChangeReason.LEADER_DISCOVERED);
        assertThat(ctx.persisted()).first().satisfies(s -> assertThat(s.get(RingElector.COUNTER_KEY, -1))
                .isEqualTo(5));
        assertThat(ctx.persisted()).last().satisfies(s -> assertThat(s.get(RingElector.EPOCH_KEY, -1))
                .isEqualTo(e(5, 3)));
        assertThat(ctx.sentBeforeLastPersist()).isEqualTo(1); // only the acknowledgement left before
        List<Sent> hops = takeHops();
        assertThat(hops).hasSize(1);
        assertThat(hops.get(0).to()).isEqualTo(N3);
        Coordinator c = (Coordinator) hops.get(0).message();
        assertThat(c.leader()).isEqualTo(N4);
        assertThat(c.epoch()).isEqualTo(e(5, 3));
        assertThat(c.ids()).containsExactly(N2, N3, N4, N1);
    }

    @Test
    void followerToLeaderWhenTheAnnouncementNamesItThenForwardsItOnceAndHeartbeats() {
        start(N4, 0);
        ctx.takeSent();
        Coordinator c = new Coordinator(e(5, 3), id(), FROM_N1, N4, List.of(N1, N2, N3, N4));

        deliver(N3, c);

        assertState(Role.LEADER, e(5, 3), N4);
        assertReason(ChangeReason.ELECTED);
        assertThat(ctx.validUntil())
                .isEqualTo(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
        List<Sent> hops = takeHops();
        assertThat(hops)
                .filteredOn(s -> s.message() instanceof Coordinator)
                .hasSize(1)
                .first()
                .satisfies(s -> {
                    assertThat(s.to()).isEqualTo(N1);
                    assertThat(((Coordinator) s.message()).election()).isEqualTo(FROM_N1);
                });
        assertThat(hops)
                .filteredOn(s -> s.message() instanceof Heartbeat)
                .extracting(Sent::to)
                .containsExactly(N1, N2, N3);

        deliver(N3, new Coordinator(e(5, 3), id(), FROM_N1, N4, List.of(N1, N2, N3, N4)));
        assertThat(takeHops()).isEmpty();
    }

    @Test
    void announcementThatDoesNotNameTheMaxIsIgnored() {
        start(N2, 0);
        ctx.takeSent();

        deliver(N1, new Coordinator(e(5, 0), id(), FROM_N1, N1, List.of(N1, N2, N3)));

        assertState(Role.FOLLOWER, 0, null);
        assertThat(takeHops()).isEmpty();
    }

    @Test
    void staleAnnouncementIsNeitherAdoptedNorForwarded() {
        start(N2, e(6, 3));
        ctx.takeSent();

        deliver(N1, new Coordinator(e(5, 2), id(), FROM_N1, N3, List.of(N1, N3)));

        assertState(Role.FOLLOWER, e(6, 3), null);
        assertThat(takeHops()).isEmpty();
    }

    @Test
    void candidateSuppressesAnElectionFromALowerOriginator() {
        start(N3, 0);
        fire("DISCOVERY");
        ctx.takeSent();

        deliver(N2, new Election(0, id(), FROM_N1, 0, List.of(N1, N2)));

        assertThat(takeHops()).isEmpty();
        assertState(Role.CANDIDATE, 0, null);
    }

    @Test
    void candidateAloneLeadsItselfWhenNoSuccessorAnswers() {
        start(N1, e(1, 3));
        fire("DISCOVERY");
        for (int i = 0; i < 3 * CONFIG.hopAttempts(); i++) {
            fire("HOP");
        }

        assertState(Role.LEADER, e(2, 0), N1);
        assertReason(ChangeReason.ELECTED);
    }

    @Test
    void followerToCandidateWhenTheCoordinatorFallsSilent() {
        start(N2, 0);
        deliver(N4, new Heartbeat(e(3, 3), id()));
        assertState(Role.FOLLOWER, e(3, 3), N4);
        ctx.takeSent();

        fire("LEADER_TIMEOUT");

        assertState(Role.CANDIDATE, e(3, 3), null);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_TIMEOUT);
        assertThat(ctx.takeSent()).extracting(Sent::to).containsExactly(N3);
    }

    @Test
    void recoveredHigherMemberFollowsALowerCoordinatorThenElectsAfterTheHoldDown() {
        start(N4, e(1, 3));
        deliver(N2, new Heartbeat(e(4, 1), id()));
        assertState(Role.FOLLOWER, e(4, 1), N2);
        assertThat(ctx.deadline("PREEMPT")).hasValue(CONFIG.preemptionHoldDown().toNanos());
        ctx.takeSent();

        fire("PREEMPT");

        assertState(Role.CANDIDATE, e(4, 1), null);
        assertThat(((Election) takeHops().get(0).message()).maxCounter()).isEqualTo(4);
    }

    @Test
    void leaderAnswersAQueryWithAHeartbeatAndResignsWhenStopped() {
        start(N4, 0);
        deliver(N3, new Coordinator(e(5, 3), id(), FROM_N1, N4, List.of(N1, N2, N3, N4)));
        ctx.takeSent();

        deliver(N1, new Query(0, id()));
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsExactly("Ack", "Heartbeat");

        elector.stop();
        assertReason(ChangeReason.STOPPED);
        assertThat(elector.state().role()).isEqualTo(Role.DORMANT);
        assertThat(ctx.takeSent()).extracting(s -> s.message().type()).containsOnly("Resign");
    }

    @Test
    void followerElectsAtOnceWhenItsCoordinatorResigns() {
        start(N2, 0);
        deliver(N4, new Heartbeat(e(3, 3), id()));
        ctx.takeSent();

        deliver(N4, new Resign(e(3, 3), id()));

        assertState(Role.CANDIDATE, e(3, 3), null);
        assertThat(ctx.announcements()).extracting(a -> a.reason()).contains(ChangeReason.LEADER_CEDED);
    }

    @Test
    void leaderToFollowerWhenItsValidityLapsedWhileItStalled() {
        start(N4, 0);
        deliver(N3, new Coordinator(e(5, 3), id(), FROM_N1, N4, List.of(N1, N2, N3, N4)));
        ctx.takeSent();
        ctx.setNanos(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());

        fire("HEARTBEAT");

        assertState(Role.FOLLOWER, e(5, 3), null);
        assertReason(ChangeReason.LEASE_NOT_RENEWED);
    }

    @Test
    void leaderReElectedAtANewerEpochHasItsValidityRenewedWithTheNewLeadership() {
        start(N4, 0);
        deliver(N3, new Coordinator(e(5, 3), id(), FROM_N1, N4, List.of(N1, N2, N3, N4)));
        ctx.takeSent();
        ctx.advanceMillis(40);

        deliver(N3, new Coordinator(e(6, 3), id(), new ElectionId(N2, 5), N4, List.of(N2, N3, N4)));

        assertState(Role.LEADER, e(6, 3), N4);
        assertReason(ChangeReason.ELECTED);
        assertThat(ctx.validUntil())
                .as("the new leadership is valid from its announcement on")
                .isEqualTo(ctx.nanoTime() + CONFIG.leaderTimeout().toNanos());
    }
}
