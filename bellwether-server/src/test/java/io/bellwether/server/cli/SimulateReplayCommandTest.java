package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.SimulationConfig;
import io.bellwether.sim.Simulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replay command a simulation prints for a seed is a command line {@code simulate} accepts, and it replays
 * exactly that run: the same phases, faults and seed, hence the same number of events.
 */
class SimulateReplayCommandTest {
    @Test
    void aReplayCommandWithShorterPhasesReplaysTheSameRun() throws Exception {
        SimulationConfig config = SimulationConfig.forAlgorithm("quorum", 3, FaultKind.parseList("crash,partition"))
                .withPhases(Duration.ofSeconds(3), Duration.ofSeconds(2));
        long seed = 7;
        String replay = config.replayCommand(seed);
        assertThat(replay).contains("--fault-phase 3000ms", "--quiet-phase 2000ms");

        List<String> args = new ArrayList<>(
                Arrays.asList(replay.replaceFirst("^\\./bellwether ", "").split(" ")));
        args.add("--json");
        MainTest.Outcome o = MainTest.run(args.toArray(String[]::new));

        assertThat(o.exitCode()).as("stderr: %s", o.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(o.out());
        assertThat(json.get("seedStart").asLong()).isEqualTo(seed);
        assertThat(json.get("events").asLong())
                .isEqualTo(Simulator.run(config, seed, false).events());
    }

    @Test
    void aPhaseOutOfRangeIsRefusedNamingTheOption() {
        MainTest.Outcome o = MainTest.run("simulate", "--fault-phase", "2h");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--fault-phase = '2h' is invalid: allowed 0ms to 1h");

        MainTest.Outcome bad = MainTest.run("simulate", "--quiet-phase", "soon");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--quiet-phase");
    }
}
