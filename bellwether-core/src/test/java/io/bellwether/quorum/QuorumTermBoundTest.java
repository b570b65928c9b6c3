package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.StoredState;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import io.bellwether.quorum.QuorumMessage.ScoutingRequest;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.bellwether.quorum.QuorumMessage.StandbyRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quorum elector and {@link Counters#LIMIT}: terms and sequences out of range never reach its state, even
 * from a driver that passes messages without encoding them; a huge term in range still leaves room to elect;
 * a member holding the last term of the range does not campaign (and so never persists a term out of range).
 */
class QuorumTermBoundTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final QuorumConfig CONFIG =
            QuorumConfig.builder().standby(false).build();

    private ScriptedContext ctx;
    private QuorumElector elector;

    private void start(long storedTerm) {
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        if (storedTerm > 0) {
            ctx.storeState(StoredState.EMPTY.with("term", storedTerm));
        }
        elector = (QuorumElector) CONFIG.create(ctx);
        elector.start();
    }

    @Test
    void followerIgnoresEveryMessageCarryingATermOrSequenceOutOfRange() {
        start(7);
        for (long extreme : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 1, Counters.LIMIT, Counters.LIMIT + 1}) {
            elector.onMessage(N1, new Heartbeat(extreme, 1));
            elector.onMessage(N1, new ElectionProposal(extreme));
            elector.onMessage(N1, new HeartbeatResponse(extreme, 1));
            elector.onMessage(N1, new ScoutingResponse(8, false, extreme));
            elector.onMessage(N1, new Heartbeat(8, extreme));
            elector.onMessage(N1, new StandbyRequest(7, extreme));
        }
        elector.onMessage(N1, new Heartbeat(-1, 1));

        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent()).isEmpty();
        assertThat(elector.term()).isEqualTo(7);
        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(elector.state().leader()).isEmpty();
    }

    @Test
    void followerAdoptsTheLastTermOfTheRangeFromALeader() {
        start(7);
        elector.onMessage(N1, new Heartbeat(Counters.LIMIT - 1, 1));

        assertThat(elector.term()).isEqualTo(Counters.LIMIT - 1);
        assertThat(ctx.persisted()).last().isEqualTo(StoredState.EMPTY.with("term", Counters.LIMIT - 1));
        assertThat(elector.state().leader()).contains(N1);
    }

    @Test
    void followerAtAHugeTermInRangeStillScoutsForTheNextOne() {
        start(Counters.LIMIT - 2);
        elector.onTimer(ctx.fire("BACKOFF"));

        assertThat(elector.role).isEqualTo(QuorumRole.SCOUT);
        assertThat(ctx.sent())
                .extracting(ScriptedContext.Sent::message)
                .containsOnly(new ScoutingRequest(Counters.LIMIT - 1));
    }

    @Test
    void followerAtTheLastTermOfTheRangeDoesNotCampaignAndPersistsNothing() {
        start(Counters.LIMIT - 1);
        elector.onTimer(ctx.fire("BACKOFF"));

        assertThat(elector.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.sent()).isEmpty();
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.armed("BACKOFF")).as("it tries again later").isTrue();
    }

    @Test
    void startRefusesAStoredTermOrPledgeOutOfRange() {
        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("term", Long.MAX_VALUE));
        QuorumElector e = (QuorumElector) CONFIG.create(ctx);
        assertThatThrownBy(e::start)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stored term " + Long.MAX_VALUE)
                .hasMessageContaining("out of range");

        ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 42);
        ctx.storeState(StoredState.EMPTY.with("pledge", -3));
        QuorumElector f = (QuorumElector) CONFIG.create(ctx);
        assertThatThrownBy(f::start).hasMessageContaining("stored pledge -3");
    }
}
