package io.bellwether.bully;

import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.MessageCodec;
import java.time.Duration;

/**
 * Timings of the bully elector (Garcia-Molina 1982). Immutable and validated: every setter checks its value
 * and {@link Builder#build()} checks the relations between values; errors name the key (as written in
 * configuration files), the value and what is allowed.
 *
 * <p>Defaults, chosen for fast failover on a LAN, and the failover they give:
 *
 * <ul>
 *   <li>{@code message-time} (Tm) 10 ms: the longest one-way trip of a message, transport included.
 *   <li>{@code processing-time} (Tp) 5 ms: the longest time a member takes to handle a message.
 *   <li>{@code answer-timeout} T = 2·Tm + Tp = 25 ms (derived): how long an election waits for an OK from a
 *       higher member before the member declares itself coordinator.
 *   <li>{@code coordinator-timeout} (T') 75 ms: how long a member that got an OK waits for the COORDINATOR
 *       announcement before it restarts its election. At least 2·T: a higher member learns of the election
 *       within Tm, runs its own (T), and announces (Tm + Tp).
 *   <li>{@code heartbeat-interval} 50 ms and {@code missed-heartbeats} 3: the coordinator heartbeats every
 *       member; a follower that hears nothing for 150 ms starts an election. The coordinator's leadership is
 *       valid for the same 150 ms after each heartbeat round it sends (the horizon), so a coordinator whose
 *       process stalls longer loses it.
 *   <li>{@code preemption} on, {@code preemption-hold-down} 1 s: a member that (re)starts and finds a lower
 *       coordinator follows it for the hold-down, then "bullies" it with an election of its own, so that the
 *       highest live id leads, but a member that flaps faster than the hold-down disturbs no one.
 * </ul>
 *
 * <p>Failover with these defaults, measured in the simulator (5 members, 1 ms links): a coordinator whose
 * connections reset (process crash) is replaced after one answer timeout (≈ 25 ms); a coordinator whose host
 * goes silent after the follower timeout plus one answer timeout (≈ 140 ms typical, 175 ms at the 99th
 * percentile). A restarted member higher than the coordinator takes over after the hold-down (≈ 1 s). Under partitions each side elects its own coordinator: bully
 * keeps working in every partition and pays for it with two acting coordinators until the partition heals.
 *
 * <p>{@code strict} (default false) selects Garcia-Molina's strict procedure ({@link StrictBullyElector}): the
 * winner halts the lower members, installs itself with NewCoordinator and acts as leader only after its Ready, so
 * that a reachable old coordinator stops acting before the new one starts. It costs two more round trips per
 * election (up to two more answer timeouts when members are down) and 6·(n−1) messages per reorganization instead
 * of 2·(n−1). Every member of a group must use the same mode.
 */
public final class BullyConfig implements ElectorSpec {
    private final Duration messageTime;
    private final Duration processingTime;
    private final Duration coordinatorTimeout;
    private final Duration heartbeatInterval;
    private final int missedHeartbeats;
    private final boolean preemption;
    private final Duration preemptionHoldDown;
    private final boolean strict;

    private BullyConfig(Builder b) {
        this.messageTime = b.messageTime;
        this.processingTime = b.processingTime;
        this.coordinatorTimeout = b.coordinatorTimeout;
        this.heartbeatInterval = b.heartbeatInterval;
        this.missedHeartbeats = b.missedHeartbeats;
        this.preemption = b.preemption;
        this.preemptionHoldDown = b.preemptionHoldDown;
        this.strict = b.strict;
    }

    /** The documented defaults. */
    public static BullyConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration's values. */
    public Builder toBuilder() {
        return new Builder()
                .messageTime(messageTime)
                .processingTime(processingTime)
                .coordinatorTimeout(coordinatorTimeout)
                .heartbeatInterval(heartbeatInterval)
                .missedHeartbeats(missedHeartbeats)
                .preemption(preemption)
                .preemptionHoldDown(preemptionHoldDown)
                .strict(strict);
    }

    @Override
    public String algorithm() {
        return "bully";
    }

    @Override
    public Elector create(ElectorContext context) {
        return strict ? new StrictBullyElector(this, context) : new BullyElector(this, context);
    }

    @Override
    public MessageCodec codec() {
        return BullyCodec.INSTANCE;
    }

    /** Tm, the longest one-way message time. Default 10 ms. */
    public Duration messageTime() {
        return messageTime;
    }

    /** Tp, the longest message processing time. Default 5 ms. */
    public Duration processingTime() {
        return processingTime;
    }

