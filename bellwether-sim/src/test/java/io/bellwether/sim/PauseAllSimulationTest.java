package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every member paused at once ({@link FaultKind#PAUSE_ALL}: a stall of the whole host, or of the one process that
 * hosts every member), over and over, with nothing else going wrong: the group must stay safe (no two valid
 * leaderships, fences, epochs) and, once the pauses stop, converge on one leader that every member knows within
 * the run's bound (single-leader-after-quiet). Every failing seed is listed with its replay command.
 */
class PauseAllSimulationTest {
    private static final int SEEDS = 300;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"quorum", "lease", "bully", "bully-strict", "ring", "invitation", "invitation-gated"})
    void aGroupWhoseMembersAreAllPausedAtOnceStaysSafeAndConvergesOnceThePausesStop(String algorithm) {
        SimulationConfig config = SimulationConfig.forAlgorithm(algorithm, 5, EnumSet.of(FaultKind.PAUSE_ALL));
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, SEEDS);
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        // Not vacuous: whole-group pauses happened and cost the group its leader, and it elected again.
        long hit = x.runs().stream()
                .flatMap(r -> r.failovers().stream())
                .filter(f -> f.cause() == FaultKind.PAUSE_ALL)
                .count();
        // Several per run: the group is resumed and elects again between pauses, not only once the faults stop.
        assertThat(hit).as("failovers after a pause of every member").isGreaterThan(2L * SEEDS);
        RunResult one = Simulator.run(config, 7, true);
        assertThat(one.history()).anySatisfy(h -> assertThat(h.event()).isEqualTo("pause-all"));
        assertThat(one.history()).anySatisfy(h -> assertThat(h.event()).isEqualTo("resume-all"));
    }
}
