package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Environment;
import io.bellwether.elector.RankedElectorTestBase;
import io.bellwether.elector.ScriptedContext.Sent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bully with priorities: the group is ordered by (priority, id), so a member of higher priority outranks every member
 * of lower priority whatever the ids, in elections, in epochs and in pre-emption. Members n1 < n2 < n3 by id, with
 * priorities n1 = 5, n2 = 0, n3 = 0: the order is n2 (rank 0), n3 (rank 1), n1 (rank 2).
 */
class BullyPriorityTest extends RankedElectorTestBase<BullyElector> {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3);
    private static final BullyConfig CONFIG =
            BullyConfig.builder().priorities("n1=5").build();

    BullyPriorityTest() {
        super(BullyElector.class);
    }

    @Test
    void followerToCandidateSendsElectionOnlyToTheMemberOfHigherPriority() {
        startElector(N3, MEMBERS, 7, 0, CONFIG);
        ctx.takeSent();

        fire("DISCOVERY");

        assertState(Role.CANDIDATE, 0, null);
        List<Sent> sent = ctx.takeSent();
        assertThat(sent).extracting(Sent::to).containsExactly(N1);
        assertThat(sent.get(0).message()).isInstanceOf(Election.class);
    }

    @Test
    void memberOfHighestPriorityToLeaderAtOnceThoughItsIdIsTheLowest() {
        startElector(N1, MEMBERS, 7, e(2, 0), CONFIG);

        fire("DISCOVERY");

        assertState(Role.LEADER, e(3, 2), N1);
        assertReason(ChangeReason.ELECTED);
        assertThat(ctx.armed("ANSWER")).isFalse();
        assertThat(ctx.sent())
                .filteredOn(s -> s.message() instanceof Coordinator)
                .extracting(Sent::to)
                .containsExactlyInAnyOrder(N2, N3);
    }

    @Test
    void memberOfHigherPriorityPreemptsAHigherIdCoordinatorAfterTheHoldDown() {
        startElector(N1, MEMBERS, 7, 0, CONFIG);
        ctx.takeSent();

        deliver(N3, new Heartbeat(e(4, 1), id()));
        assertState(Role.FOLLOWER, e(4, 1), N3);
        assertThat(ctx.armed("PREEMPT")).isTrue();
        fire("PREEMPT");

        assertThat(elector.state().role())
                .as("n3 ranks below n1: n1 takes over, winning at once as the highest")
                .isEqualTo(Role.LEADER);
        assertThat(elector.epoch()).isEqualTo(e(5, 2));
    }

    @Test
    void electionFromAMemberOfHigherPriorityIsNotAnswered() {
        startElector(N3, MEMBERS, 7, 0, CONFIG);
        ctx.takeSent();

        deliver(N1, new Election(0, id()));

        assertThat(ctx.sent())
                .as("n1 outranks n3: no OK, no election of n3's own")
                .isEmpty();
    }

    @Test
    void prioritiesAreCheckedNamingTheKeyAndTheRange() {
        assertThatThrownBy(() -> BullyConfig.builder().priorities("n1=1001"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priorities = {n1=1001} is out of range: n1 has 1001, allowed -1000 to 1000");
        assertThatThrownBy(() -> BullyConfig.builder().priorities("n1=5,n2"))
                .hasMessageStartingWith("priorities = 'n1=5,n2' is invalid at 'n2': allowed member=priority pairs");
        assertThatThrownBy(() -> BullyConfig.builder().priorities("n1=5,n1=2"))
                .hasMessage("priorities = 'n1=5,n1=2' is invalid: n1 is named twice");
        assertThatThrownBy(() -> BullyAlgorithm.INSTANCE.check("priority", 5))
                .hasMessageStartingWith("priority = 5 is not supported by the bully algorithm: ")
                .hasMessageContaining("priorities");
        BullyConfig configured = (BullyConfig)
                BullyAlgorithm.INSTANCE.configure(Map.of("priorities", "n2=3, n1=-1"), Environment.of(""));
        assertThat(configured.priorities()).containsExactly(Map.entry(N1, -1), Map.entry(N2, 3));
        assertThat(configured.withPriorities(Map.of(N3, 0), N1).priorities()).isEmpty();
        assertThat(
                        BullyConfig.defaults().toBuilder()
                                .preemptionHoldDown(Duration.ZERO)
                                .priorities(Map.of(N3, 1))
                                .build()
                                .toBuilder()
                                .build()
                                .priorities())
                .containsExactly(Map.entry(N3, 1));
    }
}
