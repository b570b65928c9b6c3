package io.bellwether.testkit.toy;

import io.bellwether.elector.AbstractSpec;
import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import java.time.Duration;
import java.util.Objects;

/**
 * The toy algorithm's validated configuration ({@code algorithm: toy}, section {@code toy:}).
 *
 * @see ToyAlgorithm
 */
public final class ToyConfig extends AbstractSpec {
    /** A member counts as alive while it was heard from within this many ping intervals. */
    static final int LIVENESS_INTERVALS = 4;

    static final Duration MIN_PING_INTERVAL = Duration.ofMillis(1);
    static final Duration MAX_PING_INTERVAL = Duration.ofSeconds(10);

    private final Duration pingInterval;
    private final boolean highestWins;

    private ToyConfig(Builder b) {
        super(ToyAlgorithm.NAME, ToyCodec.INSTANCE);
        this.pingInterval = b.pingInterval;
        this.highestWins = b.highestWins;
    }

    /** A builder with the defaults: a ping every 50 ms, the lowest id wins. */
    public static Builder builder() {
        return new Builder();
    }

    /** How often every member pings every other one. */
    public Duration pingInterval() {
        return pingInterval;
    }

    /** Whether the highest live id leads instead of the lowest. */
    public boolean highestWins() {
        return highestWins;
    }

    @Override
    public boolean highestIdLeads() {
        return highestWins;
    }

    @Override
    public Elector create(ElectorContext context) {
        return new ToyElector(context, this);
    }

    @Override
    public String toString() {
        return "ToyConfig[pingInterval=" + pingInterval + ", highestWins=" + highestWins + "]";
    }

    /** Collects and checks the toy's settings. */
    public static final class Builder {
        private Duration pingInterval = Duration.ofMillis(50);
        private boolean highestWins;

        private Builder() {}

        /** {@code ping-interval}: 1 ms to 10 s. */
        public Builder pingInterval(Duration value) {
            pingInterval = ConfigChecks.durationWithin("ping-interval", value, MIN_PING_INTERVAL, MAX_PING_INTERVAL);
            return this;
        }

        /** {@code highest-wins}. */
        public Builder highestWins(boolean value) {
            highestWins = value;
            return this;
        }

        /** The configuration. */
        public ToyConfig build() {
            Objects.requireNonNull(pingInterval, "pingInterval");
            return new ToyConfig(this);
        }
    }
}
