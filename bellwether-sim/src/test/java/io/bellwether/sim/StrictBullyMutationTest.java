package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyConfig;
import io.bellwether.bully.BullyMessage;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The strict-mode checks can fail: each test breaks the real strict bully elector in one way that strict mode
 * exists to prevent, while the simulator still believes it runs the real one, and expects the strict check that
 * the breakage violates, with its seed and a replay that reproduces it.
 */
class StrictBullyMutationTest {
    private static final int MAX_SEEDS = 200;

    @Test
    void haltedLeaderThatKeepsActingIsCaught() {
        BullyConfig real = SimulationConfig.bullyStrictDefaults();
        // It answers the Halt (the elector does) but never tells its application that it stopped leading.
        ElectorSpec stubborn = DelegatingSpec.wrapping(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    private ElectorState told = ElectorState.DORMANT;

                    @Override
                    public void announce(ElectorState state, ChangeReason reason) {
                        if (told.role() == Role.LEADER && reason == ChangeReason.HALTED) {
                            return;
                        }
                        told = state;
                        delegate.announce(state, reason);
                    }
                }));
        Violation v =
                Mutations.firstViolation("bully-strict", stubborn, Set.of("strict-ready-only-to-adopters"), MAX_SEEDS);
        assertThat(v.message()).contains("still acts as LEADER");
    }

    @Test
    void memberThatFollowsOnNewCoordinatorWithoutWaitingForReadyIsCaught() {
        BullyConfig real = SimulationConfig.bullyStrictDefaults();
        // It treats NewCoordinator as if the Ready had come with it: it names the winner one phase early.
        ElectorSpec hasty = DelegatingSpec.wrapping(real, ctx -> new ForwardingElector(real.create(ctx)) {
            private long fakeId = Long.MAX_VALUE / 2;

            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                inner.onMessage(from, message);
                if (message instanceof BullyMessage.NewCoordinator nc) {
                    inner.onMessage(from, new BullyMessage.Ready(nc.epoch(), fakeId++));
                }
            }
        });
        Violation v =
                Mutations.firstViolation("bully-strict", hasty, Set.of("strict-follow-only-after-ready"), MAX_SEEDS);
        assertThat(v.message()).contains("without having received its Ready");
    }
}
