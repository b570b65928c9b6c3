package io.bellwether.elector;

/** Names one of an elector's timers; electors usually implement it with an enum. */
public interface TimerKey {
    String name();

    /** The coarsest lateness of a coalesced timer. */
    long MAX_COALESCING_NANOS = 5_000_000L;

    /** Below this, a coalesced timer is not worth coalescing: it fires when due. */
    long MIN_COALESCING_NANOS = 500_000L;

    /**
     * Whether the runtime may fire this timer a little late, by at most {@link #coalescingNanos(long)}, so that the
     * same timers of many groups in one process fire together and their messages leave in one frame per peer. For
     * periodic timers whose lateness the elector's timing already budgets for, such as a leader's heartbeat round;
     * never for a timeout that ends a wait. The simulator fires such timers late by a random amount within the bound.
     * Default false.
     */
    default boolean coalesced() {
        return false;
    }

    /**
     * How late a {@linkplain #coalesced() coalesced} timer of {@code delayNanos} may fire: a twentieth of the delay, at
     * most {@link #MAX_COALESCING_NANOS}; zero when that is under {@link #MIN_COALESCING_NANOS}. The runtime rounds the
     * deadline up to a grid of this size.
     */
    static long coalescingNanos(long delayNanos) {
        long tick = Math.min(MAX_COALESCING_NANOS, Math.max(0, delayNanos) / 20);
        return tick < MIN_COALESCING_NANOS ? 0 : tick;
    }
}