    /** T = 2·Tm + Tp: how long an election waits for an OK. Default 25 ms. */
    public Duration answerTimeout() {
        return ConfigChecks.roundTrip(messageTime, processingTime);
    }

    /** T': how long a member that got an OK waits for the COORDINATOR announcement. Default 75 ms. */
    public Duration coordinatorTimeout() {
        return coordinatorTimeout;
    }

    /** How often the coordinator heartbeats its followers. Default 50 ms. */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** How many heartbeat intervals a follower waits before it starts an election. Default 3. */
    public int missedHeartbeats() {
        return missedHeartbeats;
    }

    /**
     * {@code heartbeat-interval × missed-heartbeats}: how long a follower waits for a silent coordinator, and
     * how long a coordinator's leadership stays valid after each heartbeat round it sends. Default 150 ms.
     */
    public Duration leaderTimeout() {
        return heartbeatInterval.multipliedBy(missedHeartbeats);
    }

    /** Whether a member higher than the coordinator takes over (after the hold-down). Default true. */
    public boolean preemption() {
        return preemption;
    }

    /** How long after its start a member follows a lower coordinator before pre-empting it. Default 1 s. */
    public Duration preemptionHoldDown() {
        return preemptionHoldDown;
    }

    /**
     * Whether elections follow the strict procedure (Halt, NewCoordinator, Ready) of {@link StrictBullyElector}
     * rather than the simple one (COORDINATOR) of {@link BullyElector}. Default false.
     */
    public boolean strict() {
        return strict;
    }

    @Override
    public String toString() {
        return "BullyConfig{message-time=" + messageTime.toMillis() + "ms, processing-time="
                + processingTime.toMillis() + "ms, coordinator-timeout=" + coordinatorTimeout.toMillis()
                + "ms, heartbeat-interval=" + heartbeatInterval.toMillis() + "ms, missed-heartbeats="
                + missedHeartbeats + ", preemption=" + preemption + ", preemption-hold-down="
                + preemptionHoldDown.toMillis() + "ms, strict=" + strict + "}";
    }

    /** Builds a {@link BullyConfig}; starts from the defaults. */
    public static final class Builder {
        private Duration messageTime = Duration.ofMillis(10);
        private Duration processingTime = Duration.ofMillis(5);
        private Duration coordinatorTimeout = Duration.ofMillis(75);
        private Duration heartbeatInterval = Duration.ofMillis(50);
        private int missedHeartbeats = 3;
        private boolean preemption = true;
        private Duration preemptionHoldDown = Duration.ofSeconds(1);
        private boolean strict = false;

        private Builder() {}

        /** {@code message-time}: 1 ms to 60 s. */
        public Builder messageTime(Duration value) {
            messageTime = ConfigChecks.messageTime(value);
            return this;
        }

        /** {@code processing-time}: 0 to 60 s. */
        public Builder processingTime(Duration value) {
            processingTime = ConfigChecks.processingTime(value);
            return this;
        }

        /** {@code coordinator-timeout}: 1 ms to 10 min; {@link #build()} checks it is at least 2·T. */
        public Builder coordinatorTimeout(Duration value) {
            coordinatorTimeout = ConfigChecks.durationWithin(
                    "coordinator-timeout", value, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

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

        /** {@code preemption}: whether a higher member takes over from a lower coordinator. */
        public Builder preemption(boolean value) {
            preemption = value;
            return this;
        }

        /** {@code preemption-hold-down}: 0 to 10 min. */
        public Builder preemptionHoldDown(Duration value) {
            preemptionHoldDown = ConfigChecks.preemptionHoldDown(value);
            return this;
        }

        /** {@code strict}: whether elections follow the strict procedure (Halt, NewCoordinator, Ready). */
        public Builder strict(boolean value) {
            strict = value;
            return this;
        }

        /**
         * Checks the relations between values and builds.
         *
         * @throws IllegalArgumentException naming the key, the value and what is allowed
         */
        public BullyConfig build() {
            Duration answer = ConfigChecks.roundTrip(messageTime, processingTime);
            if (coordinatorTimeout.compareTo(answer.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("coordinator-timeout = " + coordinatorTimeout.toMillis()
                        + "ms is too small: it must be at least twice the answer timeout 2·message-time +"
                        + " processing-time (" + answer.multipliedBy(2).toMillis() + "ms), the time a higher"
                        + " member needs to run its own election and announce the result");
            }
            ConfigChecks.checkFollowerTimeout(heartbeatInterval, missedHeartbeats, answer, "answer timeout");
            return new BullyConfig(this);
        }
    }
}
