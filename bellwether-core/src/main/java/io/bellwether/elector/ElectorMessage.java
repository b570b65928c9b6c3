package io.bellwether.elector;

import java.util.Arrays;
import java.util.List;

/** A message between electors of one algorithm. Implementations are immutable records. */
public interface ElectorMessage {
    /** A short name of the message type, for metrics and histories. */
    default String type() {
        return getClass().getSimpleName();
    }

    /**
     * The {@link #type()} names of every message of a sealed message family (an algorithm's message interface),
     * in declaration order.
     *
     * @throws IllegalArgumentException if {@code family} is not a sealed interface
     */
    static List<String> typesOf(Class<? extends ElectorMessage> family) {
        Class<?>[] permitted = family.getPermittedSubclasses();
        if (!family.isInterface() || permitted == null) {
            throw new IllegalArgumentException(family.getName() + " is not a sealed message interface");
        }
        return Arrays.stream(permitted).map(Class::getSimpleName).toList();
    }
}
