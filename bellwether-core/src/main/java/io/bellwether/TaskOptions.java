package io.bellwether;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link Election#runWhileLeader(LeaderTask, TaskOptions)} runs a leader task: what happens when it throws or
 * returns while this member still leads, how it is restarted, and how long it may stay silent before it is declared
 * unhealthy. Immutable; build one with {@link #builder()}, or take {@link #defaults()}.
 *
 * <table>
 *   <caption>Options and their defaults</caption>
 *   <tr><th>key</th><th>default</th><th>allowed</th></tr>
 *   <tr><td>{@code name}</td><td>{@code leader-task}</td><td>1–64 characters, no control characters</td></tr>
 *   <tr><td>{@code on-failure}</td><td>{@link TaskPolicy#RESTART}</td><td>any {@link TaskPolicy}</td></tr>
 *   <tr><td>{@code on-return}</td><td>{@link TaskPolicy#STAY}</td><td>any {@link TaskPolicy}</td></tr>
 *   <tr><td>{@code max-restarts}</td><td>3</td><td>0–1000</td></tr>
 *   <tr><td>{@code initial-backoff}</td><td>1 s</td><td>0 ms – 1 h, at most {@code max-backoff}</td></tr>
 *   <tr><td>{@code max-backoff}</td><td>30 s</td><td>0 ms – 1 h</td></tr>
 *   <tr><td>{@code health-timeout}</td><td>none (not checked)</td><td>1 ms – 1 h</td></tr>
 *   <tr><td>{@code resign-hold-off}</td><td>5 s</td><td>0 ms – 1 h</td></tr>
 * </table>
 *
 * <p>With the defaults, a task that throws is restarted after 1 s, 2 s and 4 s; its fourth failure in one leadership
 * makes this member step down ({@link RevocationReason#TASK_UNHEALTHY}) and stay out of elections for 5 s, so that a
 * member whose task can run takes over. A task that returns leaves this member leading, idle, until the leadership
 * ends: a task may start its work elsewhere and return, stopping that work when {@link Leadership#revoked()}
 * completes. Budgets and backoffs are per leadership: a new leadership starts with a fresh budget and the initial
 * backoff.
 */
public final class TaskOptions {
    /** The default {@link #name()}. */
    public static final String DEFAULT_NAME = "leader-task";

    private static final Duration MAX_DURATION = Duration.ofHours(1);
    private static final int MAX_RESTARTS = 1000;
    private static final TaskOptions DEFAULTS = builder().build();

    private final String name;
    private final TaskPolicy onFailure;
    private final TaskPolicy onReturn;
    private final int maxRestarts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Optional<Duration> healthTimeout;
    private final Duration resignHoldOff;

    private TaskOptions(Builder b) {
        this.name = b.name;
        this.onFailure = b.onFailure;
        this.onReturn = b.onReturn;
        this.maxRestarts = b.maxRestarts;
        this.initialBackoff = b.initialBackoff;
        this.maxBackoff = b.maxBackoff;
        this.healthTimeout = b.healthTimeout;
        this.resignHoldOff = b.resignHoldOff;
    }

    /** The defaults, as the table above lists them. */
    public static TaskOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The name the task's log lines, events and metrics carry. */
    public String name() {
        return name;
    }

    /** What happens when the task throws while this member leads. */
    public TaskPolicy onFailure() {
        return onFailure;
    }

    /** What happens when the task returns while this member leads. */
    public TaskPolicy onReturn() {
        return onReturn;
    }

    /** How many times {@link TaskPolicy#RESTART} restarts a failed task in one leadership before resigning. */
    public int maxRestarts() {
        return maxRestarts;
    }

    /** The backoff before the first restart of a leadership. */
    public Duration initialBackoff() {
        return initialBackoff;
    }

    /** The cap of the backoff, which doubles with each restart. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /**
     * How long a running task may go without calling {@link Leadership#heartbeat()} (counted from its start, then
     * from its last heartbeat) before it is declared unhealthy and this member steps down with {@link
     * RevocationReason#TASK_UNHEALTHY}; empty when health is not checked.
     */
    public Optional<Duration> healthTimeout() {
        return healthTimeout;
    }

    /** How long a member that stepped down for its task stays out of elections, so that another member leads. */
    public Duration resignHoldOff() {
        return resignHoldOff;
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.onFailure = onFailure;
        b.onReturn = onReturn;
        b.maxRestarts = maxRestarts;
        b.initialBackoff = initialBackoff;
        b.maxBackoff = maxBackoff;
        b.healthTimeout = healthTimeout;
        b.resignHoldOff = resignHoldOff;
        return b;
    }

    @Override
    public String toString() {
        return "TaskOptions{name=" + name + ", on-failure=" + onFailure + ", on-return=" + onReturn + ", max-restarts="
                + maxRestarts + ", initial-backoff=" + initialBackoff.toMillis() + "ms, max-backoff="
                + maxBackoff.toMillis() + "ms, health-timeout="
                + healthTimeout.map(d -> d.toMillis() + "ms").orElse("none") + ", resign-hold-off="
                + resignHoldOff.toMillis() + "ms}";
    }

    /**
     * Builds {@link TaskOptions}. Each setter checks its value at once and throws {@link IllegalArgumentException}
     * naming the key, the value and what is allowed; {@link #build()} checks that {@code initial-backoff} is at most
     * {@code max-backoff}. Not thread-safe.
     */
    public static final class Builder {
        private String name = DEFAULT_NAME;
        private TaskPolicy onFailure = TaskPolicy.RESTART;
        private TaskPolicy onReturn = TaskPolicy.STAY;
        private int maxRestarts = 3;
        private Duration initialBackoff = Duration.ofSeconds(1);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private Optional<Duration> healthTimeout = Optional.empty();
        private Duration resignHoldOff = Duration.ofSeconds(5);

        private Builder() {}

        /** {@code name}: 1–64 characters, no control characters. Default {@code leader-task}. */
        public Builder name(String value) {
            Objects.requireNonNull(value, "name");
            if (value.isEmpty() || value.length() > 64 || value.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException(
                        "name = '" + value + "' is not allowed: allowed 1 to 64 characters without control characters");
            }
            this.name = value;
            return this;
        }

        /** {@code on-failure}: the policy when the task throws while this member leads. Default RESTART. */
        public Builder onFailure(TaskPolicy value) {
            this.onFailure = Objects.requireNonNull(value, "on-failure");
            return this;
        }

        /** {@code on-return}: the policy when the task returns while this member leads. Default STAY. */
        public Builder onReturn(TaskPolicy value) {
            this.onReturn = Objects.requireNonNull(value, "on-return");
            return this;
        }

        /** {@code max-restarts}: restarts after failures per leadership before resigning, 0–1000. Default 3. */
        public Builder maxRestarts(int value) {
            if (value < 0 || value > MAX_RESTARTS) {
                throw new IllegalArgumentException(
                        "max-restarts = " + value + " is out of range: allowed 0 to " + MAX_RESTARTS);
            }
            this.maxRestarts = value;
            return this;
        }

        /** {@code initial-backoff}: 0 ms – 1 h, at most {@code max-backoff}. Default 1 s. */
        public Builder initialBackoff(Duration value) {
            this.initialBackoff = duration("initial-backoff", value, Duration.ZERO);
            return this;
        }

        /** {@code max-backoff}: 0 ms – 1 h, at least {@code initial-backoff}. Default 30 s. */
        public Builder maxBackoff(Duration value) {
            this.maxBackoff = duration("max-backoff", value, Duration.ZERO);
            return this;
        }

        /** Sets {@code initial-backoff} and {@code max-backoff} together. */
        public Builder backoff(Duration initial, Duration max) {
            return initialBackoff(initial).maxBackoff(max);
        }

        /** {@code health-timeout}: 1 ms – 1 h. Default: none, health is not checked. */
        public Builder healthTimeout(Duration value) {
            this.healthTimeout = Optional.of(duration("health-timeout", value, Duration.ofMillis(1)));
            return this;
        }

        /** {@code resign-hold-off}: 0 ms – 1 h. Default 5 s. */
        public Builder resignHoldOff(Duration value) {
            this.resignHoldOff = duration("resign-hold-off", value, Duration.ZERO);
            return this;
        }

        /**
         * The options.
         *
         * @throws IllegalArgumentException if {@code initial-backoff} exceeds {@code max-backoff}
         */
        public TaskOptions build() {
            if (initialBackoff.compareTo(maxBackoff) > 0) {
                throw new IllegalArgumentException("initial-backoff = " + initialBackoff.toMillis()
                        + "ms is above max-backoff = " + maxBackoff.toMillis()
                        + "ms: allowed initial-backoff at most max-backoff");
            }
            return new TaskOptions(this);
        }

        private static Duration duration(String key, Duration value, Duration min) {
            Objects.requireNonNull(value, key);
            if (value.compareTo(min) < 0 || value.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException(key + " = " + value.toMillis() + "ms is out of range: allowed "
                        + min.toMillis() + "ms to " + MAX_DURATION.toMillis() + "ms");
            }
            return value;
        }
    }
}
