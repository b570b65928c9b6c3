package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.ring.RingConfig;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every interleaving of a 3-node bully (simple or strict) or ring group up to {@code -Dbellwether.sim.classicExhaustiveDepth}
 * choices (default 6; each level multiplies the paths, so 7 takes about ten times as long): message orders, drops, timer firings and one crash per path. The checkers that need no
 * timing run on every step: adopted epochs increase, one coordinator per epoch, and for the ring every
 * announcement names the max of its ids and no election id is forwarded twice per kind; in strict bully, Ready
 * goes only to members that adopted the epoch and stopped leading, and members name a coordinator only after its
 * Ready.
 */
class ClassicExhaustiveExplorationTest {
    @ParameterizedTest
    @ValueSource(strings = {"bully", "bully-strict", "ring"})
    void everyInterleavingOfThreeNodesKeepsTheInvariants(String algorithm) {
        int depth = Integer.getInteger("bellwether.sim.classicExhaustiveDepth", 6);
        ElectorSpec spec =
                switch (algorithm) {
                    case "bully" -> BullyConfig.defaults();
                    case "bully-strict" -> SimulationConfig.bullyStrictDefaults();
                    default -> RingConfig.defaults();
                };
        ExhaustiveExplorer.Result r = ExhaustiveExplorer.explore(algorithm, spec, 3, depth);
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
    }
}
