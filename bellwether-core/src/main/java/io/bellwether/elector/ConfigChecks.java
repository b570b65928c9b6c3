package io.bellwether.elector;

import java.time.Duration;
import java.util.Objects;

/**
 * The value checks every algorithm's configuration shares, with one wording for their errors: the key as
 * written in configuration files, the value, and what is allowed.
 */
public final class ConfigChecks {
    private ConfigChecks() {}

    /**
     * Returns {@code value} if it lies in {@code [min, max]}.
     *
     * @throws IllegalArgumentException naming the key, the value and the range
     */
    public static Duration durationWithin(String key, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, key);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(key + " = " + value.toMillis() + "ms is out of range: allowed "
                    + min.toMillis() + "ms to " + max.toMillis() + "ms");
        }
        return value;
    }

    /**
     * Returns {@code value} if it is a plausible bound on the rate error between two monotonic clocks: 0 to
     * 0.1 (key {@code max-clock-drift}).
     */
    public static double maxClockDrift(double value) {
        if (!(value >= 0 && value <= 0.1)) {
            throw new IllegalArgumentException("max-clock-drift = " + value + " is out of range: allowed 0 to 0.1");
        }
        return value;
    }
}
