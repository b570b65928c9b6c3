package io.bellwether.sim;

import io.bellwether.elector.ElectorSpec;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What to simulate: which algorithm (it selects the invariant checkers), the elector spec to run (normally
 * the algorithm's defaults; tests pass deliberately broken doubles), how many nodes, which faults, and how
 * long the fault phase and the quiet phase that follows it last.
 */
public record SimulationConfig(
        String algorithm,
        ElectorSpec spec,
        int nodes,
        Set<FaultKind> faults,
        Duration faultPhase,
        Duration quietPhase) {
    public SimulationConfig {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(spec, "spec");
        faults = Set.copyOf(faults);
        if (nodes < 1 || nodes > 15) {
            throw new IllegalArgumentException("nodes = " + nodes + " is out of range: allowed 1 to 15");
        }
    }

    /** (Filled in by the simulator work.) */
    public static SimulationConfig forAlgorithm(String algorithm, int nodes, Set<FaultKind> faults) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** (Filled in by the simulator work.) */
    public String replayCommand(long seed) {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
