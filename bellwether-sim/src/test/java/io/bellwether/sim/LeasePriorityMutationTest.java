package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.StoreReply;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.lease.LeaseReply;
import io.bellwether.spi.LeaseRecord;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The highest-priority-leads check can fail for the lease algorithm: each test breaks the hand-over to a waiting
 * contender of higher priority (the holder ignores the claims, or the store never records them) and expects the
 * simulator to report it with a replayable seed.
 */
class LeasePriorityMutationTest {
    private static final int MAX_SEEDS = 100;
    private static final LeaseConfig CONFIG = SimulationConfig.leaseDefaults();

    private static Violation firstViolation(ElectorSpec spec, Consumer<Engine> setup) {
        SimulationConfig config = new SimulationConfig(
                        "lease",
                        spec,
                        5,
                        FaultKind.all(),
                        SimulationConfig.DEFAULT_FAULT_PHASE,
                        SimulationConfig.DEFAULT_QUIET_PHASE)
                .withPriorities(true);
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            RunResult r = Simulator.run(config, seed, false, setup);
            if (!r.ok()) {
                Violation v = r.violations().get(0);
                assertThat(v.invariant()).as("seed %d: %s", seed, v.message()).isEqualTo("highest-priority-leads");
                assertThat(v.replayCommand()).contains("--seed-start " + seed).endsWith(" --priorities");
                assertThat(Simulator.run(config, seed, false, setup).violations())
                        .containsExactly(v);
                return v;
            }
        }
        throw new AssertionError("no run of " + MAX_SEEDS + " seeds reported highest-priority-leads");
    }

    @Test
    void aHolderThatIgnoresClaimsIsCaught() {
        ElectorSpec blind = DelegatingSpec.wrappingEach(CONFIG, (spec, ctx) -> new ForwardingElector(spec.create(ctx)) {
            @Override
            public void onStoreReply(StoreReply reply) {
                if (reply instanceof LeaseReply.Lease l) {
                    LeaseRecord r = l.record();
                    reply = new LeaseReply.Lease(
                            l.requestId(),
                            new LeaseRecord(r.holder(), r.token(), r.expiresAtMillis(), r.storeNowMillis()));
                }
                inner.onStoreReply(reply);
            }
        });

        Violation v = firstViolation(blind, e -> {});

        assertThat(v.message()).contains("(highest-priority-leads)").contains("priority");
    }

    /**
     * A store that gives a free lease to a contender below a live claim lets the lease move twice on a hand-over
     * (to that contender, then on to the claimant): over the same runs it counts more takeovers than the store that
     * keeps a free lease for the claimant.
     */
    @Test
    void aStoreThatGivesAFreeLeasePastALiveClaimMovesTheLeaseMoreOften() {
        long kept = takeovers(false);
        long given = takeovers(true);
        System.out.println("lease takeovers over " + MAX_SEEDS + " runs: " + kept + " (free lease kept for the"
                + " claimant), " + given + " (given to anyone)");
        assertThat(kept).isLessThan(given);
    }

    private static long takeovers(boolean ignoreClaimsOnFreeLease) {
        SimulationConfig config =
                SimulationConfig.forAlgorithm("lease", 5, FaultKind.all()).withPriorities(true);
        long sum = 0;
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            Engine[] engine = new Engine[1];
            Simulator.run(config, seed, false, e -> {
                engine[0] = e;
                e.store.leaseStore.ignoreClaimsOnFreeLease = ignoreClaimsOnFreeLease;
            });
            sum += engine[0].store.leaseStore.acquisitions;
        }
        return sum;
    }

    @Test
    void aStoreThatDropsClaimsIsCaught() {
        Violation v = firstViolation(CONFIG, e -> e.store.leaseStore.dropClaims = true);

        assertThat(v.message()).contains("(highest-priority-leads)");
    }
}
