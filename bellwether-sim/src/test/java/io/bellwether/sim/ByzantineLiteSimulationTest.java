package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@link FaultKind#BYZANTINE_LITE} fault on every algorithm with peer messages: a member that also sends
 * well-formed frames with extreme terms, epochs or counters. Every such frame is refused by the receiver's codec,
 * no node ever adopts or persists a value out of range (values-in-range), and the group still elects one leader
 * after the faults stop (single-leader-after-quiet). Mixed with crashes and partitions so that the frames meet
 * elections in progress. The fault is also part of {@code all}, so every algorithm's long simulation runs it.
 */
class ByzantineLiteSimulationTest {
    private static final Set<FaultKind> FAULTS =
            EnumSet.of(FaultKind.BYZANTINE_LITE, FaultKind.CRASH, FaultKind.PARTITION, FaultKind.PAUSE);

    private static int seeds() {
        // A small share of the algorithm's CI seeds: the fault is in every FaultKind.all() run as well.
        return Math.max(20, Integer.getInteger("bellwether.sim.seeds", 10000) / 200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"quorum", "bully", "bully-strict", "ring", "invitation", "invitation-gated"})
    void groupRefusesExtremeValuesAndStillElects(String algorithm) {
        SimulationConfig config = SimulationConfig.forAlgorithm(algorithm, 5, FAULTS);
        RandomExplorer.Exploration x = ClassicSimulations.runAndCheck(config, seeds());
        assertThat(x.runs()).allSatisfy(r -> assertThat(r.convergenceNanos()).isNotNegative());

        // The frames were sent and refused, not lost on the way: one history shows both, and nothing delivered.
        RunResult one = Simulator.run(config, 1, true);
        List<HistoryEntry> h = one.history();
        long forged = h.stream().filter(e -> e.event().equals("send-forged")).count();
        long refused =
                h.stream().filter(e -> e.event().equals("drop-malformed")).count();
        assertThat(forged).as("forged frames sent").isPositive();
        assertThat(refused).as("forged frames refused by the codec").isPositive();
        assertThat(h)
                .filteredOn(e -> e.event().equals("persist") || e.event().equals("role"))
                .allSatisfy(e -> assertThat(e.detail())
                        .doesNotContain("9223372036854775")
                        .doesNotContain("=-"));
    }
}
