package io.bellwether.lease;

import io.bellwether.elector.AbstractAlgorithm;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Priorities;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The lease algorithm ({@code algorithm: lease}) as the registry sees it: the timing keys of its {@code lease:}
 * section, built through {@link LeaseConfig.Builder} with the store and the holder suffix from the {@link
 * Environment} (the lease is named after the election's group). How to reach the store (its address, schema, credentials) is the
 * loader's own business: it builds the store and hands it over in the environment.
 */
public final class LeaseAlgorithm extends AbstractAlgorithm<LeaseConfig.Builder, LeaseConfig> {
    private static final Duration MS = Duration.ofMillis(1);
    private static final Duration HOUR = Duration.ofHours(1);

    private static final List<Setting<LeaseConfig.Builder>> SETTINGS = List.of(
            Setting.duration(
                    "duration",
                    Duration.ofMillis(10),
                    HOUR,
                    "How long the store keeps a lease that is not renewed; the other timings default in proportion"
                            + " to it. Default 3s.",
                    LeaseConfig.Builder::duration),
            Setting.duration(
                    "renew-interval",
                    MS,
                    HOUR,
                    "How often the holder renews; below renew-deadline. Default duration / 3.",
                    LeaseConfig.Builder::renewInterval),
            Setting.duration(
                    "renew-deadline",
                    MS,
                    HOUR,
                    "How long after the send time of its last successful renewal the holder steps down if no"
                            + " renewal has succeeded since. Default duration × 2/3.",
                    LeaseConfig.Builder::renewDeadline),
            Setting.duration(
                    "retry",
                    MS,
                    HOUR,
                    "How often contenders poll the store, jittered ±20%. Default duration / 6.",
                    LeaseConfig.Builder::retry),
            Setting.duration(
                    "request-timeout",
                    MS,
                    HOUR,
                    "How long any store request may take; at most duration. Default duration / 3.",
                    LeaseConfig.Builder::requestTimeout),
            Setting.decimal(
                    "max-clock-drift",
                    "a number from 0 to 0.1",
                    "The largest rate error assumed between the holder's clock and the store's, as a fraction."
                            + " Default 0.01.",
                    LeaseConfig.Builder::maxClockDrift),
            Setting.duration(
                    "validity-margin",
                    Duration.ZERO,
                    HOUR,
                    "Subtracted from a holder's validity to absorb drift beyond the bound and scheduling delays."
                            + " Default duration / 30.",
                    LeaseConfig.Builder::validityMargin),
            Setting.integer(
                    Priorities.KEY,
                    Priorities.ALLOWED,
                    "This member's priority as holder, higher preferred: a contender of higher priority claims the"
                            + " lease in the store and the holder releases it to that contender at its next renewal"
                            + " (equal priorities never move the lease). Default 0.",
                    LeaseConfig.Builder::priority));

    private static final List<Variant> VARIANTS =
            List.of(Variant.defaults("lease", Set.of(Trait.EXCLUSIVE, Trait.USES_STORE)));

    /** The one instance {@link io.bellwether.elector.Algorithms} lists (declared after the tables its constructor reads). */
    public static final LeaseAlgorithm INSTANCE = new LeaseAlgorithm();

    private LeaseAlgorithm() {
        super(
                "lease",
                "One lease per group in a shared store (SQL or Redis), taken and renewed on the store's clock: never"
                        + " two valid leaders, and no traffic between members.",
                SETTINGS,
                VARIANTS,
                LeaseAlgorithm::builder,
                LeaseConfig.Builder::build);
    }

    @Override
    public void check(String key, Object value) {
        Setting.applyAll(SETTINGS, LeaseConfig.builder(), Map.of(key, value));
    }

    /**
     * A builder with the store and the holder suffix from {@code environment}.
     *
     * @throws IllegalArgumentException when {@code environment} has no store
     */
    private static LeaseConfig.Builder builder(Environment environment) {
        if (environment.store() == null) {
            throw new IllegalArgumentException(
                    "lease needs a store: the environment of group '" + environment.group() + "' has none");
        }
        LeaseConfig.Builder builder = LeaseConfig.builder().store(environment.store());
        if (environment.holderSuffix() != null) {
            builder.holderSuffix(environment.holderSuffix());
        }
        return builder;
    }
}
