package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.lease.LeaseConfig;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The no-leadership-during-hold-off check can fail: an elector that resigns but ignores the hold-off it was given
 * (it resigns with none) leads again within it, and the simulator reports that with its seed and a replay command.
 */
class ResignMutationTest {
    private static final int MAX_SEEDS = 100;

    @Test
    void bullyThatIgnoresItsHoldOffIsCaught() {
        BullyConfig real = BullyConfig.defaults();
        ElectorSpec forgetful = DelegatingSpec.wrapping(real, ctx -> new ForwardingElector(real.create(ctx)) {
            @Override
            public void resign(long holdOffNanos) {
                inner.resign(0);
            }
        });

        Violation v = Mutations.firstViolation(
                "bully", forgetful, 5, Set.of(FaultKind.RESIGN), Set.of("no-leadership-during-hold-off"), MAX_SEEDS);

        assertThat(v.message()).contains("before the end of the hold-off it resigned with");
        assertThat(v.excerpt()).anySatisfy(entry -> assertThat(entry.toString()).contains("resign"));
    }

    @Test
    void leaseThatIgnoresItsHoldOffIsCaught() {
        LeaseConfig real = SimulationConfig.leaseDefaults();
        ElectorSpec forgetful = DelegatingSpec.wrapping(real, ctx -> new ForwardingElector(real.create(ctx)) {
            @Override
            public void resign(long holdOffNanos) {
                inner.resign(0);
            }
        });

        Violation v = Mutations.firstViolation(
                "lease", forgetful, 5, Set.of(FaultKind.RESIGN), Set.of("no-leadership-during-hold-off"), MAX_SEEDS);

        assertThat(v.message()).contains("announced leadership");
    }
}
