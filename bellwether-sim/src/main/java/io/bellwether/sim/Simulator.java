package io.bellwether.sim;

/** (Filled in by the simulator work.) */
public final class Simulator {
    private Simulator() {}

    public static RunResult run(SimulationConfig config, long seed, boolean keepHistory) {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
