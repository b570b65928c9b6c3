package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CPU starvation ({@link FaultKind#STARVE}: every member, or one, handling each event up to 100 ms late and falling
 * behind), over and over, with nothing else going wrong: the group must stay safe (no two valid leaderships, fences,
 * epochs) and, once the starvation stops and the backlogs drain, converge on one leader that every member knows
 * within the run's bound (single-leader-after-quiet). Every failing seed is listed with its replay command.
 */
class StarvationSimulationTest {
    private static final int SEEDS = 300;

    @ParameterizedTest(name = "{0}")
    // Not lease: a holder that renews its 3 s lease every second, well before it runs out, and sends nothing
    // else, is never a second behind; starvation runs in lease's "all" mix all the same.
    @ValueSource(strings = {"quorum", "bully", "bully-strict", "ring", "invitation", "invitation-gated"})
    void aGroupWhoseMembersAreStarvedOfCpuStaysSafeAndConvergesOnceTheyAreFed(String algorithm) {
        SimulationConfig config = SimulationConfig.forAlgorithm(algorithm, 5, EnumSet.of(FaultKind.STARVE));
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, SEEDS);
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());
        RunResult one = Simulator.run(config, 7, true);
        assertThat(one.history()).anySatisfy(h -> assertThat(h.event()).isEqualTo("starve"));
        long hit = x.runs().stream()
                .flatMap(r -> r.failovers().stream())
                .filter(f -> f.cause() == FaultKind.STARVE)
                .count();
        // Not vacuous: starved members fell behind (their backlog outlasted the starvation), and starved leaders
        // lost their groups, which elected again.
        assertThat(one.history()).filteredOn(h -> h.event().equals("fed")).anySatisfy(h -> assertThat(backlogEnd(h))
                .isGreaterThan(h.timeNanos() + 100_000_000L));
        assertThat(hit).as("failovers after a starvation").isGreaterThan(SEEDS / 10L);
    }

    /** The end of the backlog a {@code fed} entry reports ("..., backlog until 25408.153ms"), in nanoseconds. */
    private static long backlogEnd(HistoryEntry fed) {
        String detail = fed.detail();
        String ms = detail.substring(detail.indexOf("until ") + "until ".length(), detail.lastIndexOf("ms"));
        return Math.round(Double.parseDouble(ms) * 1e6);
    }
}
