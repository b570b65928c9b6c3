package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.quorum.QuorumConfig;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every interleaving of a 3-node quorum group up to {@code -Dbellwether.sim.exhaustiveDepth} choices (default
 * 11): message orders, drops, timer firings and one crash per path.
 */
@Tag("quorum")
class ExhaustiveExplorationTest {
    @Test
    void everyInterleavingOfThreeNodesKeepsTheInvariants() {
        int depth = Integer.getInteger("bellwether.sim.exhaustiveDepth", 11);
        ExhaustiveExplorer.Result r = ExhaustiveExplorer.explore("quorum", QuorumConfig.defaults(), 3, depth);
        assertThat(r.violations())
                .as(
                        "violations:%n%s",
                        r.violations().stream()
                                .map(v -> v.invariant() + ": " + v.message() + "\n"
                                        + v.excerpt().stream()
                                                .map(HistoryEntry::toString)
                                                .collect(Collectors.joining("\n")))
                                .collect(Collectors.joining("\n\n")))
                .isEmpty();
        assertThat(r.paths()).isPositive();
        assertThat(r.distinctStates()).isPositive();
    }
}
