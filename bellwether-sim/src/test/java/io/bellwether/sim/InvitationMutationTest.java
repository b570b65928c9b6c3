package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.StoredState;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.invitation.InvitationMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The invitation checkers can fail: each test breaks the real invitation elector in one way (its config, its
 * context or its outgoing messages) while the simulator still believes it runs the real one, and expects the
 * invariant that the breakage violates, with its seed and a replay that reproduces it.
 */
class InvitationMutationTest {
    private static final int MAX_SEEDS = 200;

    private static ElectorSpec mutant(ElectorSpec real, Function<ElectorContext, Elector> create) {
        return new DelegatingSpec() {
            @Override
            public ElectorSpec delegate() {
                return real;
            }

            @Override
            public Elector create(ElectorContext context) {
                return create.apply(context);
            }
        };
    }

    private static Violation firstViolation(String algorithm, ElectorSpec spec, Set<String> expected) {
        SimulationConfig config = new SimulationConfig(
                algorithm,
                spec,
                5,
                FaultKind.all(),
                SimulationConfig.DEFAULT_FAULT_PHASE,
                SimulationConfig.DEFAULT_QUIET_PHASE);
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            RunResult r = Simulator.run(config, seed, false);
            if (!r.ok() && expected.contains(r.violations().get(0).invariant())) {
                Violation v = r.violations().get(0);
                assertThat(v.seed()).isEqualTo(seed);
                assertThat(v.replayCommand())
                        .startsWith("./bellwether simulate --algorithm " + algorithm + " ")
                        .contains("--seed-start " + seed);
                assertThat(v.excerpt()).isNotEmpty().hasSizeLessThanOrEqualTo(40);
                assertThat(Simulator.run(config, seed, false).violations()).containsExactly(v);
                return v;
            }
        }
        throw new AssertionError("no run of " + MAX_SEEDS + " seeds reported any of " + expected);
    }

    @Test
    void memberThatForgetsItsGroupCounterAcrossRestartsReusesNumbersAndIsCaught() {
        InvitationConfig real = InvitationConfig.defaults();
        ElectorSpec forgetful = mutant(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    @Override
                    public StoredState storedState() {
                        return StoredState.EMPTY;
                    }
                }));
        Violation v = firstViolation("invitation", forgetful, Set.of("group-numbers-increase"));
        assertThat(v.message()).contains("after restarting").contains("after having been in group");
    }

    @Test
    void coordinatorThatActsWithoutAMajorityWhileTheGateIsOnIsCaught() {
        InvitationConfig gated = SimulationConfig.invitationGatedDefaults();
        InvitationConfig ungated = gated.toBuilder().majorityGate(false).build();
        Violation v =
                firstViolation("invitation-gated", mutant(gated, ungated::create), Set.of("no-overlapping-validity"));
        assertThat(v.message()).contains("are both valid leaders");
    }

    @Test
    void coordinatorThatTellsOneMemberADifferentMemberListIsCaught() {
        InvitationConfig real = InvitationConfig.defaults();
        ElectorSpec liar = mutant(
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
        Violation v = firstViolation("invitation", liar, Set.of("one-group-view-per-number"));
        assertThat(v.message()).contains("another member reported");
    }
}
