package io.bellwether.ring;

import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.RankedConfig;
import java.time.Duration;

/**
 * Timings of the ring elector (Chang &amp; Roberts 1979, LeLann 1977; id-accumulating variant). Immutable and
 * validated; errors name the key (as written in configuration files), the value and what is allowed.
 *
 * <p>Defaults, chosen for fast failover on a LAN, and the failover they give:
 *
 * <ul>
 *   <li>{@code message-time} (Tm) 10 ms and {@code processing-time} (Tp) 5 ms give the per-hop acknowledgement
 *       timeout {@code hop-timeout} = 2·Tm + Tp = 25 ms (derived).
 *   <li>{@code hop-attempts} 2: a hop is sent twice to the same successor before that successor is skipped as
 *       unreachable, so a dead successor costs 50 ms and a single lost message costs 25 ms, not a skip.
 *   <li>{@code heartbeat-interval} 50 ms and {@code missed-heartbeats} 3: followers start an election after
 *       150 ms without a heartbeat; a coordinator's leadership is valid for 150 ms after each round it sends.
 *   <li>{@code preemption-hold-down} 1 s: a member that (re)starts and finds a lower coordinator (it was not on
 *       the ring when that coordinator was elected) follows it for this long, then starts an election, which the
 *       highest live id wins.
 * </ul>
 *
 * <p>An election costs 2n hops (n ELECTION, n COORDINATOR), each acknowledged. With the defaults, a coordinator
 * whose connections reset is replaced after its predecessor skips it twice (once for the ELECTION, once for the
 * COORDINATOR: 2 × 2 × 25 ms) plus 2n hops: ≈ 100 ms for n = 5 in the simulator (1 ms links). A coordinator whose
 * host goes silent is replaced after the follower timeout on top: ≈ 220 ms typical, under 0.5 s at the 99th
 * percentile. A restarted member higher than the coordinator takes over after the hold-down (≈ 1 s).
 */
public final class RingConfig extends RankedConfig {
    private final int hopAttempts;

    private RingConfig(Builder b) {
        super("ring", RingCodec.INSTANCE, b);
        this.hopAttempts = b.hopAttempts;
    }

    /** The documented defaults. */
    public static RingConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration's values. */
    public Builder toBuilder() {
        return copyTo(new Builder()).hopAttempts(hopAttempts);
    }

    /** The election message carries the highest id around the ring, and a higher member pre-empts. */
    @Override
    public boolean highestIdLeads() {
        return true;
    }

    @Override
    public Elector create(ElectorContext context) {
        return new RingElector(this, context);
    }

    /** 2·Tm + Tp: how long a hop waits for its acknowledgement. Default 25 ms. */
    public Duration hopTimeout() {
        return roundTrip();
    }

    /** How many times a hop is sent to one successor before it is skipped. Default 2. */
    public int hopAttempts() {
        return hopAttempts;
    }

    /**
     * How long a member that took part in an election waits for its result before starting another: every hop
     * of an ELECTION and a COORDINATOR around {@code members} members, each skipping after all its attempts.
     */
    public long electionDeadlineNanos(int members) {
        return (2L * members * hopAttempts + 1) * hopTimeout().toNanos();
    }

    @Override
    public String toString() {
        return "RingConfig{message-time=" + messageTime().toMillis() + "ms, processing-time="
                + processingTime().toMillis() + "ms, hop-attempts=" + hopAttempts + ", heartbeat-interval="
                + heartbeatInterval().toMillis() + "ms, missed-heartbeats=" + missedHeartbeats()
                + ", preemption-hold-down=" + preemptionHoldDown().toMillis() + "ms}";
    }

    /** Builds a {@link RingConfig}; starts from the defaults. */
    public static final class Builder extends RankedConfig.Builder<Builder> {
        private int hopAttempts = 2;

        private Builder() {}

        @Override
        protected Builder self() {
            return this;
        }

        /** {@code hop-attempts}: 1 to 10. */
        public Builder hopAttempts(int value) {
            hopAttempts = ConfigChecks.intWithin("hop-attempts", value, 1, 10);
            return this;
        }

        /**
         * Checks the relations between values and builds.
         *
         * @throws IllegalArgumentException naming the key, the value and what is allowed
         */
        public RingConfig build() {
            checkFollowerTimeout("hop timeout");
            return new RingConfig(this);
        }
    }
}
