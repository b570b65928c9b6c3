package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Seeded random fault schedules with a priority per node (0 to 2, drawn from the seed): every invariant of the run
 * holds, and after the faults stop a member of the highest live priority (bully: the highest live (priority, id))
 * leads within the bound and leadership stays there (highest-priority-leads, and single-leader-after-quiet for a move after convergence). The number of
 * seeds is a tenth of {@code -Dbellwether.sim.seeds} (1000 by default; the measured bound used 2000).
 */
@Tag("quorum")
class PrioritySimulationTest {
    @Test
    void quorumWithPrioritiesKeepsEveryInvariantAndTheHighestPriorityLeadsAfterFaults() {
        int seeds = Math.max(100, Integer.getInteger("bellwether.sim.seeds", 10000) / 10);
        SimulationConfig config =
                SimulationConfig.forAlgorithm("quorum", 5, FaultKind.all()).withPriorities(true);

        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds);

        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos())
                .isNotNegative()
                .isLessThanOrEqualTo(ConvergenceCheck.PRIORITY_CONVERGENCE_BOUND_NANOS));
    }

    @Test
    void bullyWithPrioritiesKeepsEveryInvariantAndTheHighestPriorityThenIdLeadsAfterFaults() {
        int seeds = Math.max(100, Integer.getInteger("bellwether.sim.seeds", 10000) / 10);
        for (String run : java.util.List.of("bully", "bully-strict")) {
            SimulationConfig config =
                    SimulationConfig.forAlgorithm(run, 5, FaultKind.all()).withPriorities(true);

            RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds);

            assertThat(x.runs())
                    .allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        }
    }

    @Test
    void leaseWithPrioritiesKeepsEveryInvariantAndTheHighestPriorityHoldsAfterFaults() {
        int seeds = Math.max(100, Integer.getInteger("bellwether.sim.seeds", 10000) / 10);
        SimulationConfig config =
                SimulationConfig.forAlgorithm("lease", 5, FaultKind.all()).withPriorities(true);

        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds);

        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos())
                .isNotNegative()
                .isLessThanOrEqualTo(ConvergenceCheck.LEASE_PRIORITY_CONVERGENCE_BOUND_NANOS));
    }

    @Test
    void algorithmsWithoutPrioritiesRefuseThemNamingTheKey() {
        for (String run : java.util.List.of("ring", "invitation")) {
            SimulationConfig config = SimulationConfig.forAlgorithm(run, 5, FaultKind.all());

            org.assertj.core.api.Assertions.assertThatThrownBy(() -> config.withPriorities(true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("priority = 1 is not supported by the ");
        }
    }

    @Test
    void aReplayCommandNamesThePriorities() {
        SimulationConfig config =
                SimulationConfig.forAlgorithm("quorum", 5, FaultKind.all()).withPriorities(true);

        assertThat(config.replayCommand(7)).endsWith(" --priorities");
        assertThat(config.withPriorities(false).replayCommand(7)).doesNotContain("--priorities");
    }
}
