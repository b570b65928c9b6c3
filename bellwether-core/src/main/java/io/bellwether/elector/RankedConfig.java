package io.bellwether.elector;

import io.bellwether.NodeId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The timings every ranked election (bully, ring: the highest live id leads, a coordinator heartbeats its
 * followers) shares, with one default, one range and one error text each: {@code message-time}, {@code
 * processing-time}, {@code heartbeat-interval}, {@code missed-heartbeats} and {@code preemption-hold-down}. Each
 * algorithm's configuration extends it with its own keys and relations; immutable.
 */
public abstract class RankedConfig extends AbstractSpec {
    private final Duration messageTime;
    private final Duration processingTime;
    private final Duration heartbeatInterval;
    private final int missedHeartbeats;
    private final Duration preemptionHoldDown;

    /**
     * Takes the shared timings of a builder whose values {@link Builder#checkFollowerTimeout} has checked.
     *
     * @see AbstractSpec the other parameters
     */
    protected RankedConfig(String algorithm, MessageCodec codec, Builder<?> b) {
        super(algorithm, codec);
        this.messageTime = b.messageTime;
        this.processingTime = b.processingTime;
        this.heartbeatInterval = b.heartbeatInterval;
        this.missedHeartbeats = b.missedHeartbeats;
        this.preemptionHoldDown = b.preemptionHoldDown;
    }

    /**
     * The members' priorities, which order the group by (priority, id) instead of id (members left out have 0);
     * empty, the default, for the id order. Only algorithms whose election honours the order override it.
     */
    public Map<NodeId, Integer> memberPriorities() {
        return Map.of();
    }

    /** Tm, the longest one-way message time. Default 10 ms. */
    public Duration messageTime() {
        return messageTime;
    }

    /** Tp, the longest message processing time. Default 5 ms. */
    public Duration processingTime() {
        return processingTime;
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

    /**
     * A resignation's default hold-off ({@code Election.resign()}): one {@link #leaderTimeout()}, longer than the
     * others' election after a resignation.
     */
    @Override
    public Optional<Duration> resignHoldOff() {
        return Optional.of(leaderTimeout());
    }

    /** How long after its start a member follows a lower coordinator before it acts on it. Default 1 s. */
    public Duration preemptionHoldDown() {
        return preemptionHoldDown;
    }

    /** 2·Tm + Tp: the longest wait for an answer to one message. Default 25 ms. */
    protected final Duration roundTrip() {
        return ConfigChecks.roundTrip(messageTime, processingTime);
    }

    /** Sets the shared timings of {@code builder} to this configuration's, for {@code toBuilder()}. */
    protected final <B extends Builder<B>> B copyTo(B builder) {
        return builder.messageTime(messageTime)
                .processingTime(processingTime)
                .heartbeatInterval(heartbeatInterval)
                .missedHeartbeats(missedHeartbeats)
                .preemptionHoldDown(preemptionHoldDown);
    }

    /**
     * The settings of the shared keys but {@code preemption-hold-down}, in the order the descriptors list them:
     * {@code message-time} and {@code processing-time} first, the heartbeat keys after the algorithm's own.
     *
     * @param roundTrip what waits 2·Tm + Tp, completing the description of {@code processing-time}
     */
    public static <B extends Builder<B>> List<Setting<B>> messageSettings(String roundTrip) {
        return List.of(
                Setting.duration(
                        "message-time",
                        Duration.ofMillis(1),
                        Duration.ofSeconds(60),
                        "Tm, the longest one-way trip of a message, transport included. Default 10ms.",
                        Builder::messageTime),
                Setting.duration(
                        "processing-time",
                        Duration.ZERO,
                        Duration.ofSeconds(60),
                        "Tp, the longest time a member takes to handle a message; " + roundTrip + ". Default 5ms.",
                        Builder::processingTime));
    }

    /** The settings of {@code heartbeat-interval} and {@code missed-heartbeats}. */
    public static <B extends Builder<B>> List<Setting<B>> heartbeatSettings() {
        return List.of(
                Setting.duration(
                        "heartbeat-interval",
                        Duration.ofMillis(1),
                        Duration.ofSeconds(60),
                        "How often the coordinator heartbeats its followers. Default 50ms.",
                        Builder::heartbeatInterval),
                Setting.integer(
                        "missed-heartbeats",
                        "a whole number from 2 to 100",
                        "How many heartbeat intervals a follower waits before it starts an election. Default 3.",
                        Builder::missedHeartbeats));
    }

    /**
     * The setting of {@code preemption-hold-down}.
     *
     * @param then what a member does once the hold-down is over, ending the description
     */
    public static <B extends Builder<B>> Setting<B> preemptionHoldDownSetting(String then) {
        return Setting.duration(
                "preemption-hold-down",
                Duration.ZERO,
                Duration.ofMinutes(10),
                "How long after its start a member follows a lower coordinator before " + then + ". Default 1s.",
                Builder::preemptionHoldDown);
    }

    /**
     * Builds a ranked configuration; starts from the shared defaults. Not thread-safe.
     *
     * @param <B> the concrete builder, which every setter returns
     */
    public abstract static class Builder<B extends Builder<B>> {
        private Duration messageTime = Duration.ofMillis(10);
        private Duration processingTime = Duration.ofMillis(5);
        private Duration heartbeatInterval = Duration.ofMillis(50);
        private int missedHeartbeats = 3;
        private Duration preemptionHoldDown = Duration.ofSeconds(1);

        /** For the algorithms' own builders. */
        protected Builder() {}

        /** This builder, as its concrete type. */
        protected abstract B self();

        /** {@code message-time}: 1 ms to 60 s. */
        public B messageTime(Duration value) {
            messageTime = ConfigChecks.messageTime(value);
            return self();
        }

        /** {@code processing-time}: 0 to 60 s. */
        public B processingTime(Duration value) {
            processingTime = ConfigChecks.processingTime(value);
            return self();
        }

        /** {@code heartbeat-interval}: 1 ms to 60 s. */
        public B heartbeatInterval(Duration value) {
            heartbeatInterval = ConfigChecks.heartbeatInterval(value);
            return self();
        }

        /** {@code missed-heartbeats}: 2 to 100. */
        public B missedHeartbeats(int value) {
            missedHeartbeats = ConfigChecks.missedHeartbeats(value);
            return self();
        }

        /** {@code preemption-hold-down}: 0 to 10 min. */
        public B preemptionHoldDown(Duration value) {
            preemptionHoldDown = ConfigChecks.preemptionHoldDown(value);
            return self();
        }

        /** 2·message-time + processing-time as set so far. */
        protected final Duration roundTrip() {
            return ConfigChecks.roundTrip(messageTime, processingTime);
        }

        /**
         * Checks the follower timeout against {@link #roundTrip()}, see {@link ConfigChecks#checkFollowerTimeout}.
         *
         * @param answerName how the error names the round trip ({@code "answer timeout"}, {@code "hop timeout"})
         */
        protected final void checkFollowerTimeout(String answerName) {
            ConfigChecks.checkFollowerTimeout(heartbeatInterval, missedHeartbeats, roundTrip(), answerName);
        }
    }
}
