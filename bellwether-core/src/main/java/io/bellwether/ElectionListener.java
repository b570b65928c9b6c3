package io.bellwether;

import java.util.Optional;

/**
 * Receives an election's events. Callbacks run on the election's notification thread, one at a time and in
 * order; a callback that blocks delays later events but never the elector itself.
 */
public interface ElectionListener {
    /** This member became leader. */
    default void elected(Leadership leadership) {}

    /** This member's leadership ended (or is about to: see {@link Leadership#revoked()}). */
    default void revoked(Leadership leadership, RevocationReason reason) {}

    /** The leader as this member knows it changed; empty while no leader is known. */
    default void leaderChanged(Optional<LeaderView> leader) {}
}
