package io.bellwether.invitation;

import io.bellwether.elector.AbstractSpec;
import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import java.time.Duration;
import java.util.Optional;

/**
 * Timings of the invitation elector (Garcia-Molina's Invitation algorithm). Immutable and validated: every
 * setter checks its value and {@link Builder#build()} checks the relations between values; errors name the
 * key (as written in configuration files), the value and what is allowed.
 *
 * <p>Defaults, chosen for a LAN:
 *
 * <ul>
 *   <li>{@code check-interval} 200 ms: how often a coordinator asks every other member "are you a
 *       coordinator?". It bounds how soon groups that can reach each other notice one another, and (with the
 *       majority gate) it is the coordinator's renewal round.
 *   <li>{@code answer-timeout} 50 ms: how long a check waits for answers before deciding whether to merge.
 *   <li>{@code merge-delay} 300 ms: the priority delay per rank. A coordinator that found other coordinators
 *       merges after {@code merge-delay × r}, where r is how many of the coordinators it found have a higher
 *       priority (a higher id). The highest merges at once; the others wait longer than one check cycle, so
 *       the highest normally invites them first and the merged group is coordinated by the highest-priority
 *       member that can be reached.
 *   <li>{@code are-you-there-interval} 100 ms and {@code are-you-there-timeout} 100 ms: members ask their
 *       coordinator every interval and form a group of one when an answer is "no" or does not come within the
 *       timeout. A crashed coordinator is detected within ≈ 200 ms; the survivors' groups of one then merge
 *       within one check cycle plus the highest survivor's invitation round (≈ 0.5 s failover in all).
 *   <li>{@code invitation-timeout} 100 ms: how long a merging coordinator waits for Accepts (it stops early
 *       when every invitee has accepted).
 *   <li>{@code ready-timeout} 200 ms: how long an invitee waits for Ready after its Accept before it forms a
 *       group of one; longer than the invitation timeout.
 *   <li>{@code lease} 600 ms: how long a member's confirmation binds it (it joins no other group for this
 *       long after confirming, on its own clock) and so how long a coordinator may act on it; without the gate
 *       it is the horizon a coordinator renews at every check.
 *   <li>{@code max-clock-drift} 0.01 and {@code validity-margin} 20 ms: a coordinator is valid until
 *       {@code confirmedRoundSendTime + lease × (1 − drift) − margin}.
 *   <li>{@code majority-gate} off: the classic algorithm, in which every coordinator acts, one per partition.
 *       On, a coordinator acts as leader only while members forming a majority of the configured members have
 *       confirmed its group recently, so two coordinators never act at once; a minority side has no leader.
 * </ul>
 *
 * <p>Thread-safe (immutable).
 */
public final class InvitationConfig extends AbstractSpec {
    private final Duration checkInterval;
    private final Duration answerTimeout;
    private final Duration mergeDelay;
    private final Duration areYouThereInterval;
    private final Duration areYouThereTimeout;
    private final Duration invitationTimeout;
    private final Duration readyTimeout;
    private final Duration lease;
    private final double maxClockDrift;
    private final Duration validityMargin;
    private final boolean majorityGate;

    private InvitationConfig(Builder b) {
        super("invitation", InvitationCodec.INSTANCE);
        this.checkInterval = b.checkInterval;
        this.answerTimeout = b.answerTimeout;
        this.mergeDelay = b.mergeDelay;
        this.areYouThereInterval = b.areYouThereInterval;
        this.areYouThereTimeout = b.areYouThereTimeout;
        this.invitationTimeout = b.invitationTimeout;
        this.readyTimeout = b.readyTimeout;
        this.lease = b.lease;
        this.maxClockDrift = b.maxClockDrift;
        this.validityMargin = b.validityMargin;
        this.majorityGate = b.majorityGate;
    }

    /** The documented defaults (majority gate off). */
    public static InvitationConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration's values. */
    public Builder toBuilder() {
        return new Builder()
                .checkInterval(checkInterval)
                .answerTimeout(answerTimeout)
                .mergeDelay(mergeDelay)
                .areYouThereInterval(areYouThereInterval)
                .areYouThereTimeout(areYouThereTimeout)
                .invitationTimeout(invitationTimeout)
                .readyTimeout(readyTimeout)
                .lease(lease)
                .maxClockDrift(maxClockDrift)
                .validityMargin(validityMargin)
                .majorityGate(majorityGate);
    }

