package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.ElectorSpec;
import java.util.Set;

/** What the mutation tests share: finding the first seed whose first violation is the expected one. */
final class Mutations {
    private Mutations() {}

    /**
     * Runs seeds 1..{@code maxSeeds} of 5 nodes with every fault until one's first violation is among {@code
     * expected}; checks that it names its seed, carries a replay command for {@code algorithm} and an excerpt,
     * and that the same seed reproduces it exactly.
     */
    static Violation firstViolation(String algorithm, ElectorSpec spec, Set<String> expected, int maxSeeds) {
        return firstViolation(algorithm, spec, 5, FaultKind.all(), expected, maxSeeds);
    }

    /** As above, with {@code nodes} nodes and only the fault kinds {@code faults}. */
    static Violation firstViolation(
            String algorithm, ElectorSpec spec, int nodes, Set<FaultKind> faults, Set<String> expected, int maxSeeds) {
        SimulationConfig config = new SimulationConfig(
                algorithm,
                spec,
                nodes,
                faults,
                SimulationConfig.DEFAULT_FAULT_PHASE,
                SimulationConfig.DEFAULT_QUIET_PHASE);
        for (long seed = 1; seed <= maxSeeds; seed++) {
            RunResult r = Simulator.run(config, seed, false);
            if (!r.ok() && expected.contains(r.violations().get(0).invariant())) {
                Violation v = r.violations().get(0);
                assertThat(v.seed()).isEqualTo(seed);
                assertThat(v.replayCommand())
                        .startsWith("./bellwether simulate --algorithm " + algorithm + " ")
                        .contains("--seed-start " + seed);
                assertThat(v.excerpt()).isNotEmpty().hasSizeLessThanOrEqualTo(40);
                assertThat(Simulator.run(config, seed, false).violations()).containsExactly(v);
                return v;
            }
        }
        throw new AssertionError("no run of " + maxSeeds + " seeds reported any of " + expected);
    }
}
