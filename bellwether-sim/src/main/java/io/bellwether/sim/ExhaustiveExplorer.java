package io.bellwether.sim;

import io.bellwether.elector.ElectorSpec;
import java.util.List;

/** (Filled in by the simulator work.) */
public final class ExhaustiveExplorer {
    private ExhaustiveExplorer() {}

    /** What an exhaustive exploration covered and found. */
    public record Result(int nodes, int depth, long paths, long distinctStates, List<Violation> violations) {}

    public static Result explore(String algorithm, ElectorSpec spec, int nodes, int depth) {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