    @Override
    public Elector create(ElectorContext context) {
        return new InvitationElector(this, context);
    }

    /**
     * A resignation's default hold-off ({@code Election.resign()}): two leases, time for the old members' fences to
     * run out (one lease, with the majority gate) and for the others to merge.
     */
    @Override
    public Optional<Duration> resignHoldOff() {
        return Optional.of(lease.multipliedBy(2));
    }

    /** {@code check-interval}; default 200 ms. */
    public Duration checkInterval() {
        return checkInterval;
    }

    /** {@code answer-timeout}; default 50 ms. */
    public Duration answerTimeout() {
        return answerTimeout;
    }

    /** {@code merge-delay}, per rank of priority; default 300 ms. */
    public Duration mergeDelay() {
        return mergeDelay;
    }

    /** {@code are-you-there-interval}; default 100 ms. */
    public Duration areYouThereInterval() {
        return areYouThereInterval;
    }

    /** {@code are-you-there-timeout}; default 100 ms. */
    public Duration areYouThereTimeout() {
        return areYouThereTimeout;
    }

    /** {@code invitation-timeout}; default 100 ms. */
    public Duration invitationTimeout() {
        return invitationTimeout;
    }

    /** {@code ready-timeout}; default 200 ms. */
    public Duration readyTimeout() {
        return readyTimeout;
    }

    /** {@code lease}; default 600 ms. */
    public Duration lease() {
        return lease;
    }

    /** {@code max-clock-drift}; default 0.01. */
    public double maxClockDrift() {
        return maxClockDrift;
    }

    /** {@code validity-margin}; default 20 ms. */
    public Duration validityMargin() {
        return validityMargin;
    }

    /** {@code majority-gate}; default false. */
    public boolean majorityGate() {
        return majorityGate;
    }

    /** {@code lease × (1 − max-clock-drift) − validity-margin}: how long a confirmed round keeps a leader valid. */
    public long validityNanos() {
        return ConfigChecks.validityNanos(lease.toNanos(), maxClockDrift, validityMargin.toNanos());
    }

    @Override
    public String toString() {
        return "InvitationConfig{check-interval=" + checkInterval.toMillis() + "ms, answer-timeout="
                + answerTimeout.toMillis() + "ms, merge-delay=" + mergeDelay.toMillis() + "ms, are-you-there-interval="
                + areYouThereInterval.toMillis() + "ms, are-you-there-timeout=" + areYouThereTimeout.toMillis()
                + "ms, invitation-timeout=" + invitationTimeout.toMillis() + "ms, ready-timeout="
                + readyTimeout.toMillis() + "ms, lease=" + lease.toMillis() + "ms, max-clock-drift=" + maxClockDrift
                + ", validity-margin=" + validityMargin.toMillis() + "ms, majority-gate=" + majorityGate + "}";
    }

    /** Builds an {@link InvitationConfig}; starts from the defaults. Not thread-safe. */
    public static final class Builder {
        private static final Duration MAX = Duration.ofSeconds(60);

        private Duration checkInterval = Duration.ofMillis(200);
        private Duration answerTimeout = Duration.ofMillis(50);
        private Duration mergeDelay = Duration.ofMillis(300);
        private Duration areYouThereInterval = Duration.ofMillis(100);
        private Duration areYouThereTimeout = Duration.ofMillis(100);
        private Duration invitationTimeout = Duration.ofMillis(100);
        private Duration readyTimeout = Duration.ofMillis(200);
        private Duration lease = Duration.ofMillis(600);
        private double maxClockDrift = 0.01;
        private Duration validityMargin = Duration.ofMillis(20);
        private boolean majorityGate;

        private Builder() {}

        /** {@code check-interval}: 1 ms to 60 s. */
        public Builder checkInterval(Duration value) {
            checkInterval = ConfigChecks.durationWithin("check-interval", value, Duration.ofMillis(1), MAX);
            return this;
        }

