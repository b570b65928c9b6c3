package io.bellwether.bully;

import io.bellwether.NodeId;
import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.Priorities;
import io.bellwether.elector.RankedConfig;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

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
public final class BullyConfig extends RankedConfig {
    private final Duration coordinatorTimeout;
    private final boolean preemption;
    private final boolean strict;
    private final Map<NodeId, Integer> priorities;

    private BullyConfig(Builder b) {
        super("bully", BullyCodec.INSTANCE, b);
        this.coordinatorTimeout = b.coordinatorTimeout;
        this.preemption = b.preemption;
        this.strict = b.strict;
        this.priorities = b.priorities;
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
        return copyTo(new Builder())
                .coordinatorTimeout(coordinatorTimeout)
                .preemption(preemption)
                .strict(strict)
                .priorities(priorities);
    }

    /** With pre-emption the highest live id takes over once it has been up for the hold-down. */
    @Override
    public boolean highestIdLeads() {
        return preemption();
    }

    /** {@inheritDoc} The members in (priority, id) order, see {@link #priorities()}. */
    @Override
    public Map<NodeId, Integer> memberPriorities() {
        return priorities;
    }

    @Override
    public Elector create(ElectorContext context) {
        return strict ? new StrictBullyElector(this, context) : new BullyElector(this, context);
    }

    /** T = 2·Tm + Tp: how long an election waits for an OK. Default 25 ms. */
    public Duration answerTimeout() {
        return roundTrip();
    }

    /** T': how long a member that got an OK waits for the COORDINATOR announcement. Default 75 ms. */
    public Duration coordinatorTimeout() {
        return coordinatorTimeout;
    }

    /** Whether a member higher than the coordinator takes over (after the hold-down). Default true. */
    public boolean preemption() {
        return preemption;
    }

    /**
     * Whether elections follow the strict procedure (Halt, NewCoordinator, Ready) of {@link StrictBullyElector}
     * rather than the simple one (COORDINATOR) of {@link BullyElector}. Default false.
     */
    public boolean strict() {
        return strict;
    }

    /**
     * The members' priorities, by member; members left out have 0. The group's order is (priority, id): a member of
     * higher priority outranks every member of lower priority whatever their ids, and among equal priorities the
     * higher id ranks higher. Every member must be given the same map, as it is given the same member list. Default
     * empty: the id order.
     */
    public Map<NodeId, Integer> priorities() {
        return priorities;
    }

    /** A copy in which the group's priorities are {@code all} ({@code self} is not needed: the map is the group's). */
    @Override
    public BullyConfig withPriorities(Map<NodeId, Integer> all, NodeId self) {
        return toBuilder().priorities(all).build();
    }

    @Override
    public String toString() {
        return "BullyConfig{message-time=" + messageTime().toMillis() + "ms, processing-time="
                + processingTime().toMillis() + "ms, coordinator-timeout=" + coordinatorTimeout.toMillis()
                + "ms, heartbeat-interval=" + heartbeatInterval().toMillis() + "ms, missed-heartbeats="
                + missedHeartbeats() + ", preemption=" + preemption + ", preemption-hold-down="
                + preemptionHoldDown().toMillis() + "ms, "
                + (priorities.isEmpty() ? "" : "priorities=" + priorities + ", ")
                + "strict=" + strict + "}";
    }

    /** Builds a {@link BullyConfig}; starts from the defaults. */
    public static final class Builder extends RankedConfig.Builder<Builder> {
        private Duration coordinatorTimeout = Duration.ofMillis(75);
        private boolean preemption = true;
        private boolean strict = false;
        private Map<NodeId, Integer> priorities = Map.of();

        private Builder() {}

        @Override
        protected Builder self() {
            return this;
        }

        /** {@code coordinator-timeout}: 1 ms to 10 min; {@link #build()} checks it is at least 2·T. */
        public Builder coordinatorTimeout(Duration value) {
            coordinatorTimeout = ConfigChecks.durationWithin(
                    "coordinator-timeout", value, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /** {@code preemption}: whether a higher member takes over from a lower coordinator. */
        public Builder preemption(boolean value) {
            preemption = value;
            return this;
        }

        /** {@code strict}: whether elections follow the strict procedure (Halt, NewCoordinator, Ready). */
        public Builder strict(boolean value) {
            strict = value;
            return this;
        }

        /**
         * {@code priorities}: each member's priority, -1000 to 1000; members left out have 0.
         *
         * @throws IllegalArgumentException naming {@code priorities}, the member and the range
         */
        public Builder priorities(Map<NodeId, Integer> value) {
            Map<NodeId, Integer> checked = new TreeMap<>();
            value.forEach((member, priority) -> {
                if (priority < Priorities.MIN || priority > Priorities.MAX) {
                    throw new IllegalArgumentException("priorities = " + new TreeMap<>(value) + " is out of range: "
                            + member + " has " + priority + ", allowed " + Priorities.MIN + " to " + Priorities.MAX);
                }
                if (priority != 0) {
                    checked.put(member, priority);
                }
            });
            priorities = Collections.unmodifiableMap(checked);
            return this;
        }

        /**
         * {@code priorities} as written in configuration files: {@code member=priority} pairs separated by commas,
         * e.g. {@code "n1=5,n3=2"}; empty for none.
         *
         * @throws IllegalArgumentException naming {@code priorities}, the part that is wrong and what is allowed
         */
        public Builder priorities(String text) {
            Map<NodeId, Integer> parsed = new TreeMap<>();
            for (String part : text.split(",")) {
                if (part.isBlank()) {
                    continue;
                }
                int eq = part.indexOf('=');
                NodeId member;
                int priority;
                try {
                    member = NodeId.of(part.substring(0, Math.max(0, eq)).trim());
                    priority = Integer.parseInt(part.substring(eq + 1).trim());
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("priorities = '" + text + "' is invalid at '" + part.trim()
                            + "': allowed member=priority pairs separated by commas, e.g. n1=5,n3=2, each priority "
                            + Priorities.MIN + " to " + Priorities.MAX);
                }
                if (parsed.put(member, priority) != null) {
                    throw new IllegalArgumentException(
                            "priorities = '" + text + "' is invalid: " + member + " is named twice");
                }
            }
            return priorities(parsed);
        }

        /**
         * Checks the relations between values and builds.
         *
         * @throws IllegalArgumentException naming the key, the value and what is allowed
         */
        public BullyConfig build() {
            Duration answer = roundTrip();
            if (coordinatorTimeout.compareTo(answer.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("coordinator-timeout = " + coordinatorTimeout.toMillis()
                        + "ms is too small: it must be at least twice the answer timeout 2·message-time +"
                        + " processing-time (" + answer.multipliedBy(2).toMillis() + "ms), the time a higher"
                        + " member needs to run its own election and announce the result");
            }
            checkFollowerTimeout("answer timeout");
            return new BullyConfig(this);
        }
    }
}
