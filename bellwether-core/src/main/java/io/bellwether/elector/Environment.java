package io.bellwether.elector;

import io.bellwether.spi.LeaseStore;
import java.util.Objects;

/**
 * What an algorithm's configuration needs from outside its own section.
 *
 * @param group the election group's name
 * @param store the lease store, for algorithms with {@link Trait#USES_STORE}; null otherwise
 * @param holderSuffix what tells this process's lease holder ids apart from another's with the same node id
 *     (see {@code LeaseConfig}); null for the algorithm's default
 */
public record Environment(String group, LeaseStore store, String holderSuffix) {
    public Environment {
        Objects.requireNonNull(group, "group");
    }

    /** An environment with no store. */
    public static Environment of(String group) {
        return new Environment(group, null, null);
    }
}
