package io.bellwether.elector;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A named run of an algorithm for the simulator, the demo and the comparison: the algorithm's defaults with some
 * settings changed. The first variant of every algorithm is named like the algorithm and changes nothing.
 *
 * @param name the run's name, e.g. {@code bully-strict}
 * @param settings values applied over the defaults, in the form {@link Algorithm#configure} takes
 * @param traits what this run guarantees and needs
 * @param checks the names of simulator checks that apply to this run beyond those its traits select (the
 *     simulator refuses a name it does not know)
 */
public record Variant(String name, Map<String, Object> settings, Set<Trait> traits, List<String> checks) {
    public Variant {
        Objects.requireNonNull(name, "name");
        settings = Map.copyOf(settings);
        traits = Set.copyOf(traits);
        checks = List.copyOf(checks);
    }

    /** The plain run: the algorithm's defaults. */
    public static Variant defaults(String name, Set<Trait> traits) {
        return new Variant(name, Map.of(), traits, List.of());
    }

    /** Whether this run has {@code trait}. */
    public boolean has(Trait trait) {
        return traits.contains(trait);
    }
}
