package io.bellwether.server.demo;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations written like {@code 250ms}, {@code 3s}, {@code 2m}. */
final class Durations {
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m)");

    private Durations() {}

    static Duration parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: write e.g. 250ms, 3s or 2m");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            default -> Duration.ofMinutes(n);
        };
    }
}
