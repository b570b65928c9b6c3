package io.bellwether.elector;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Every algorithm Bellwether knows: the built-in ones, one line each below, then any found on the class path
 * through {@link ServiceLoader} (a {@code META-INF/services/io.bellwether.elector.Algorithm} file), in the order
 * found. Names are unique; a plug-in that reuses a built-in name is refused.
 */
public final class Algorithms {
    private static final List<Algorithm> BUILT_IN = List.of(
            // One line per algorithm; the default first.
            io.bellwether.quorum.QuorumAlgorithm.INSTANCE,
            io.bellwether.lease.LeaseAlgorithm.INSTANCE,
            io.bellwether.bully.BullyAlgorithm.INSTANCE,
            io.bellwether.ring.RingAlgorithm.INSTANCE,
            io.bellwether.invitation.InvitationAlgorithm.INSTANCE);

    private static final Map<String, Algorithm> ALL = load();

    private Algorithms() {}

    private static Map<String, Algorithm> load() {
        Map<String, Algorithm> byName = new LinkedHashMap<>();
        List<Algorithm> found = new ArrayList<>(BUILT_IN);
        ServiceLoader.load(Algorithm.class, Algorithms.class.getClassLoader()).forEach(found::add);
        for (Algorithm a : found) {
            Algorithm before = byName.putIfAbsent(a.name(), a);
            if (before != null && before != a && before.getClass() != a.getClass()) {
                throw new IllegalStateException("two algorithms are named '" + a.name() + "': "
                        + before.getClass().getName() + " and " + a.getClass().getName());
            }
        }
        return Collections.unmodifiableMap(byName);
    }

    /** Every algorithm, the default first. */
    public static List<Algorithm> all() {
        return List.copyOf(ALL.values());
    }

    /** Their names, in the order of {@link #all()}. */
    public static List<String> names() {
        return List.copyOf(ALL.keySet());
    }

    /** The algorithm named {@code name}. */
    public static Optional<Algorithm> byName(String name) {
        return Optional.ofNullable(ALL.get(name));
    }

    /** The algorithm named {@code name}, or an {@link IllegalArgumentException} listing the allowed names. */
    public static Algorithm require(String name) {
        return byName(name)
                .orElseThrow(() -> new IllegalArgumentException(
                        "algorithm '" + name + "' is unknown: allowed " + String.join(", ", names())));
    }

    /** Every variant of every algorithm, in order: the runs the simulator and the demo offer. */
    public static List<Variant> variants() {
        return ALL.values().stream().flatMap(a -> a.variants().stream()).toList();
    }

    /** The algorithm that offers the variant named {@code variant}. */
    public static Optional<Algorithm> byVariant(String variant) {
        return ALL.values().stream().filter(a -> a.variant(variant).isPresent()).findFirst();
    }
}
