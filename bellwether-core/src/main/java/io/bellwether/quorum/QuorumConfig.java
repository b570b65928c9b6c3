package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.AbstractSpec;
import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.Priorities;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Timings of the quorum elector. Immutable and validated: every setter checks its value and {@link
 * Builder#build()} checks the relations between values; errors name the key (as written in configuration
 * files), the value and what is allowed.
 *
 * <p>Defaults, and the failover they give on a LAN (see {@code docs/quorum.md} for the derivation and
 * {@code docs/benchmarks.md} for measurements):
 *
 * <ul>
 *   <li>{@code heartbeat-interval} 100 ms, {@code missed-heartbeats} 4: the election timeout is 400 ms. A
 *       leader whose host goes silent is replaced after ≈ 400 ms + backoff + two round trips (≈ 0.45–0.55 s).
 *   <li>{@code backoff-min} 10 ms, {@code backoff-max} 100 ms: the wait before scouting. The members take
 *       turns in id order (in priority order when every member's priority is known, see {@link
 *       #memberPriorities()}), each in its own slot of the range with a random offset, so that followers rarely
 *       scout at once. A crashed leader whose connections reset is replaced after the first follower's wait
 *       plus two round trips and one fsync (≈ 10–35 ms with 5 members).
 *   <li>{@code scouting-timeout} 100 ms, {@code proposal-timeout} 200 ms: how long a round waits for a
 *       majority before backing off and scouting again.
 *   <li>{@code max-clock-drift} 0.01 and {@code validity-margin} 20 ms: how much shorter than the election
 *       timeout a leader's validity is, so that it ends before any successor can be elected.
 *   <li>{@code step-down-hold-down} 400 ms: a leader that lost its quorum does not campaign for this long.
 *   <li>{@code standby} true: the leader names a standby successor that gathers pledged votes while it leads,
 *       so that a graceful stop hands over with one message (rule 10 of {@code docs/quorum.md}). It costs the
 *       standby a round of small messages to its fellow followers every 250 ms (two thirds of the validity).
 *   <li>{@code priority} 0: this member's priority, announced to the leader in its heartbeat answers. A leader
 *       hands its leadership to the connected member of the highest priority above its own once that member has
 *       confirmed every heartbeat for {@code priority-hold-down} (1 s), by the graceful hand-over path (rule 11).
 * </ul>
 */
public final class QuorumConfig extends AbstractSpec {
    /** The longest {@code priority-hold-down}. */
    public static final Duration MAX_PRIORITY_HOLD_DOWN = Duration.ofMinutes(10);

    private final Duration heartbeatInterval;
    private final int missedHeartbeats;
    private final Duration backoffMin;
    private final Duration backoffMax;
    private final Duration scoutingTimeout;
    private final Duration proposalTimeout;
    private final double maxClockDrift;
    private final Duration validityMargin;
    private final Duration stepDownHoldDown;
    private final boolean standby;
    private final int priority;
    private final Duration priorityHoldDown;
    private final Map<NodeId, Integer> memberPriorities;

    private QuorumConfig(Builder b) {
        super("quorum", QuorumCodec.INSTANCE);
        this.heartbeatInterval = b.heartbeatInterval;
        this.missedHeartbeats = b.missedHeartbeats;
        this.backoffMin = b.backoffMin;
        this.backoffMax = b.backoffMax;
        this.scoutingTimeout = b.scoutingTimeout;
        this.proposalTimeout = b.proposalTimeout;
        this.maxClockDrift = b.maxClockDrift;
        this.validityMargin = b.validityMargin;
        this.stepDownHoldDown = b.stepDownHoldDown;
        this.standby = b.standby;
        this.priority = b.priority;
        this.priorityHoldDown = b.priorityHoldDown;
        this.memberPriorities = b.memberPriorities;
    }

    /** The documented defaults. */
    public static QuorumConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration's values. */
    public Builder toBuilder() {
        return new Builder()
                .heartbeatInterval(heartbeatInterval)
                .missedHeartbeats(missedHeartbeats)
                .backoff(backoffMin, backoffMax)
                .scoutingTimeout(scoutingTimeout)
                .proposalTimeout(proposalTimeout)
                .maxClockDrift(maxClockDrift)
                .validityMargin(validityMargin)
                .stepDownHoldDown(stepDownHoldDown)
                .standby(standby)
                .priority(priority)
                .priorityHoldDown(priorityHoldDown)
                .memberPriorities(memberPriorities);
    }

    @Override
    public Elector create(ElectorContext context) {
        return new QuorumElector(this, context);
    }

    /** How often the leader sends heartbeats. Default 100 ms. */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** How many heartbeat intervals a follower waits without one before declaring the leader lost. Default 4. */
    public int missedHeartbeats() {
        return missedHeartbeats;
    }

    /**
     * {@code heartbeat-interval × missed-heartbeats}: how long followers wait for a silent leader, how long
     * after its last heartbeat a member refuses to support a new candidate, and the window in which a leader
     * must hear from a majority.
     */
    public Duration electionTimeout() {
        return heartbeatInterval.multipliedBy(missedHeartbeats);
    }

    public Duration backoffMin() {
        return backoffMin;
    }

    public Duration backoffMax() {
        return backoffMax;
    }

    public Duration scoutingTimeout() {
        return scoutingTimeout;
    }

    public Duration proposalTimeout() {
        return proposalTimeout;
    }

    /** The largest rate error assumed between any two members' monotonic clocks, as a fraction. Default 0.01. */
    public double maxClockDrift() {
        return maxClockDrift;
    }

    /** Subtracted from a leader's validity to absorb drift beyond the bound and scheduling delays. Default 20 ms. */
    public Duration validityMargin() {
        return validityMargin;
    }

    /** A resignation's default hold-off ({@code Election.resign()}): one election timeout. */
    @Override
    public Optional<Duration> resignHoldOff() {
        return Optional.of(electionTimeout());
    }

    public Duration stepDownHoldDown() {
        return stepDownHoldDown;
    }

    /** Whether the leader keeps a standby successor (rule 10 of {@code docs/quorum.md}). Default true. */
    public boolean standby() {
        return standby;
    }

    /**
     * This member's priority: higher is preferred as leader (rule 11 of {@code docs/quorum.md}). Default 0; equal
     * priorities never move a leadership.
     */
    @Override
    public int priority() {
        return priority;
    }

    /** A copy of this configuration with {@code priority} (see {@link Builder#priority}). */
    @Override
    public QuorumConfig withPriority(int value) {
        // Without the members' map: this member's own priority alone, as a configuration file gives it.
        return value == priority && memberPriorities.isEmpty()
                ? this
                : toBuilder().priority(value).memberPriorities(Map.of()).build();
    }

    /**
     * A copy of this configuration with this member's priority from {@code all} (0 if it is left out), and the
     * whole map kept, so that the members also take their turns to campaign by priority (see {@link
     * #memberPriorities()}).
     *
     * @throws IllegalArgumentException if a priority is out of range
     */
    @Override
    public QuorumConfig withPriorities(Map<NodeId, Integer> all, NodeId self) {
        return toBuilder()
                .priority(all.getOrDefault(self, 0))
                .memberPriorities(all)
                .build();
    }

    /**
     * Every member's priority as the group gives them, when this configuration was made with {@link
     * #withPriorities} ({@link io.bellwether.ElectionBuilder#spreadLeaders}, the simulator); empty otherwise. A
     * member each knows only its own priority from its configuration; with the whole map the members that may
     * campaign take their turns (the backoff ranking, rule 3 of {@code docs/quorum.md}) in priority order, highest
     * first, rather than in id order, so that the member the group prefers usually leads from the first election
     * on instead of being handed leadership a hold-down later.
     */
    public Map<NodeId, Integer> memberPriorities() {
        return memberPriorities;
    }

    /**
     * How long a member of higher priority than the leader must have confirmed every heartbeat before the leader
     * hands over to it. Default 1 s.
     */
    public Duration priorityHoldDown() {
        return priorityHoldDown;
    }

    /**
     * How long a leader's leadership stays valid after the send time of a heartbeat round that a majority
     * acknowledged: {@code election-timeout × (1 − max-clock-drift) − validity-margin}.
     */
    public long validityNanos() {
        return ConfigChecks.validityNanos(electionTimeout().toNanos(), maxClockDrift, validityMargin.toNanos());
    }

    @Override
    public String toString() {
        return "QuorumConfig{heartbeat-interval=" + heartbeatInterval.toMillis() + "ms, missed-heartbeats="
                + missedHeartbeats + ", backoff=" + backoffMin.toMillis() + "-" + backoffMax.toMillis()
                + "ms, scouting-timeout=" + scoutingTimeout.toMillis() + "ms, proposal-timeout="
                + proposalTimeout.toMillis() + "ms, max-clock-drift=" + maxClockDrift + ", validity-margin="
                + validityMargin.toMillis() + "ms, step-down-hold-down=" + stepDownHoldDown.toMillis() + "ms, standby="
                + standby + ", priority=" + priority + ", priority-hold-down=" + priorityHoldDown.toMillis() + "ms"
                + (memberPriorities.isEmpty() ? "" : ", member-priorities=" + new TreeMap<>(memberPriorities)) + "}";
    }

    /** Builds a {@link QuorumConfig}; starts from the defaults. */
    public static final class Builder {
        private Duration heartbeatInterval = Duration.ofMillis(100);
        private int missedHeartbeats = 4;
        private Duration backoffMin = Duration.ofMillis(10);
        private Duration backoffMax = Duration.ofMillis(100);
        private Duration scoutingTimeout = Duration.ofMillis(100);
        private Duration proposalTimeout = Duration.ofMillis(200);
        private double maxClockDrift = 0.01;
        private Duration validityMargin = Duration.ofMillis(20);
        private Duration stepDownHoldDown = Duration.ofMillis(400);
        private boolean standby = true;
        private int priority = 0;
        private Duration priorityHoldDown = Duration.ofSeconds(1);
        private Map<NodeId, Integer> memberPriorities = Map.of();

        private Builder() {}

        /** {@code heartbeat-interval}: 1 ms to 60 s. */
        public Builder heartbeatInterval(Duration value) {
            heartbeatInterval = ConfigChecks.heartbeatInterval(value);
            return this;
        }

        /** {@code missed-heartbeats}: 2 to 100. */
        public Builder missedHeartbeats(int value) {
            missedHeartbeats = ConfigChecks.missedHeartbeats(value);
            return this;
        }

        /** {@code backoff-min} and {@code backoff-max}: 0 to 60 s, min ≤ max. */
        public Builder backoff(Duration min, Duration max) {
            Duration lo = checkedBackoffMin(min);
            Duration hi = checkedBackoffMax(max);
            checkBackoffOrder(lo, hi);
            backoffMin = lo;
            backoffMax = hi;
            return this;
        }

        /** {@code backoff-min}: 0 to 60 s; {@link #build()} checks that it is at most {@code backoff-max}. */
        public Builder backoffMin(Duration value) {
            backoffMin = checkedBackoffMin(value);
            return this;
        }

        /** {@code backoff-max}: 0 to 60 s; {@link #build()} checks that it is at least {@code backoff-min}. */
        public Builder backoffMax(Duration value) {
            backoffMax = checkedBackoffMax(value);
            return this;
        }

        private static Duration checkedBackoffMin(Duration value) {
            return ConfigChecks.durationWithin("backoff-min", value, Duration.ZERO, Duration.ofSeconds(60));
        }

        private static Duration checkedBackoffMax(Duration value) {
            return ConfigChecks.durationWithin("backoff-max", value, Duration.ZERO, Duration.ofSeconds(60));
        }

        private static void checkBackoffOrder(Duration min, Duration max) {
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException("backoff-max = " + max.toMillis()
                        + "ms is invalid: it must be at least backoff-min (" + min.toMillis() + "ms)");
            }
        }

        /** {@code scouting-timeout}: 1 ms to 60 s. */
        public Builder scoutingTimeout(Duration value) {
            scoutingTimeout = ConfigChecks.durationWithin(
                    "scouting-timeout", value, Duration.ofMillis(1), Duration.ofSeconds(60));
            return this;
        }

        /** {@code proposal-timeout}: 1 ms to 60 s. */
        public Builder proposalTimeout(Duration value) {
            proposalTimeout = ConfigChecks.durationWithin(
                    "proposal-timeout", value, Duration.ofMillis(1), Duration.ofSeconds(60));
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

        /** {@code step-down-hold-down}: 0 to 10 min. */
        public Builder stepDownHoldDown(Duration value) {
            stepDownHoldDown =
                    ConfigChecks.durationWithin("step-down-hold-down", value, Duration.ZERO, Duration.ofMinutes(10));
            return this;
        }

        /** {@code standby}: whether the leader keeps a standby successor. */
        public Builder standby(boolean value) {
            standby = value;
            return this;
        }

        /** {@code priority}: -1000 to 1000; higher is preferred as leader. */
        public Builder priority(int value) {
            priority = Priorities.checked(value);
            return this;
        }

        /** The members' priorities for the backoff ranking; see {@link QuorumConfig#memberPriorities()}. */
        Builder memberPriorities(Map<NodeId, Integer> all) {
            for (Map.Entry<NodeId, Integer> e : all.entrySet()) {
                Priorities.checked(Objects.requireNonNull(e.getValue(), "priority of " + e.getKey()));
            }
            memberPriorities = Map.copyOf(all);
            return this;
        }

        /** {@code priority-hold-down}: 0 to 10 min. */
        public Builder priorityHoldDown(Duration value) {
            priorityHoldDown =
                    ConfigChecks.durationWithin("priority-hold-down", value, Duration.ZERO, MAX_PRIORITY_HOLD_DOWN);
            return this;
        }

        /**
         * Checks the relations between values and builds.
         *
         * @throws IllegalArgumentException naming the key, the value and what is allowed
         */
        public QuorumConfig build() {
            checkBackoffOrder(backoffMin, backoffMax);
            Duration electionTimeout = heartbeatInterval.multipliedBy(missedHeartbeats);
            ConfigChecks.checkMargin(validityMargin, maxClockDrift, electionTimeout, "election timeout");
            long maxMargin = (long) (electionTimeout.toNanos() * (1 - maxClockDrift)) / 2;
            if (validityMargin.toNanos() > maxMargin) {
                throw new IllegalArgumentException("validity-margin = " + validityMargin.toMillis()
                        + "ms is too large: it must be at most half the election timeout ("
                        + maxMargin / 1_000_000 + "ms), or leaders would hardly ever be valid");
            }
            return new QuorumConfig(this);
        }
    }
}