        /** {@code answer-timeout}: 1 ms to 60 s, below the check interval. */
        public Builder answerTimeout(Duration value) {
            answerTimeout = ConfigChecks.durationWithin("answer-timeout", value, Duration.ofMillis(1), MAX);
            return this;
        }

        /** {@code merge-delay}: 0 to 60 s. */
        public Builder mergeDelay(Duration value) {
            mergeDelay = ConfigChecks.durationWithin("merge-delay", value, Duration.ZERO, MAX);
            return this;
        }

        /** {@code are-you-there-interval}: 1 ms to 60 s. */
        public Builder areYouThereInterval(Duration value) {
            areYouThereInterval =
                    ConfigChecks.durationWithin("are-you-there-interval", value, Duration.ofMillis(1), MAX);
            return this;
        }

        /** {@code are-you-there-timeout}: 1 ms to 60 s. */
        public Builder areYouThereTimeout(Duration value) {
            areYouThereTimeout = ConfigChecks.durationWithin("are-you-there-timeout", value, Duration.ofMillis(1), MAX);
            return this;
        }

        /** {@code invitation-timeout}: 1 ms to 60 s. */
        public Builder invitationTimeout(Duration value) {
            invitationTimeout = ConfigChecks.durationWithin("invitation-timeout", value, Duration.ofMillis(1), MAX);
            return this;
        }

        /** {@code ready-timeout}: 1 ms to 60 s, above the invitation timeout. */
        public Builder readyTimeout(Duration value) {
            readyTimeout = ConfigChecks.durationWithin("ready-timeout", value, Duration.ofMillis(1), MAX);
            return this;
        }

        /** {@code lease}: 1 ms to 10 min; {@link #build()} checks it against the check cycle. */
        public Builder lease(Duration value) {
            lease = ConfigChecks.durationWithin("lease", value, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /** {@code max-clock-drift}: 0 to 0.1. */
        public Builder maxClockDrift(double value) {
            maxClockDrift = ConfigChecks.maxClockDrift(value);
            return this;
        }

        /** {@code validity-margin}: 0 to 60 s; {@link #build()} checks it against the drift. */
        public Builder validityMargin(Duration value) {
            validityMargin = ConfigChecks.validityMargin(value);
            return this;
        }

        /** {@code majority-gate}: whether a group below a majority of the configured members may act. */
        public Builder majorityGate(boolean value) {
            majorityGate = value;
            return this;
        }

        /**
         * Checks the relations between values and builds.
         *
         * @throws IllegalArgumentException naming the key, the value and what is allowed
         */
        public InvitationConfig build() {
            if (answerTimeout.compareTo(checkInterval) >= 0) {
                throw new IllegalArgumentException("answer-timeout = " + answerTimeout.toMillis()
                        + "ms is invalid: it must be below check-interval (" + checkInterval.toMillis() + "ms)");
            }
            if (readyTimeout.compareTo(invitationTimeout) <= 0) {
                throw new IllegalArgumentException("ready-timeout = " + readyTimeout.toMillis()
                        + "ms is invalid: it must be above invitation-timeout (" + invitationTimeout.toMillis()
                        + "ms), or invitees give up before the coordinator sends Ready");
            }
            // Same bound as the quorum elector's: a member's fence, on a clock up to drift fast, outlasts the
            // coordinator's validity measured on a clock up to drift slow.
            ConfigChecks.checkMargin(validityMargin, maxClockDrift, lease, "lease");
            long validity = ConfigChecks.validityNanos(lease.toNanos(), maxClockDrift, validityMargin.toNanos());
            long cycle = checkInterval.plus(answerTimeout).toNanos();
            if (validity <= cycle) {
                throw new IllegalArgumentException("lease = " + lease.toMillis() + "ms is too short: lease × (1 − "
                        + "max-clock-drift) − validity-margin must exceed check-interval + answer-timeout ("
                        + cycle / 1_000_000 + "ms), or a coordinator's validity lapses between two checks");
            }
            return new InvitationConfig(this);
        }
    }
}
