package io.bellwether.sim;

import io.bellwether.Role;

/**
 * no-overlapping-validity, for runs whose leaderships exclude each other ({@link
 * io.bellwether.elector.Trait#EXCLUSIVE}: quorum, lease, gated invitation): no two running, unpaused nodes hold a
 * LEADER announcement whose validity has not ended at the same instant.
 */
final class ExclusiveChecks {
    private final Engine e;

    ExclusiveChecks(Engine engine) {
        this.e = engine;
    }

    /** Checks {@code x} against every other node, if {@code x} is an acting leader whose validity has not ended. */
    void checkOverlap(SimNode x) {
        long now = e.now;
        if (!x.up || x.paused || x.announced.role() != Role.LEADER || x.validUntilTrue <= now) {
            return;
        }
        for (SimNode y : e.nodes) {
            if (y != x && y.up && !y.paused && y.announced.role() == Role.LEADER && y.validUntilTrue > now) {
                e.violate(
                        "no-overlapping-validity",
                        x.name + " (LEADER at epoch " + x.announced.epoch() + ", valid until "
                                + e.timeText(x.validUntilTrue) + ") and " + y.name + " (LEADER at epoch "
                                + y.announced.epoch() + ", valid until " + e.timeText(y.validUntilTrue)
                                + ") are both valid leaders",
                        new int[] {x.index, y.index});
                return;
            }
        }
    }
}
