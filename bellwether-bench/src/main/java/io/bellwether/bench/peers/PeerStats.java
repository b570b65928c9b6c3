package io.bellwether.bench.peers;

import io.bellwether.server.report.Distribution;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * The figures of one scenario on one system: the durations of the trials that ended, in nanoseconds, and how many
 * timed out; with nearest-rank percentiles (every figure a duration that was observed) and the ratios the tables give.
 */
public final class PeerStats {
    private final List<Long> nanos = new ArrayList<>();
    private int timeouts;
    private String error;

    /** Adds a trial's duration. */
    public void add(long durationNanos) {
        nanos.add(durationNanos);
    }

    /** Counts a trial that did not end within the bound. */
    public void addTimeout() {
        timeouts++;
    }

    /** Marks the scenario as abandoned, with the reason. */
    public void fail(String reason) {
        error = reason;
    }

    /** The reason the scenario was abandoned, or null. */
    public String error() {
        return error;
    }

    /** Trials attempted: ended plus timed out. */
    public int trials() {
        return nanos.size() + timeouts;
    }

    /** Trials that timed out. */
    public int timeouts() {
        return timeouts;
    }

    /** The durations of the trials that ended, in nanoseconds. */
    public long[] values() {
        return nanos.stream().mapToLong(Long::longValue).toArray();
    }

    /** The distribution of the trials that ended. */
    public Distribution distribution() {
        return Distribution.of(values());
    }

    /**
     * The percentile in milliseconds; empty if no trial ended, or if timeouts are so many that the percentile lies
     * among them (a timed-out trial counts as longer than any that ended).
     *
     * @param percent 0 (exclusive) to 100
     */
    public OptionalDouble percentileMillis(double percent) {
        int total = trials();
        if (nanos.isEmpty()) {
            return OptionalDouble.empty();
        }
        int rank = Math.max(1, (int) Math.ceil(percent / 100.0 * total));
        if (rank > nanos.size()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(Distribution.millis(distribution().sortedNanos()[rank - 1]));
    }

    /** The longest trial that ended, in milliseconds; empty if any timed out or none ended. */
    public OptionalDouble maxMillis() {
        if (nanos.isEmpty() || timeouts > 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(Distribution.millis(distribution().maxNanos()));
    }

    /**
     * {@code mine / theirs}, the ratio the second table gives; empty if either is missing or {@code theirs} is not
     * positive.
     */
    public static OptionalDouble ratio(OptionalDouble mine, OptionalDouble theirs) {
        if (mine.isEmpty() || theirs.isEmpty() || !(theirs.getAsDouble() > 0)) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(mine.getAsDouble() / theirs.getAsDouble());
    }

    /** A ratio as the table prints it: two significant digits and a times sign, e.g. {@code 0.12×}, or a dash. */
    public static String formatRatio(OptionalDouble ratio) {
        if (ratio.isEmpty()) {
            return "–";
        }
        double r = ratio.getAsDouble();
        String number;
        if (r >= 100) {
            number = String.format(Locale.ROOT, "%.0f", r);
        } else if (r >= 10) {
            number = String.format(Locale.ROOT, "%.1f", r);
        } else if (r >= 0.1) {
            number = String.format(Locale.ROOT, "%.2f", r);
        } else {
            number = String.format(Locale.ROOT, "%.2g", r);
        }
        return number + "×";
    }

    /** Milliseconds as the table prints them (one decimal), or {@code timeout} when empty. */
    public static String formatMillis(OptionalDouble millis) {
        return millis.isPresent() ? String.format(Locale.ROOT, "%.1f", millis.getAsDouble()) : "timeout";
    }
}
