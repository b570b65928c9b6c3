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
import io.bellwether.ring.RingMessage.Resign;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RingElector#resign}: the coordinator resigns, carries the others' elections without standing in them
 * during its hold-off (so the greatest of the others is named), follows the result, and stands again afterwards.
 * Members are n1 &lt; n2 &lt; n3 &lt; n4; the member under test is n4.
 */
class RingResignTest extends RankedElectorTestBase<RingElector> {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3, N4);
    private static final RingConfig CONFIG = RingConfig.defaults();
    private static final long HOLD_OFF_NANOS = 2_000_000_000L;
    private static final ElectionId FROM_N1 = new ElectionId(N1, 77);

    RingResignTest() {
        super(RingElector.class);
    }

    /** n4 leads at e(5, 3). */
    private void lead() {
        startElector(N4, MEMBERS, 11, 0, CONFIG);
        deliver(N3, new Coordinator(e(5, 3), id(), new ElectionId(N3, 1), N4, MEMBERS));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        ctx.takeSent();
    }

    private List<Sent> takeHops() {
        return ctx.takeSent().stream()
                .filter(s -> !(s.message() instanceof Ack))
                .toList();
    }

    @Test
    void leaderToFollowerResignsFirstThenTellsEveryMember() {
        lead();

        elector.resign(HOLD_OFF_NANOS);

        assertState(Role.FOLLOWER, e(5, 3), null);
        assertReason(ChangeReason.RESIGNED);
        assertThat(ctx.sentBeforeLastAnnouncement()).isZero();
        assertThat(ctx.sent()).extracting(Sent::to).containsExactly(N1, N2, N3);
        assertThat(ctx.sent()).allSatisfy(s -> assertThat(s.message()).isInstanceOf(Resign.class));
    }

    @Test
    void resignedMemberCarriesAnElectionWithoutStandingInItAndFollowsTheGreatestOfTheOthers() {
        lead();
        elector.resign(HOLD_OFF_NANOS);
        ctx.takeSent();

        deliver(N3, new Election(e(5, 3), id(), FROM_N1, 5, List.of(N1, N2, N3)));

        Election forwarded = (Election) takeHops().get(0).message();
        assertThat(forwarded.ids()).as("not listed during its hold-off").containsExactly(N1, N2, N3);

        deliver(N3, new Coordinator(e(6, 2), id(), FROM_N1, N3, List.of(N1, N2, N3)));
        assertState(Role.FOLLOWER, e(6, 2), N3);
        fire("LEADER_TIMEOUT");
        assertThat(elector.state().role())
                .as("its coordinator silent, it starts no election during its hold-off")
                .isEqualTo(Role.FOLLOWER);
        assertThat(takeHops()).noneMatch(s -> s.message() instanceof Election);
    }

    @Test
    void resignedMemberListedBeforeItResignedEndsTheElectionForTheOthers() {
        startElector(N4, MEMBERS, 11, e(2, 0), CONFIG);
        ctx.takeSent();
        elector.resign(HOLD_OFF_NANOS);

        deliver(N3, new Election(e(2, 0), id(), FROM_N1, 4, List.of(N4, N1, N2, N3)));

        assertState(Role.FOLLOWER, e(5, 2), N3);
        Coordinator c = (Coordinator) takeHops().get(0).message();
        assertThat(c.leader()).isEqualTo(N3);
        assertThat(c.ids()).containsExactly(N1, N2, N3);
    }

    @Test
    void memberNamedByAnElectionThatListedItBeforeItResignedDeclinesAndTellsTheOthers() {
        startElector(N4, MEMBERS, 11, 0, CONFIG);
        ctx.takeSent();
        elector.resign(HOLD_OFF_NANOS);

        deliver(N3, new Coordinator(e(5, 3), id(), FROM_N1, N4, MEMBERS));

        assertThat(ctx.announcements()).noneMatch(a -> a.state().role() == Role.LEADER);
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(takeHops()).filteredOn(s -> s.message() instanceof Resign).hasSize(3);
    }

    @Test
    void resignedHighestMemberElectsAgainAfterItsHoldOff() {
        lead();
        elector.resign(HOLD_OFF_NANOS);
        long resignedAt = ctx.nanoTime();
        deliver(N3, new Coordinator(e(6, 2), id(), FROM_N1, N3, List.of(N1, N2, N3)));
        ctx.takeSent();

        fire("PREEMPT");

        assertThat(ctx.nanoTime()).isGreaterThanOrEqualTo(resignedAt + HOLD_OFF_NANOS);
        assertThat(elector.state().role()).isEqualTo(Role.CANDIDATE);
        assertThat(((Election) takeHops().get(0).message()).ids()).containsExactly(N4);
    }
}
