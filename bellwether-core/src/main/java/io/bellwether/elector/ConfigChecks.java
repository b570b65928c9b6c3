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

    /**
     * Returns {@code value} if it lies in {@code [min, max]}.
     *
     * @throws IllegalArgumentException naming the key, the value and the range
     */
    public static int intWithin(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + " = " + value + " is out of range: allowed " + min + " to " + max);
        }
        return value;
    }

    // The keys several algorithms share, with one range each.

    /** {@code message-time} (Tm, the longest one-way message time): 1 ms to 60 s. */
    public static Duration messageTime(Duration value) {
        return durationWithin("message-time", value, Duration.ofMillis(1), Duration.ofSeconds(60));
    }

    /** {@code processing-time} (Tp, the longest time to handle a message): 0 to 60 s. */
    public static Duration processingTime(Duration value) {
        return durationWithin("processing-time", value, Duration.ZERO, Duration.ofSeconds(60));
    }

    /** {@code heartbeat-interval}: 1 ms to 60 s. */
    public static Duration heartbeatInterval(Duration value) {
        return durationWithin("heartbeat-interval", value, Duration.ofMillis(1), Duration.ofSeconds(60));
    }

    /** {@code missed-heartbeats}: 2 to 100. */
    public static int missedHeartbeats(int value) {
        return intWithin("missed-heartbeats", value, 2, 100);
    }

    /** {@code preemption-hold-down}: 0 to 10 min. */
    public static Duration preemptionHoldDown(Duration value) {
        return durationWithin("preemption-hold-down", value, Duration.ZERO, Duration.ofMinutes(10));
    }

    /** {@code validity-margin}: 0 to 60 s; the algorithm checks it against the drift (see {@link #checkMargin}). */
    public static Duration validityMargin(Duration value) {
        return durationWithin("validity-margin", value, Duration.ZERO, Duration.ofSeconds(60));
    }

    /** {@code 2·message-time + processing-time}: the longest wait for an answer to a message (T, a hop timeout). */
    public static Duration roundTrip(Duration messageTime, Duration processingTime) {
        return messageTime.multipliedBy(2).plus(processingTime);
    }

    /**
     * How long a leadership measured over {@code spanNanos} stays valid for its holder: {@code span × (1 − drift) −
     * margin}, the span as a clock up to {@code drift} slow sees it, less the margin.
     */
    public static long validityNanos(long spanNanos, double drift, long marginNanos) {
        return (long) (spanNanos * (1 - drift)) - marginNanos;
    }

    /**
     * The smallest validity margin for a promise lasting {@code span}: a member's promise, on a clock up to {@code
     * drift} fast, must outlast the leader's validity measured on a clock up to {@code drift} slow.
     */
    public static long minimumMarginNanos(Duration span, double drift) {
        return (long) Math.ceil(span.toNanos() * drift * (1 - drift) / (1 + drift));
    }

    /**
     * Checks {@code validity-margin} against {@link #minimumMarginNanos}.
     *
     * @param spanKey how the error names {@code span} ({@code "lease"}, {@code "election timeout"})
     * @throws IllegalArgumentException naming the margin, the drift, the span and the least margin allowed
     */
    public static void checkMargin(Duration margin, double drift, Duration span, String spanKey) {
        long minMargin = minimumMarginNanos(span, drift);
        if (margin.toNanos() < minMargin) {
            throw new IllegalArgumentException("validity-margin = " + margin.toMillis()
                    + "ms is too small: with max-clock-drift " + drift + " and " + spanKey + " " + span.toMillis()
                    + "ms it must be at least " + Math.ceil(minMargin / 1e6) + "ms");
        }
    }

    /**
     * Checks that a follower waits ({@code heartbeat-interval × missed-heartbeats}) at least one heartbeat interval
     * plus {@code answer}, so that one late heartbeat never makes it give up a live leader.
     *
     * @param answerName how the error names {@code answer} ({@code "answer timeout"}, {@code "hop timeout"})
     * @throws IllegalArgumentException naming both keys, the resulting timeout and the least allowed
     */
    public static void checkFollowerTimeout(
            Duration heartbeatInterval, int missedHeartbeats, Duration answer, String answerName) {
        Duration leaderTimeout = heartbeatInterval.multipliedBy(missedHeartbeats);
        if (leaderTimeout.compareTo(heartbeatInterval.plus(answer)) < 0) {
            throw new IllegalArgumentException("heartbeat-interval = " + heartbeatInterval.toMillis()
                    + "ms with missed-heartbeats = " + missedHeartbeats + " gives a follower timeout of "
                    + leaderTimeout.toMillis() + "ms: it must be at least one heartbeat interval plus the "
                    + answerName + " (" + heartbeatInterval.plus(answer).toMillis() + "ms)");
        }
    }
}
