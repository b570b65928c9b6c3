package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyMessage.Accepted;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Halt;
import io.bellwether.bully.BullyMessage.NewCoordinator;
import io.bellwether.bully.BullyMessage.Ready;
import io.bellwether.bully.BullyMessage.Resign;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.RankedPeerElector;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.ScriptedContext.Sent;
import io.bellwether.elector.StoredState;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RankedPeerElector#resign} in both bully modes: the highest member, leading, resigns; it revokes before it
 * tells the others, answers no election and claims nothing during its hold-off (so a lower member leads), follows
 * that member, and with pre-emption takes over again once the hold-off is over. Members are n1 &lt; n2 &lt; n3.
 */
class BullyResignTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3);
    private static final long HOLD_OFF_NANOS = 2_000_000_000L;

    private ScriptedContext ctx;
    private RankedPeerElector<BullyMessage> elector;
    private long nextId = 5_000;

    private static long e(long counter, int rank) {
        return io.bellwether.elector.RankedEpoch.of(counter, rank);
    }

    @SuppressWarnings("unchecked")
    private void start(BullyConfig config) {
        ctx = new ScriptedContext(N3, MEMBERS, 7);
        ctx.storeState(StoredState.EMPTY.with("epoch", e(2, 2)).with("counter", 2));
        elector = (RankedPeerElector<BullyMessage>) config.create(ctx);
        elector.start();
    }

    private void fire(String timer) {
        elector.onTimer(ctx.fire(timer));
    }

    /** n3 leads at e(3, 2) in simple mode. */
    private void leadSimple() {
        start(BullyConfig.defaults());
        fire("DISCOVERY");
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        ctx.takeSent();
    }

    /** n3 leads at e(3, 2) in strict mode, both lower members having accepted each step. */
    private void leadStrict() {
        start(BullyConfig.defaults().toBuilder().strict(true).build());
        ctx.takeSent();
        fire("DISCOVERY");
        for (int step = 0; step < 2; step++) {
            for (Sent s : ctx.takeSent()) {
                elector.onMessage(s.to(), new Accepted(0, nextId++, ((BullyMessage) s.message()).messageId()));
            }
        }
        ctx.takeSent();
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
    }

    private void assertResignedAndToldTheOthers(long ledEpoch) {
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(elector.state().leader()).isEmpty();
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.sentBeforeLastAnnouncement())
                .as("revoked before anything leaves")
                .isZero();
        assertThat(ctx.sent()).extracting(Sent::to).containsExactly(N1, N2);
        assertThat(ctx.sent()).allSatisfy(s -> assertThat(s.message())
                .isInstanceOfSatisfying(Resign.class, r -> assertThat(r.epoch()).isEqualTo(ledEpoch)));
    }

    @Test
    void simpleLeaderToFollowerResignsAnswersNoElectionAndFollowsTheLowerWinner() {
        leadSimple();

        elector.resign(HOLD_OFF_NANOS);

        assertResignedAndToldTheOthers(e(3, 2));
        ctx.takeSent();
        elector.onMessage(N2, new Election(e(3, 2), nextId++));
        assertThat(ctx.sent())
                .as("no OK, no election: n2 wins on its answer timeout")
                .isEmpty();
        assertThat(ctx.deadline("DISCOVERY"))
                .as("without a coordinator it elects only once the hold-off is over")
                .hasValueSatisfying(at -> assertThat(at).isGreaterThanOrEqualTo(HOLD_OFF_NANOS));
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);

        elector.onMessage(N2, new Coordinator(e(4, 1), nextId++));
        assertThat(elector.state().leader()).contains(N2);
        assertThat(ctx.deadline("PREEMPT"))
                .as("pre-emption only after the hold-off")
                .hasValueSatisfying(at -> assertThat(at).isGreaterThanOrEqualTo(HOLD_OFF_NANOS));
    }

    @Test
    void simpleResignedHighestMemberPreemptsTheLowerCoordinatorOnceItsHoldOffIsOver() {
        leadSimple();
        elector.resign(HOLD_OFF_NANOS);
        long resignedAt = ctx.nanoTime();
        elector.onMessage(N2, new Coordinator(e(4, 1), nextId++));
        ctx.takeSent();

        fire("PREEMPT");

        assertThat(ctx.nanoTime()).isGreaterThanOrEqualTo(resignedAt + HOLD_OFF_NANOS);
        assertThat(elector.state().role()).as("the highest id leads again").isEqualTo(Role.LEADER);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.ELECTED);
    }

    @Test
    void simpleResignWithoutPreemptionLeavesTheLowerCoordinatorLeading() {
        start(BullyConfig.defaults().toBuilder().preemption(false).build());
        fire("DISCOVERY");
        elector.resign(HOLD_OFF_NANOS);
        elector.onMessage(N2, new Coordinator(e(4, 1), nextId++));

        assertThat(ctx.armed("PREEMPT")).isFalse();
        assertThat(elector.state().leader()).contains(N2);
    }

    @Test
    void strictLeaderToFollowerResignsAndJoinsTheLowerWinnersGroupDuringItsHoldOff() {
        leadStrict();
        long led = elector.epoch();

        elector.resign(HOLD_OFF_NANOS);

        assertResignedAndToldTheOthers(led);
        ctx.takeSent();
        elector.onMessage(N2, new Election(led, nextId++));
        assertThat(ctx.sent()).as("no OK").isEmpty();

        long halt = nextId++;
        elector.onMessage(N2, new Halt(e(4, 1), halt));
        assertThat(ctx.takeSent())
                .as("it may not pre-empt during its hold-off: it accepts the lower winner")
                .singleElement()
                .satisfies(s -> assertThat(s.message()).isInstanceOf(Accepted.class));
        elector.onMessage(N2, new NewCoordinator(e(4, 1), nextId++));
        elector.onMessage(N2, new Ready(e(4, 1), nextId++));
        assertThat(elector.state().leader()).contains(N2);
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.announcements())
                .filteredOn(a -> a.state().role() == Role.LEADER)
                .hasSize(1);
    }

    @Test
    void strictResignedHighestMemberPreemptsOnceItsHoldOffIsOver() {
        leadStrict();
        elector.resign(HOLD_OFF_NANOS);
        long resignedAt = ctx.nanoTime();
        elector.onMessage(N2, new Halt(e(4, 1), nextId++));
        elector.onMessage(N2, new NewCoordinator(e(4, 1), nextId++));
        elector.onMessage(N2, new Ready(e(4, 1), nextId++));
        ctx.takeSent();

        fire("PREEMPT");

        assertThat(ctx.nanoTime()).isGreaterThanOrEqualTo(resignedAt + HOLD_OFF_NANOS);
        assertThat(ctx.sent())
                .as("it halts the group to take over")
                .isNotEmpty()
                .allSatisfy(s -> assertThat(s.message()).isInstanceOf(Halt.class));
    }

    @Test
    void candidateThatResignsGivesUpItsElection() {
        ctx = new ScriptedContext(N2, MEMBERS, 7);
        elector = castCreate(BullyConfig.defaults());
        elector.start();
        fire("DISCOVERY");
        assertThat(elector.state().role()).isEqualTo(Role.CANDIDATE);

        elector.resign(HOLD_OFF_NANOS);

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.armed("ANSWER"))
                .as("it cannot win on the answer timeout")
                .isFalse();
    }

    @Test
    void followerThatResignsOnlyStartsItsHoldOff() {
        ctx = new ScriptedContext(N2, MEMBERS, 7);
        elector = castCreate(BullyConfig.defaults());
        elector.start();
        elector.onMessage(N3, new Coordinator(e(1, 2), nextId++));
        ctx.takeSent();
        int announcements = ctx.announcements().size();

        elector.resign(HOLD_OFF_NANOS);

        assertThat(ctx.announcements()).hasSize(announcements);
        assertThat(ctx.sent()).isEmpty();
        assertThat(elector.state().leader()).contains(N3);
    }

    @SuppressWarnings("unchecked")
    private RankedPeerElector<BullyMessage> castCreate(BullyConfig config) {
        return (RankedPeerElector<BullyMessage>) config.create(ctx);
    }
}
