package io.bellwether.server.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations of configuration files: a whole number and a unit, {@code 100ms}, {@code 2s}. */
public final class Durations {
    /** The allowed form, for error messages. */
    public static final String ALLOWED = "a whole number followed by a unit: ms, s, m or h (e.g. 100ms, 2s, 1m)";

    private static final Pattern FORM = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)");

    private Durations() {}

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the key, the text and the allowed form
     */
    public static Duration parse(String key, String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(key + " = '" + text + "' is not a duration: allowed " + ALLOWED);
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }

    /** Writes {@code d} in the form {@link #parse} reads, in the largest unit that keeps it whole. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
