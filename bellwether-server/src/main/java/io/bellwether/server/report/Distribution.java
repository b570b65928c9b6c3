package io.bellwether.server.report;

import java.util.Arrays;

/**
 * An immutable sample of durations in nanoseconds, with nearest-rank percentiles. Nearest-rank is used
 * (rather than interpolation) so that every reported figure is a duration that was actually observed.
 */
public final class Distribution {
    private static final Distribution EMPTY = new Distribution(new long[0]);

    private final long[] sorted;

    private Distribution(long[] sorted) {
        this.sorted = sorted;
    }

    /** A distribution of the given values; the array is copied. */
    public static Distribution of(long... nanos) {
        if (nanos.length == 0) {
            return EMPTY;
        }
        long[] copy = nanos.clone();
        Arrays.sort(copy);
        return new Distribution(copy);
    }

    public static Distribution empty() {
        return EMPTY;
    }

    public int count() {
        return sorted.length;
    }

    public boolean isEmpty() {
        return sorted.length == 0;
    }

    /**
     * The nearest-rank percentile: the smallest value such that at least {@code percent}% of the sample is at
     * or below it.
     *
     * @param percent 0 (exclusive) to 100 (inclusive)
     * @throws IllegalStateException when the distribution is empty
     */
    public long percentileNanos(double percent) {
        if (!(percent > 0 && percent <= 100)) {
            throw new IllegalArgumentException("percent = " + percent + " is out of range: allowed (0, 100]");
        }
        if (sorted.length == 0) {
            throw new IllegalStateException("no samples");
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    public long maxNanos() {
        if (sorted.length == 0) {
            throw new IllegalStateException("no samples");
        }
        return sorted[sorted.length - 1];
    }

    public long minNanos() {
        if (sorted.length == 0) {
            throw new IllegalStateException("no samples");
        }
        return sorted[0];
    }

    /** The values in ascending order (a copy). */
    public long[] sortedNanos() {
        return sorted.clone();
    }

    /** Nanoseconds as milliseconds, for display. */
    public static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }
}
