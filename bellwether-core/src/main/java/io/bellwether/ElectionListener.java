package io.bellwether;

import java.util.Optional;

/**
 * Receives an election's events. Callbacks run on the election's notification thread, one at a time and in
 * order; a callback that blocks delays later events but never the elector itself.
 */
public interface ElectionListener {
    /**
     * This member became leader. By the time this is called, the election's {@code role()}, {@code epoch()},
     * {@code isLeader()} and {@code leader()} already say so.
     */
    default void elected(Leadership leadership) {}

    /** This member's leadership ended (or is about to: see {@link Leadership#revoked()}). */
    default void revoked(Leadership leadership, RevocationReason reason) {}

    /**
     * This member's role or epoch changed: every step of an election (a scouting round, a candidacy, a new
     * term), not only leadership. For dashboards and logs; act on {@link #elected} and {@link #revoked}.
     */
    default void roleChanged(Role previous, Role current, long epoch) {}

    /** The leader as this member knows it changed; empty while no leader is known. */
    default void leaderChanged(Optional<LeaderView> leader) {}
}
