package io.bellwether.sim;

import java.util.List;
import java.util.function.Consumer;

/** (Filled in by the simulator work.) */
public final class RandomExplorer {
    private RandomExplorer() {}

    /** Progress of a long exploration, reported now and then. */
    public record Progress(int seedsDone, int seedsTotal, int violations, long elapsedNanos) {}

    /** The runs of seeds {@code seedStart ..< seedStart + seeds}, in seed order, without histories. */
    public record Exploration(SimulationConfig config, long seedStart, int seeds, List<RunResult> runs) {}

    public static Exploration explore(
            SimulationConfig config, long seedStart, int seeds, int threads, Consumer<Progress> progress) {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
