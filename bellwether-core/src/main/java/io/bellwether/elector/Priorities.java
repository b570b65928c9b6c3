package io.bellwether.elector;

/**
 * The {@code priority} key that several algorithms' sections share (issue #17, "preferred leader"): a member's
 * priority, higher preferred, default 0, one range for every algorithm. An algorithm that cannot honour priorities
 * refuses the key with {@link #refused}, saying why, rather than ignoring it.
 */
public final class Priorities {
    /** The key, as written in configuration files. */
    public static final String KEY = "priority";
    /** The lowest priority. */
    public static final int MIN = -1000;
    /** The highest priority. */
    public static final int MAX = 1000;
    /** The allowed range, as errors and docs state it. */
    public static final String ALLOWED = "a whole number from " + MIN + " to " + MAX;

    private Priorities() {}

    /**
     * Checks a priority.
     *
     * @throws IllegalArgumentException naming {@code priority}, the value and the range
     */
    public static int checked(int value) {
        return ConfigChecks.intWithin(KEY, value, MIN, MAX);
    }

    /**
     * The error for an algorithm that cannot honour priorities.
     *
     * @param algorithm its name
     * @param value the priority it was given
     * @param why why it cannot
     */
    public static IllegalArgumentException refused(String algorithm, int value, String why) {
        return new IllegalArgumentException(KEY + " = " + value + " is not supported by the " + algorithm
                + " algorithm: " + why + "; leave " + KEY + " out (every member then has priority 0)");
    }

    /**
     * The {@code priority} key of an algorithm that cannot honour priorities: listed, so that a configuration that
     * gives it is refused with the reason rather than as an unknown key; every value is refused, 0 included.
     *
     * @param algorithm its name
     * @param why why it cannot honour priorities
     * @param <B> its configuration builder
     */
    public static <B> Setting<B> unsupported(String algorithm, String why) {
        return Setting.integer(
                KEY, "none: " + algorithm + " has no priorities", "Not supported: " + why + ".", (builder, value) -> {
                    throw refused(algorithm, value, why);
                });
    }
}
