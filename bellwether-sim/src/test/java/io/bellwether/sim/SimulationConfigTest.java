package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.quorum.QuorumConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulationConfigTest {
    @Test
    void quorumDefaultsToItsDefaultConfigAndPhases() {
        SimulationConfig c = SimulationConfig.forAlgorithm("quorum", 5, FaultKind.all());
        assertThat(c.spec()).isInstanceOf(QuorumConfig.class);
        assertThat(c.faultPhase()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.quietPhase()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.nodes()).isEqualTo(5);
    }

    @Test
    void unknownAlgorithmsAreRejectedWithTheAllowedOnes() {
        assertThatThrownBy(() -> SimulationConfig.forAlgorithm("paxos", 3, FaultKind.all()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paxos")
                .hasMessageContaining("quorum");
    }

    @Test
    void replayCommandNamesEverythingNeededToReplayOneSeed() {
        SimulationConfig c = SimulationConfig.forAlgorithm("quorum", 5, FaultKind.parseList("partition,crash"));
        assertThat(c.replayCommand(1234))
                .isEqualTo("./bellwether simulate --algorithm quorum --nodes 5 --seeds 1 --seed-start 1234"
                        + " --faults crash,partition");
        assertThat(SimulationConfig.forAlgorithm("quorum", 3, FaultKind.all()).replayCommand(7))
                .endsWith("--faults all");
    }
}
