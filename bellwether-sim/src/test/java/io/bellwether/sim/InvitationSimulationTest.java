package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Seeded random fault schedules against the real invitation elector, without and with its majority gate: 5
 * nodes, every fault kind that applies to a message-passing algorithm. The number of seeds per variant comes
 * from {@code -Dbellwether.sim.invitationSeeds} (default 1000). Without the gate, two coordinators under
 * partitions are measured, not failed; with it, no two coordinators are ever valid at once.
 */
class InvitationSimulationTest {
    private static int seeds() {
        return Integer.getInteger("bellwether.sim.invitationSeeds", 1000);
    }

    @Test
    void classicInvitationFormsOneGroupOfAllLiveNodesAfterFaultsAndNeverReusesAGroupNumber() {
        SimulationConfig config = SimulationConfig.forAlgorithm("invitation", 5, FaultKind.all());
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds());
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        assertThat(x.runs().stream().mapToInt(RunResult::elections).sum()).isPositive();
        assertThat(x.runs().stream().mapToLong(r -> r.failovers().size()).sum()).isPositive();
        // Partitions split the group: each side has its coordinator, and the simulator sees it.
        assertThat(x.runs().stream().mapToLong(RunResult::twoLeaderNanos).sum()).isPositive();
    }

    @Test
    void gatedInvitationFormsOneGroupAfterFaultsAndNeverHasTwoValidCoordinators() {
        SimulationConfig config = SimulationConfig.forAlgorithm("invitation-gated", 5, FaultKind.all());
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds());
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        assertThat(x.runs().stream().mapToInt(RunResult::elections).sum()).isPositive();
        assertThat(x.runs().stream().mapToLong(r -> r.failovers().size()).sum()).isPositive();
    }

    @Test
    void sameSeedGivesTheSameInvitationHistoryWithAndWithoutTheGate() {
        for (String algorithm : new String[] {"invitation", "invitation-gated"}) {
            SimulationConfig config = SimulationConfig.forAlgorithm(algorithm, 5, FaultKind.all());
            RunResult a = Simulator.run(config, 42, true);
            assertThat(Simulator.run(config, 42, true).history()).isEqualTo(a.history());
            assertThat(a.elections()).isPositive();
        }
    }
}
