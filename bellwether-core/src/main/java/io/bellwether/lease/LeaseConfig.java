package io.bellwether.lease;

import io.bellwether.elector.AbstractSpec;
import io.bellwether.elector.ConfigChecks;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.MessageCodec;
import io.bellwether.elector.Priorities;
import io.bellwether.elector.StoreClient;
import io.bellwether.spi.LeaseStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The lease elector ({@code algorithm: lease}) and its configuration: one lease per group in a shared {@link
 * LeaseStore}, taken and renewed with single atomic statements on the store's clock. The lease is named after the
 * election's group (its {@link io.bellwether.ElectionBuilder#group group}), so one configuration serves elections of
 * any number of groups. Immutable and validated:
 * every setter checks its value and {@link Builder#build()} checks the relations between values; errors name
 * the key (as written in configuration files), the value and what is allowed.
 *
 * <p>Defaults scale with {@code duration}; at the default 3 s they are:
 *
 * <ul>
 *   <li>{@code duration} 3 s: how long the store keeps a lease that is not renewed.
 *   <li>{@code renew-interval} 1 s ({@code duration / 3}): how often the holder renews.
 *   <li>{@code renew-deadline} 2 s ({@code duration × 2/3}): if no renewal has succeeded by this long after
 *       the <em>send time</em> of the last successful one, the holder steps down (and its users are told)
 *       before its validity ends, then releases the lease as best it can.
 *   <li>{@code retry} 500 ms ({@code duration / 6}), with ±20% jitter: how often contenders poll.
 *   <li>{@code request-timeout} 1 s ({@code duration / 3}): how long any store request may take; a holder's
 *       requests are further capped so that none outlives its leadership.
 *   <li>{@code max-clock-drift} 0.01 and {@code validity-margin} 100 ms ({@code duration / 30}): a holder's
 *       validity is {@code sendTime + duration × (1 − max-clock-drift) − validity-margin} on its own clock
 *       (2.87 s at the defaults), so it ends before the store can give the lease to anyone else even when
 *       the holder's clock runs up to 1% fast.
 *   <li>{@code priority} 0: this member's priority, higher preferred. A contender whose poll finds the lease held
 *       by a member of lower priority claims it in the store; the holder sees the claim at its next renewal, steps
 *       down ({@link io.bellwether.elector.ChangeReason#TRANSFERRED}), releases the lease and does not contend for
 *       one lease duration plus one retry, so the claimant takes it at its next poll (at once where the store
 *       pushes releases); until the claim runs out, one {@code duration} after the claimant's last poll, the
 *       store gives the free lease to nobody of lower priority. Equal priorities never move the lease.
 * </ul>
 *
 * <p>Failover at the defaults: a crashed or paused holder's lease expires on the store at most {@code
 * duration} after its last renewal was applied; a contender takes it at its next poll, so takeover happens
 * within {@code duration + retry × 1.2 + one store round trip} (≤ 3.6 s plus a round trip) of the holder's
 * last successful renewal, and typically {@code duration − renew-interval/2 + retry/2} after a crash. A member
 * that restarts releases the lease its previous incarnation held, so a quick restart hands over at once. A
 * graceful stop releases the lease: contenders take it at their next poll (≤ 0.6 s), or within one round
 * trip where the store pushes releases ({@link LeaseStore#canPush()}). In the simulator (5 nodes, defaults,
 * crashes lasting 0.1–3 s, 400 seeds) takeover after a crash took p50 1.5 s, p99 2.9 s, max 3.2 s.
 *
 * <p>The holder id written to the store is {@code <node id>-<holder-suffix>}; the suffix is 8 random hex
 * digits drawn once per JVM from {@link SecureRandom}, so two processes never share a holder id even if they
 * share a node id or a seed. Within one process, two electors of one group must not share a node id.
 * Observers map a holder id back to the leader's node id by cutting off the suffix.
 */
public final class LeaseConfig extends AbstractSpec {
    /** The JVM-wide default {@code holder-suffix}. */
    private static final String PROCESS_SUFFIX = HexFormat.of().toHexDigits(new SecureRandom().nextInt());

    private static final Pattern SUFFIX = Pattern.compile("[A-Za-z0-9]{1,32}");

    private final LeaseStore store;
    private final Duration duration;
    private final Duration renewInterval;
    private final Duration renewDeadline;
    private final Duration retry;
    private final Duration requestTimeout;
    private final double maxClockDrift;
    private final Duration validityMargin;
    private final String holderSuffix;
    private final int priority;

    private LeaseConfig(
            Builder b,
            Duration renewInterval,
            Duration renewDeadline,
            Duration retry,
            Duration requestTimeout,
            Duration validityMargin) {
        // No codec: the lease elector talks only to its store.
        super("lease", MessageCodec.NONE);
        this.store = b.store;
        this.duration = b.duration;
        this.renewInterval = renewInterval;
        this.renewDeadline = renewDeadline;
        this.retry = retry;
        this.requestTimeout = requestTimeout;
        this.maxClockDrift = b.maxClockDrift;
        this.validityMargin = validityMargin;
        this.holderSuffix = b.holderSuffix;
        this.priority = b.priority;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration's values. */
    public Builder toBuilder() {
        return new Builder()
                .store(store)
                .duration(duration)
                .renewInterval(renewInterval)
                .renewDeadline(renewDeadline)
                .retry(retry)
                .requestTimeout(requestTimeout)
                .maxClockDrift(maxClockDrift)
                .validityMargin(validityMargin)
                .holderSuffix(holderSuffix)
                .priority(priority);
    }

    @Override
    public Elector create(ElectorContext context) {
        return new LeaseElector(this, context);
    }

    /** Carries the elector's requests to {@link #store()}, for the lease named {@code group}; one per election. */
    @Override
    public StoreClient storeClient(String group) {
        return new LeaseStoreClient(store, group);
    }

    /** {@code store}: where the lease lives. */
    public LeaseStore store() {
        return store;
    }

    public Duration duration() {
        return duration;
    }

    /**
     * A resignation's default hold-off ({@code Election.resign()}): one lease duration plus one retry period, so that
     * every waiting contender has polled (or been woken) at least once before the member contends again.
     */
    @Override
    public Optional<Duration> resignHoldOff() {
        return Optional.of(duration.plus(retry));
    }

    public Duration renewInterval() {
        return renewInterval;
    }

    public Duration renewDeadline() {
        return renewDeadline;
    }

    public Duration retry() {
        return retry;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public double maxClockDrift() {
        return maxClockDrift;
    }

    public Duration validityMargin() {
        return validityMargin;
    }

    public String holderSuffix() {
        return holderSuffix;
    }

    /**
     * This member's priority: higher is preferred as holder (see {@link LeaseConfig}). Default 0; equal priorities
     * never move the lease.
     */
    @Override
    public int priority() {
        return priority;
    }

    /** A copy of this configuration with {@code priority} (see {@link Builder#priority}). */
    @Override
    public LeaseConfig withPriority(int value) {
        return value == priority ? this : toBuilder().priority(value).build();
    }

    /** The holder id of the member {@code node}: {@code <node id>-<holder-suffix>}. */
    public String holderId(io.bellwether.NodeId node) {
        return node.value() + "-" + holderSuffix;
    }

    /** Whether contenders are woken by pushed releases ({@link LeaseStore#canPush()}). */
    public boolean pushesReleases() {
        return store.canPush();
    }

    /**
     * How long a lease with {@code remaining} left stays valid for its holder after the send time of the
     * request that reported it: {@code remaining × (1 − max-clock-drift) − validity-margin}.
     */
    public long validityNanos(Duration remaining) {
        return validityNanos(remaining.toNanos(), maxClockDrift, validityMargin.toNanos());
    }

    static long validityNanos(long remainingNanos, double drift, long marginNanos) {
        return ConfigChecks.validityNanos(remainingNanos, drift, marginNanos);
    }

    @Override
    public String toString() {
        return "LeaseConfig{store=" + store.describe() + ", duration=" + duration.toMillis()
                + "ms, renew-interval=" + renewInterval.toMillis() + "ms, renew-deadline=" + renewDeadline.toMillis()
                + "ms, retry=" + retry.toMillis() + "ms, request-timeout=" + requestTimeout.toMillis()
                + "ms, max-clock-drift=" + maxClockDrift + ", validity-margin=" + validityMargin.toMillis()
                + "ms, holder-suffix=" + holderSuffix + (priority != 0 ? ", priority=" + priority : "") + "}";
    }

    /**
     * Builds a {@link LeaseConfig}. Required: {@link #store}. Keys left unset default in
     * proportion to {@link #duration} (see {@link LeaseConfig}). Not thread-safe.
     */
    public static final class Builder {
        private LeaseStore store;
        private Duration duration = Duration.ofSeconds(3);
        private Duration renewInterval;
        private Duration renewDeadline;
        private Duration retry;
        private Duration requestTimeout;
        private double maxClockDrift = 0.01;
        private Duration validityMargin;
        private String holderSuffix = PROCESS_SUFFIX;
        private int priority;

        private Builder() {}

        /** {@code priority}: this member's priority, {@value Priorities#MIN} to {@value Priorities#MAX}. Default 0. */
        public Builder priority(int value) {
            priority = Priorities.checked(value);
            return this;
        }

        /** {@code store}: the lease store. Required. */
        public Builder store(LeaseStore value) {
            store = Objects.requireNonNull(value, "store");
            return this;
        }

        /** The range every period but {@code duration} and {@code validity-margin} shares: 1 ms to 1 h. */
        private static Duration period(String key, Duration value) {
            return ConfigChecks.durationWithin(key, value, Duration.ofMillis(1), Duration.ofHours(1));
        }

        /** {@code duration}: 10 ms to 1 h. Default 3 s. */
        public Builder duration(Duration value) {
            duration = ConfigChecks.durationWithin("duration", value, Duration.ofMillis(10), Duration.ofHours(1));
            return this;
        }

        /** {@code renew-interval}: 1 ms to 1 h, below {@code renew-deadline}. Default {@code duration / 3}. */
        public Builder renewInterval(Duration value) {
            renewInterval = period("renew-interval", value);
            return this;
        }

        /**
         * {@code renew-deadline}: 1 ms to 1 h, above {@code renew-interval} and below the validity {@code
         * duration × (1 − max-clock-drift) − validity-margin}. Default {@code duration × 2/3}.
         */
        public Builder renewDeadline(Duration value) {
            renewDeadline = period("renew-deadline", value);
            return this;
        }

        /** {@code retry}: contenders' poll period, 1 ms to 1 h, jittered ±20%. Default {@code duration / 6}. */
        public Builder retry(Duration value) {
            retry = period("retry", value);
            return this;
        }

        /** {@code request-timeout}: 1 ms up to {@code duration}. Default {@code duration / 3}. */
        public Builder requestTimeout(Duration value) {
            requestTimeout = period("request-timeout", value);
            return this;
        }

        /** {@code max-clock-drift}: 0 to 0.1. Default 0.01. */
        public Builder maxClockDrift(double value) {
            maxClockDrift = ConfigChecks.maxClockDrift(value);
            return this;
        }

        /** {@code validity-margin}: 0 to 1 h. Default {@code duration / 30} (100 ms at the default duration). */
        public Builder validityMargin(Duration value) {
            validityMargin = ConfigChecks.durationWithin("validity-margin", value, Duration.ZERO, Duration.ofHours(1));
            return this;
        }

        /**
         * {@code holder-suffix}: overrides the JVM-wide random suffix of the holder ids; 1–32 letters or digits.
         * Only for tests and tools: two processes with one suffix and one node id would share a lease.
         */
        public Builder holderSuffix(String value) {
            Objects.requireNonNull(value, "holder-suffix");
            if (!SUFFIX.matcher(value).matches()) {
                throw new IllegalArgumentException(
                        "holder-suffix = '" + value + "' is invalid: use 1-32 letters or digits");
            }
            holderSuffix = value;
            return this;
        }

        /** Checks what is required and the relations between values. */
        public LeaseConfig build() {
            if (store == null) {
                throw new IllegalArgumentException("store is missing: a LeaseStore is required");
            }
            Duration interval = renewInterval != null ? renewInterval : duration.dividedBy(3);
            Duration deadline = renewDeadline != null
                    ? renewDeadline
                    : duration.multipliedBy(2).dividedBy(3);
            Duration retryPeriod = retry != null ? retry : duration.dividedBy(6);
            Duration timeout = requestTimeout != null ? requestTimeout : duration.dividedBy(3);
            Duration margin = validityMargin != null ? validityMargin : duration.dividedBy(30);
            long validity = validityNanos(duration.toNanos(), maxClockDrift, margin.toNanos());
            if (validity <= 0) {
                throw new IllegalArgumentException("validity-margin = " + margin.toMillis() + "ms is too large: the"
                        + " validity duration × (1 − max-clock-drift) − validity-margin must be positive (duration "
                        + duration.toMillis() + "ms, max-clock-drift " + maxClockDrift + ")");
            }
            if (interval.compareTo(deadline) >= 0) {
                throw new IllegalArgumentException("renew-interval = " + interval.toMillis() + "ms is invalid: it"
                        + " must be below renew-deadline (" + deadline.toMillis() + "ms)");
            }
            if (deadline.toNanos() >= validity) {
                throw new IllegalArgumentException("renew-deadline = " + deadline.toMillis() + "ms is invalid: it"
                        + " must be below duration × (1 − max-clock-drift) − validity-margin = "
                        + String.format("%.1f", validity / 1e6) + "ms, so that the holder steps down before its"
                        + " validity ends");
            }
            if (timeout.compareTo(duration) > 0) {
                throw new IllegalArgumentException("request-timeout = " + timeout.toMillis() + "ms is invalid: it"
                        + " must not exceed duration (" + duration.toMillis() + "ms)");
            }
            return new LeaseConfig(this, interval, deadline, retryPeriod, timeout, margin);
        }
    }
}
