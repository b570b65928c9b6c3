package io.bellwether.server.run;

import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.RankedConfig;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.server.config.Durations;
import io.bellwether.server.config.LeaseSettings;
import io.bellwether.server.config.NodeConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * How long a leadership of the configured algorithm stays valid after a renewal ({@code validity}) and how often it is
 * renewed ({@code renewal}), and so how much time before the validity ends the runner may take to stop its command.
 *
 * <p>The rule: the runner asks the election for a revocation lead of {@code grace + }{@link #KILL_MARGIN}, so that
 * {@link io.bellwether.Leadership#revoked()} completes that long before the validity ends; SIGTERM goes out then,
 * SIGKILL after the grace (but at least {@link #RUNNER_LEAD} before the reaper's deadline, the kill margin before the
 * validity ends), and the margin is left for the process group to die. The lead must be at most {@code
 * validity − 2 × renewal}: a renewal lands about one renewal period after the previous one, so a longer lead would
 * revoke a healthy leadership between two renewals, and the second period lets one renewal be late or lost
 * without revoking.
 *
 * @param algorithm the algorithm's name
 * @param validity how long a leadership stays valid after a renewal
 * @param renewal how often the leader renews it
 * @param validityKeys how the validity is configured, for messages
 * @param renewalKey the key of the renewal period, for messages
 */
record LeaderTiming(String algorithm, Duration validity, Duration renewal, String validityKeys, String renewalKey) {
    /**
     * Left before the validity ends after the reaper's deadline (its SIGKILL for a runner that stops answering): for the
     * kernel to end the command's process group, and for the reaper's timer to be late on a loaded machine.
     */
    static final Duration KILL_MARGIN = Duration.ofMillis(50);

    /**
     * The runner's own SIGKILL goes out at the latest this long before the reaper's deadline, so that a runner that
     * answers ends the group itself (and reports the kill) and the reaper's timer is cancelled without firing. It
     * comes out of the grace only when the revocation comes at the last moment (the watchdog's).
     */
    static final Duration RUNNER_LEAD = Duration.ofMillis(20);

    /** The timing of the node's configured algorithm, or empty for an algorithm this runner does not know. */
    static Optional<LeaderTiming> of(NodeConfig config) {
        if (config.lease().isPresent()) {
            LeaseSettings lease = config.lease().get();
            long validity = ConfigChecks.validityNanos(
                    lease.duration().toNanos(),
                    lease.maxClockDrift(),
                    lease.validityMargin().toNanos());
            return Optional.of(new LeaderTiming(
                    "lease",
                    Duration.ofNanos(validity),
                    lease.renewInterval(),
                    "lease.duration × (1 − lease.max-clock-drift) − lease.validity-margin",
                    "lease.renew-interval"));
        }
        return of(config.elector());
    }

    /** The timing of a peer algorithm's configuration, or empty for an algorithm this runner does not know. */
    static Optional<LeaderTiming> of(ElectorSpec spec) {
        String name = spec.algorithm();
        if (spec instanceof QuorumConfig q) {
            return Optional.of(new LeaderTiming(
                    name,
                    Duration.ofNanos(q.validityNanos()),
                    q.heartbeatInterval(),
                    "quorum.heartbeat-interval × quorum.missed-heartbeats × (1 − quorum.max-clock-drift) −"
                            + " quorum.validity-margin",
                    "quorum.heartbeat-interval"));
        }
        if (spec instanceof RankedConfig r) {
            return Optional.of(new LeaderTiming(
                    name,
                    r.leaderTimeout(),
                    r.heartbeatInterval(),
                    name + ".heartbeat-interval × " + name + ".missed-heartbeats",
                    name + ".heartbeat-interval"));
        }
        if (spec instanceof InvitationConfig i) {
            return Optional.of(new LeaderTiming(
                    name,
                    Duration.ofNanos(i.validityNanos()),
                    i.checkInterval(),
                    "invitation.lease × (1 − invitation.max-clock-drift) − invitation.validity-margin",
                    "invitation.check-interval"));
        }
        return Optional.empty();
    }

    /** The longest stop window (grace plus kill margin) this timing leaves: {@code validity − 2 × renewal}. */
    Duration maxStopWindow() {
        return validity.minus(renewal.multipliedBy(2));
    }

    /** The longest {@code --grace} this timing allows; negative when none fits. */
    Duration maxGrace() {
        return maxStopWindow().minus(KILL_MARGIN);
    }

    /**
     * Checks that {@code grace} fits.
     *
     * @throws IllegalArgumentException naming {@code --grace}, the algorithm's keys and the allowed range
     */
    void check(Duration grace) {
        if (grace.compareTo(maxGrace()) <= 0) {
            return;
        }
        String allowed = maxGrace().isNegative()
                ? "no grace fits: even 0ms needs a stop window of " + Durations.format(KILL_MARGIN)
                : "allowed --grace 0ms – " + Durations.format(maxGrace());
        throw new IllegalArgumentException("--grace = " + Durations.format(grace) + " does not fit " + algorithm
                + "'s timing: the command is signalled grace + " + Durations.format(KILL_MARGIN)
                + " (kill margin) before the leadership's validity ends, and that must be at most validity − 2 × "
                + renewalKey + " = " + Durations.format(validity) + " − 2 × " + Durations.format(renewal) + " = "
                + Durations.format(maxStopWindow()) + " (validity = " + validityKeys + "); " + allowed
                + ". For a longer grace raise " + raiseHint());
    }

    private String raiseHint() {
        return switch (algorithm) {
            case "lease" -> "lease.duration (its renew-interval and validity-margin scale with it)";
            case "invitation" -> "invitation.lease";
            default -> algorithm + ".missed-heartbeats or " + algorithm + ".heartbeat-interval";
        };
    }
}
