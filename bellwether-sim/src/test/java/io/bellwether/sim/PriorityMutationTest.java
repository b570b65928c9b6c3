package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.quorum.QuorumMessage.HeartbeatResponse;
import java.time.Duration;
import java.util.Set;
import java.util.function.IntBinaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The priority checks can fail: each test breaks the quorum leader's hand-over of rule 11 by changing the priorities
 * it reads from its followers' heartbeat answers, and expects the simulator to report it with a replayable seed.
 */
@Tag("quorum")
class PriorityMutationTest {
    private static final int MAX_SEEDS = 100;
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();

    /** A spec whose leaders read {@code seen(own priority, announced priority)} for each answer's priority. */
    private static ElectorSpec misreading(IntBinaryOperator seen) {
        return DelegatingSpec.wrappingEach(CONFIG, (spec, ctx) -> new ForwardingElector(spec.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof HeartbeatResponse r) {
                    message = new HeartbeatResponse(
                            r.term(), r.sequence(), seen.applyAsInt(spec.priority(), r.priority()));
                }
                inner.onMessage(from, message);
            }
        });
    }

    private static Violation firstViolation(ElectorSpec spec, Set<String> expected) {
        SimulationConfig config = new SimulationConfig(
                        "quorum",
                        spec,
                        5,
                        FaultKind.all(),
                        SimulationConfig.DEFAULT_FAULT_PHASE,
                        SimulationConfig.DEFAULT_QUIET_PHASE)
                .withPriorities(true);
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            RunResult r = Simulator.run(config, seed, false);
            if (!r.ok() && expected.contains(r.violations().get(0).invariant())) {
                Violation v = r.violations().get(0);
                assertThat(v.replayCommand()).contains("--seed-start " + seed).endsWith(" --priorities");
                assertThat(Simulator.run(config, seed, false).violations()).containsExactly(v);
                return v;
            }
        }
        throw new AssertionError("no run of " + MAX_SEEDS + " seeds reported any of " + expected);
    }

    @Test
    void aLeaderThatNeverHandsOverIsCaught() {
        Violation v = firstViolation(misreading((own, announced) -> 0), Set.of("highest-priority-leads"));

        assertThat(v.message()).contains("(highest-priority-leads)").contains("after the quiet phase began");
    }

    @Test
    void aLeaderThatHandsOverToLowerPrioritiesIsCaught() {
        // Priorities read upside down: the leader prefers the members of lower priority.
        Violation v = firstViolation(
                misreading((own, announced) -> SimulationConfig.PRIORITY_LEVELS - 1 - announced),
                Set.of("highest-priority-leads", "single-leader-after-quiet"));

        assertThat(v.message()).contains("priority");
    }

    @Test
    void leadersThatHandOverToEqualPrioritiesPingPongAndAreCaught() {
        // Every member looks one above the leader: the strict "higher than mine" of rule 11 is gone, so leadership
        // moves on after every hold-down, back and forth.
        Violation v = firstViolation(
                misreading((own, announced) -> own + 1), Set.of("single-leader-after-quiet", "highest-priority-leads"));

        assertThat(v.message()).containsAnyOf("leadership changed after convergence", "no single known leader");
    }

    @Test
    void bullyThatIgnoresThePrioritiesIsCaught() {
        // The group's priorities never reach the electors: they elect by id alone.
        BullyConfig real = BullyConfig.defaults();
        ElectorSpec idOrder = DelegatingSpec.wrappingEach(real, (spec, ctx) -> real.create(ctx));
        SimulationConfig config = new SimulationConfig(
                        "bully",
                        idOrder,
                        5,
                        FaultKind.all(),
                        SimulationConfig.DEFAULT_FAULT_PHASE,
                        SimulationConfig.DEFAULT_QUIET_PHASE)
                .withPriorities(true);
        Violation v = null;
        for (long seed = 1; seed <= MAX_SEEDS && v == null; seed++) {
            RunResult r = Simulator.run(config, seed, false);
            if (!r.ok()) {
                v = r.violations().get(0);
            }
        }

        assertThat(v).isNotNull();
        assertThat(v.invariant()).isEqualTo("highest-priority-leads");
        assertThat(v.message()).contains("is the highest live (priority, id)");
    }

    @Test
    void withoutAHoldDownTheRunStillConverges() {
        // The hold-down limits how often a flapping member of higher priority takes leadership; strict priorities
        // alone rule out ping-pong, so the checks hold without it too.
        ElectorSpec noHoldDown = DelegatingSpec.wrappingEach(
                CONFIG.toBuilder().priorityHoldDown(Duration.ZERO).build(), (spec, ctx) -> spec.create(ctx));
        SimulationConfig config = new SimulationConfig(
                        "quorum",
                        noHoldDown,
                        5,
                        FaultKind.all(),
                        SimulationConfig.DEFAULT_FAULT_PHASE,
                        SimulationConfig.DEFAULT_QUIET_PHASE)
                .withPriorities(true);
        for (long seed = 1; seed <= 50; seed++) {
            assertThat(Simulator.run(config, seed, false).violations()).isEmpty();
        }
    }
}
