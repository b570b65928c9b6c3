package io.bellwether.server.run;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What the runner does when the command exits on its own while this node leads ({@code --on-exit}). */
public enum OnExit {
    /** Give up leadership, so that another member leads and runs its own command. */
    RESIGN,
    /** Start the command again, after a backoff that doubles with each exit in a row (1 s up to 30 s). */
    RESTART,
    /** Stay leader, with no command running, until the leadership ends. */
    STAY;

    /** The value as written on the command line. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The values allowed, for messages: {@code resign, restart, stay}. */
    public static String allowed() {
        return Arrays.stream(values()).map(OnExit::value).collect(Collectors.joining(", "));
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming {@code --on-exit}, the value and the values allowed
     */
    public static OnExit parse(String text) {
        for (OnExit v : values()) {
            if (v.value().equals(text)) {
                return v;
            }
        }
        throw new IllegalArgumentException("--on-exit = '" + text + "' is not allowed: allowed " + allowed()
                + " (default: resign when the command fails, stay when it exits with status 0)");
    }

    /**
     * The policy for one exit: {@code chosen} if given, else resign after a failure (status other than 0) and stay
     * after a success.
     */
    static OnExit forExit(OnExit chosen, int status) {
        if (chosen != null) {
            return chosen;
        }
        return status == 0 ? STAY : RESIGN;
    }
}
