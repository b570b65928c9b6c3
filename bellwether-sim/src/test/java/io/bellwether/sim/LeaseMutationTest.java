package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.ElectorSpec;
import io.bellwether.lease.LeaseConfig;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The lease checkers can fail: each test breaks the lease elector, its configuration or the store in one way
 * and expects the simulator to report an invariant the breakage violates, with a seed that replays it.
 */
class LeaseMutationTest {
    private static final int MAX_SEEDS = 300;
    private static final LeaseConfig CONFIG = SimulationConfig.leaseDefaults();

    private static Violation firstViolation(ElectorSpec spec, Consumer<Engine> setup, Set<String> expected) {
        SimulationConfig config = new SimulationConfig(
                "lease",
                spec,
                5,
                LeaseSimulationTest.LEASE_FAULTS,
                SimulationConfig.DEFAULT_FAULT_PHASE,
                SimulationConfig.DEFAULT_QUIET_PHASE);
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            RunResult r = Simulator.run(config, seed, false, setup);
            if (!r.ok()) {
                Violation v = r.violations().get(0);
                assertThat(v.invariant())
                        .as("first violation of seed %d: %s", seed, v.message())
                        .isIn(expected);
                assertThat(v.replayCommand()).contains("--algorithm lease").contains("--seed-start " + seed);
                assertThat(v.excerpt()).isNotEmpty();
                assertThat(Simulator.run(config, seed, false, setup).violations())
                        .containsExactly(v);
                return v;
            }
        }
        throw new AssertionError("no run of " + MAX_SEEDS + " seeds reported any of " + expected);
    }

    @Test
    void aValidityLongerThanTheLeaseIsCaught() {
        long extra = CONFIG.duration().toNanos() / 2;
        ElectorSpec inflated = DelegatingSpec.wrapping(
                CONFIG,
                ctx -> CONFIG.create(new ForwardingContext(ctx) {
                    @Override
                    public void validUntil(long nanos) {
                        delegate.validUntil(nanos + extra);
                    }
                }));
        Violation v = firstViolation(inflated, e -> {}, Set.of("validity-within-lease", "no-overlapping-validity"));
        assertThat(v.message()).containsPattern("n\\d");
    }

    @Test
    void ignoringDriftAndMarginIsCaughtWhenClocksDrift() {
        // Clocks drift by up to 1% (the delegate's bound), but validity assumes perfect clocks and no margin.
        LeaseConfig naive = CONFIG.toBuilder()
                .maxClockDrift(0)
                .validityMargin(Duration.ZERO)
                .build();
        ElectorSpec spec = DelegatingSpec.wrapping(CONFIG, naive::create);
        Violation v = firstViolation(spec, e -> {}, Set.of("validity-within-lease", "no-overlapping-validity"));
        assertThat(v.message()).contains("token");
    }

    @Test
    void aStoreThatReusesTokensOnTakeoverIsCaught() {
        Violation v = firstViolation(
                CONFIG,
                e -> e.store.leaseStore.keepTokenOnTakeover = true,
                Set.of("leader-epoch-increases", "fenced-resource-accepted-stale-write"));
        assertThat(v.message()).contains("epoch");
    }
}
