package io.bellwether.spring;

import io.bellwether.Leadership;
import java.util.Optional;

/**
 * The leadership under which the current thread runs a {@link LeaderOnly} method: what a {@code @Scheduled}
 * method, which may take no parameters, uses for its fencing token.
 */
public final class CurrentLeadership {
    private static final ThreadLocal<Leadership> CURRENT = new ThreadLocal<>();

    private CurrentLeadership() {}

    /** The leadership of the {@link LeaderOnly} method running on this thread; empty outside one. */
    public static Optional<Leadership> get() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * The leadership of the {@link LeaderOnly} method running on this thread.
     *
     * @throws IllegalStateException outside a {@link LeaderOnly} method
     */
    public static Leadership require() {
        Leadership leadership = CURRENT.get();
        if (leadership == null) {
            throw new IllegalStateException("no @LeaderOnly method is running on this thread");
        }
        return leadership;
    }

    /** Sets the current leadership, returning the one it replaces (null if none). */
    static Leadership set(Leadership leadership) {
        Leadership before = CURRENT.get();
        if (leadership == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(leadership);
        }
        return before;
    }
}
