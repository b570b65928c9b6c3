package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.StoredState;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.invitation.InvitationMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The invitation checkers can fail: each test breaks the real invitation elector in one way (its config, its
 * context or its outgoing messages) while the simulator still believes it runs the real one, and expects the
 * invariant that the breakage violates, with its seed and a replay that reproduces it.
 */
class InvitationMutationTest {
    private static final int MAX_SEEDS = 200;

    @Test
    void memberThatForgetsItsGroupCounterAcrossRestartsReusesNumbersAndIsCaught() {
        InvitationConfig real = InvitationConfig.defaults();
        ElectorSpec forgetful = DelegatingSpec.wrapping(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    @Override
                    public StoredState storedState() {
                        return StoredState.EMPTY;
                    }
                }));
        Violation v = Mutations.firstViolation("invitation", forgetful, Set.of("group-numbers-increase"), MAX_SEEDS);
        assertThat(v.message()).contains("after restarting").contains("after having been in group");
    }

    @Test
    void coordinatorThatActsWithoutAMajorityWhileTheGateIsOnIsCaught() {
        InvitationConfig gated = SimulationConfig.invitationGatedDefaults();
        InvitationConfig ungated = gated.toBuilder().majorityGate(false).build();
        Violation v = Mutations.firstViolation(
                "invitation-gated",
                DelegatingSpec.wrapping(gated, ungated::create),
                Set.of("no-overlapping-validity"),
                MAX_SEEDS);
        assertThat(v.message()).contains("are both valid leaders");
    }

    @Test
    void coordinatorThatTellsOneMemberADifferentMemberListIsCaught() {
        InvitationConfig real = InvitationConfig.defaults();
        ElectorSpec liar = DelegatingSpec.wrapping(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    @Override
                    public void send(NodeId to, ElectorMessage message) {
                        if (message instanceof InvitationMessage.Ready r
                                && r.members().size() >= 3) {
                            List<NodeId> fewer = new ArrayList<>(r.members());
                            fewer.removeIf(
                                    m -> !m.equals(to) && !m.equals(r.group().coordinator()));
                            message = new InvitationMessage.Ready(r.from(), r.group(), r.messageId(), fewer);
                        }
                        delegate.send(to, message);
                    }
                }));
        Violation v = Mutations.firstViolation("invitation", liar, Set.of("one-group-view-per-number"), MAX_SEEDS);
        assertThat(v.message()).contains("another member reported");
    }
}
