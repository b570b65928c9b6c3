package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorState;
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
import io.bellwether.quorum.QuorumMessage.StandbyReady;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link QuorumElector#resign}: a leader gives up leadership through the cession path of a graceful stop (rule 10's
 * ready standby, else rule 9's prepared successor), stays a follower, and does not try to lead during its hold-off.
 * The member under test is n2.
 */
class QuorumResignTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();
    private static final long ET_MS = CONFIG.electionTimeout().toMillis();
    private static final long HOLD_OFF_MS = 1_000;

    private ScriptedContext ctx;
    private QuorumElector elector;

    private void deliver(NodeId from, QuorumMessage message) {
        elector.onMessage(from, message);
    }

    private void fire(String timer) {
        elector.onTimer(ctx.fire(timer));
    }

    private static long ms(long millis) {
        return millis * 1_000_000L;
    }

    /** n2 leads term 8 among three, elected with n3's vote; n3 is its standby for term 9, not ready yet. */
    private void leadTerm8() {
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("term", 7));
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
        ctx.advanceMillis(ET_MS);
        fire("BACKOFF");
        deliver(N3, new ScoutingResponse(8, true, 7));
        deliver(N3, new ElectionResponse(8));
        assertThat(elector.state().role()).isEqualTo(Role.LEADER);
        assertThat(ctx.sent()).contains(new Sent(N3, new StandbyRequest(8, 9)));
        ctx.takeSent();
    }

    /** n2 has resigned from term 8 to its ready standby n3, and follows n3 in term 9. */
    private void resignedToStandbyN3() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 9));
        ctx.takeSent();
        elector.resign(ms(HOLD_OFF_MS));
        ctx.takeSent();
        ctx.advanceMillis(1);
        deliver(N3, new Heartbeat(9, 1));
        assertThat(elector.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 9, Optional.of(N3)));
        ctx.takeSent();
    }

    @Test
    void leaderToFollowerWithAReadyStandbyRevokesThenCedesToTheStandbyAloneAndStays() {
        leadTerm8();
        deliver(N3, new StandbyReady(8, 9));
        ctx.takeSent();

        elector.resign(ms(HOLD_OFF_MS));

        assertThat(ctx.lastAnnouncement().state()).isEqualTo(new ElectorState(Role.FOLLOWER, 8, Optional.empty()));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.sentBeforeLastAnnouncement())
                .as("revoked before anything leaves")
                .isZero();
        assertThat(ctx.sent())
                .as("the standby alone, named: it leads on the cession (rule 10.5)")
                .containsExactly(new Sent(N3, new LeadershipCession(8, Optional.of(N3))));
        assertThat(ctx.armed("HEARTBEAT")).isFalse();
        assertThat(ctx.deadline("BACKOFF"))
                .as("it scouts only after its hold-off")
                .hasValueSatisfying(at -> assertThat(at).isGreaterThanOrEqualTo(ctx.nanoTime() + ms(HOLD_OFF_MS)));
    }

    @Test
    void resignedLeaderFollowsTheStandbyThatTookOverAndKeepsAnswering() {
        resignedToStandbyN3();

        deliver(N3, new Heartbeat(9, 2));

        assertThat(ctx.sent()).containsExactly(new Sent(N3, new HeartbeatResponse(9, 2)));
        assertThat(elector.term()).isEqualTo(9);
    }

    @Test
    void leaderToFollowerWithoutAReadyStandbyPreparesItsSuccessorLeadsOnThenCedesAndStays() {
        leadTerm8();

        elector.resign(ms(HOLD_OFF_MS));

        assertThat(elector.state().role())
                .as("it leads on while the successor gathers votes")
                .isEqualTo(Role.LEADER);
        assertThat(ctx.takeSent())
                .as("rule 9.1: its standby, not ready, is asked to take over")
                .containsExactly(new Sent(N3, new HandoverRequest(8)));
        assertThat(ctx.armed("HEARTBEAT")).isFalse();
        assertThat(ctx.armed("HANDOVER")).isTrue();

        deliver(N3, new HandoverReady(8));

        assertThat(ctx.lastAnnouncement().state()).isEqualTo(new ElectorState(Role.FOLLOWER, 8, Optional.empty()));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.sentBeforeLastAnnouncement()).isZero();
        assertThat(ctx.sent())
                .as("the successor first")
                .containsExactly(
                        new Sent(N3, new LeadershipCession(8, Optional.of(N3))),
                        new Sent(N1, new LeadershipCession(8, Optional.of(N3))));
        assertThat(ctx.armed("HANDOVER")).isFalse();
    }

    @Test
    void aLeaderStoppedWhileItsResignationsHandoverRunsCedesAndGoesDormant() {
        leadTerm8();
        elector.resign(ms(HOLD_OFF_MS));
        ctx.takeSent();

        assertThat(elector.beginStop())
                .as("the handover under way is the stop's")
                .isTrue();
        deliver(N3, new HandoverReady(8));

        // Stopping, not resigning any more: DORMANT, which is what the runtime waits for to end close().
        assertThat(ctx.lastAnnouncement().state().role()).isEqualTo(Role.DORMANT);
        assertThat(ctx.sent()).extracting(Sent::message).contains(new LeadershipCession(8, Optional.of(N3)));
    }

    @Test
    void resigningLeaderWhoseSuccessorDoesNotReportCedesOnTheHandoverDeadlineAndStays() {
        leadTerm8();
        elector.resign(ms(HOLD_OFF_MS));
        ctx.takeSent();

        fire("HANDOVER");

        assertThat(ctx.lastAnnouncement().state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new LeadershipCession(8, Optional.of(N3)));
        ctx.takeSent();
        deliver(N3, new ElectionProposal(9, Optional.of(N2)));
        assertThat(ctx.sent())
                .as("it still votes: for the successor it named")
                .containsExactly(new Sent(N3, new ElectionResponse(9)));
    }

    @Test
    void resignedMemberTakesNoStandbyRoleNoHandoverAndNoCessionDuringItsHoldOff() {
        resignedToStandbyN3();

        deliver(N3, new StandbyRequest(9, 10));
        deliver(N3, new HandoverRequest(9));
        assertThat(ctx.sent()).as("no standby round, no proposal").isEmpty();
        assertThat(ctx.persisted()).noneMatch(s -> s.get("pledge", 0) == 10);

        deliver(N3, new LeadershipCession(9, Optional.of(N2)));
        assertThat(elector.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 9, Optional.empty()));
        assertThat(ctx.sent())
                .as("named successor, but holding off: no proposal")
                .isEmpty();

        fire("BACKOFF");
        assertThat(ctx.sent()).as("no scouting during the hold-off").isEmpty();
    }

    @Test
    void resignedMemberScoutsAgainOnceItsHoldOffIsOver() {
        resignedToStandbyN3();
        deliver(N3, new LeadershipCession(9, Optional.of(N2)));
        long resignedAt = ctx.nanoTime();

        while (ctx.sent().isEmpty()) {
            fire("BACKOFF");
        }

        assertThat(ctx.nanoTime()).isGreaterThanOrEqualTo(resignedAt + ms(HOLD_OFF_MS) - ms(2));
        assertThat(ctx.sent()).extracting(Sent::message).containsOnly(new ScoutingRequest(10));
    }

    @Test
    void followerThatResignsOnlyStartsItsHoldOff() {
        leadTerm8();
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("term", 5));
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
        ctx.advanceMillis(1);
        deliver(N1, new Heartbeat(5, 1));
        ctx.takeSent();
        int announcements = ctx.announcements().size();

        elector.resign(ms(HOLD_OFF_MS));

        assertThat(ctx.announcements()).hasSize(announcements);
        assertThat(ctx.sent()).isEmpty();
        assertThat(elector.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 5, Optional.of(N1)));
        deliver(N1, new HandoverRequest(5));
        assertThat(ctx.sent()).as("holding off: it does not take over").isEmpty();
        deliver(N1, new Heartbeat(5, 2));
        assertThat(ctx.sent()).as("it keeps following").containsExactly(new Sent(N1, new HeartbeatResponse(5, 2)));
    }

    @Test
    void candidateThatResignsGivesUpItsCandidacy() {
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("term", 7));
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
        ctx.advanceMillis(ET_MS);
        fire("BACKOFF");
        deliver(N3, new ScoutingResponse(8, true, 7));
        assertThat(elector.role).isEqualTo(QuorumRole.CANDIDATE);

        elector.resign(ms(HOLD_OFF_MS));
        deliver(N3, new ElectionResponse(8));

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.announcements()).noneMatch(a -> a.state().role() == Role.LEADER);
    }
}
