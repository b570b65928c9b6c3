package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Seeded random fault schedules against the bully elector in strict mode: 5 nodes, every fault kind that applies
 * to a message-passing algorithm. The bully checkers apply unchanged, plus the strict-mode checks of {@link
 * StrictBullyChecks}. The number of seeds comes from {@code -Dbellwether.sim.bullyStrictSeeds} (default 500,
 * a few seconds; strict runs cost about 1.3 times simple ones).
 */
class BullyStrictSimulationTest {
    @Test
    void strictBullyConvergesOnTheHighestLiveIdAndNoMemberActsAheadOfItsGroup() {
        int seeds = Integer.getInteger("bellwether.sim.bullyStrictSeeds", 500);
        SimulationConfig config = SimulationConfig.forAlgorithm("bully-strict", 5, FaultKind.all());
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds);
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        assertThat(x.runs().stream().mapToInt(RunResult::elections).sum()).isPositive();
        assertThat(x.runs().stream().mapToLong(r -> r.failovers().size()).sum()).isPositive();
        // Strict mode is no majority gate: partitions still give each side its coordinator, and the simulator sees it.
        assertThat(x.runs().stream().mapToLong(RunResult::twoLeaderNanos).sum()).isPositive();
    }

    @Test
    void sameSeedGivesTheSameStrictBullyHistory() {
        SimulationConfig config = SimulationConfig.forAlgorithm("bully-strict", 5, FaultKind.all());
        RunResult a = Simulator.run(config, 42, true);
        assertThat(Simulator.run(config, 42, true).history()).isEqualTo(a.history());
        assertThat(a.elections()).isPositive();
    }
}
