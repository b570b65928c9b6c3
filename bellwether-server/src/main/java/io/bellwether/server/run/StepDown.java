package io.bellwether.server.run;

import java.time.Duration;

/**
 * How the runner gives up leadership: after the command exits under {@code --on-exit resign}, and when the runtime
 * revoked a leadership that the elector still holds (its validity was not extended in time), so that a member that
 * can run the command leads instead of one that cannot.
 */
@FunctionalInterface
public interface StepDown {
    /**
     * The hold-off asked for: long enough for another member to take over and start its own command, short enough
     * for a single-member group to come back soon.
     */
    Duration HOLD_OFF = Duration.ofSeconds(5);

    /**
     * Gives up leadership and does not compete again for {@code holdOff}. Called on the runner's thread, with the
     * command's process group already gone; must not block for long.
     */
    void resign(Duration holdOff);
}
