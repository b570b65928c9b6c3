package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Thousands of seeded random fault schedules against the real ring elector: 5 nodes, every fault kind that
 * applies to a message-passing algorithm. The number of seeds comes from {@code -Dbellwether.sim.ringSeeds}
 * (default 2000). Two coordinators under partitions are measured, not failed (see {@link RunResult}).
 */
class RingSimulationTest {
    @Test
    void ringElectorConvergesOnTheHighestLiveIdAndEveryAnnouncementNamesTheMax() {
        int seeds = Integer.getInteger("bellwether.sim.ringSeeds", 2000);
        SimulationConfig config = SimulationConfig.forAlgorithm("ring", 5, FaultKind.all());
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds);
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        assertThat(x.runs().stream().mapToInt(RunResult::elections).sum()).isPositive();
        assertThat(x.runs().stream().mapToLong(r -> r.failovers().size()).sum()).isPositive();
        // Partitions split the group: the ring elects on both sides, and the simulator sees it.
        assertThat(x.runs().stream().mapToLong(RunResult::twoLeaderNanos).sum()).isPositive();
    }

    @Test
    void sameSeedGivesTheSameRingHistory() {
        SimulationConfig config = SimulationConfig.forAlgorithm("ring", 5, FaultKind.all());
        RunResult a = Simulator.run(config, 42, true);
        assertThat(Simulator.run(config, 42, true).history()).isEqualTo(a.history());
        assertThat(a.elections()).isPositive();
    }
}
