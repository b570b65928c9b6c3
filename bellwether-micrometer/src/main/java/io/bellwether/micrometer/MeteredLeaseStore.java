package io.bellwether.micrometer;

import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * A {@link LeaseStore} that passes every call on unchanged and meters it:
 *
 * <ul>
 *   <li>{@value #ROUND_TRIP} ({@code bellwether_store_round_trip_seconds{operation}}, a timer with a histogram):
 *       the time from a call to its answer or failure, by operation ({@code acquire-or-renew}, {@code release},
 *       {@code read});
 *   <li>{@value #ERRORS} ({@code bellwether_store_errors_total{operation,problem}}): failed calls, by operation and
 *       {@link LeaseStoreException.Problem} ({@code FAILED} for an exception that is not a {@link
 *       LeaseStoreException}). Calls failed because the store was closed are not counted.
 * </ul>
 *
 * Hand the wrapper to the lease configuration in place of the store:
 *
 * <pre>{@code
 * LeaseStore store = new MeteredLeaseStore(JdbcLeaseStore.builder()...build(), registry, Tags.of("group", "orders"));
 * Election election = Election.builder().algorithm(LeaseConfig.defaults().store(store))...build();
 * }</pre>
 *
 * Thread-safe.
 */
public final class MeteredLeaseStore extends ForwardingLeaseStore {
    /** Timer: a store call's round trip, tag {@code operation}. */
    public static final String ROUND_TRIP = "bellwether.store.round.trip";
    /** Counter: failed store calls, tags {@code operation} and {@code problem}. */
    public static final String ERRORS = "bellwether.store.errors";

    private static final String[] OPERATIONS = {"acquire-or-renew", "release", "read"};

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, Timer> roundTrips = new ConcurrentHashMap<>();
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();

    /** Meters {@code delegate}'s calls on {@code registry}, each meter tagged with {@code tags}. */
    public MeteredLeaseStore(LeaseStore delegate, MeterRegistry registry, Iterable<Tag> tags) {
        super(delegate);
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (String operation : OPERATIONS) {
            roundTrips.put(
                    operation,
                    Timer.builder(ROUND_TRIP)
                            .description("Lease store calls' time from call to answer or failure, by operation")
                            .tags(this.tags)
                            .tag("operation", operation)
                            .publishPercentileHistogram()
                            .minimumExpectedValue(Duration.ofMillis(1))
                            .maximumExpectedValue(Duration.ofSeconds(60))
                            .register(registry));
        }
    }

    /** The wrapped store. */
    public LeaseStore delegate() {
        return delegate;
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return metered("acquire-or-renew", () -> delegate.acquireOrRenew(group, holder, token, duration));
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        return metered("acquire-or-renew", () -> delegate.acquireOrRenew(group, holder, token, duration, priority));
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        return metered("release", () -> delegate.release(group, holder, token));
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        return metered("read", () -> delegate.read(group));
    }

    @Override
    public String toString() {
        return "MeteredLeaseStore[" + delegate + "]";
    }

    private <T> CompletionStage<T> metered(String operation, Supplier<CompletionStage<T>> call) {
        Timer timer = roundTrips.get(operation);
        long start = System.nanoTime();
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            ended(operation, timer, start, e);
            throw e;
        }
        stage.whenComplete((result, error) -> ended(operation, timer, start, error));
        return stage;
    }

    private void ended(String operation, Timer timer, long startNanos, Throwable error) {
        timer.record(Duration.ofNanos(System.nanoTime() - startNanos));
        if (error == null) {
            return;
        }
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        LeaseStoreException.Problem problem =
                e instanceof LeaseStoreException s ? s.kind() : LeaseStoreException.Problem.FAILED;
        if (problem == LeaseStoreException.Problem.CLOSED) {
            return;
        }
        errors.computeIfAbsent(operation + "/" + problem, k -> Counter.builder(ERRORS)
                        .description("Failed lease store calls, by operation and problem")
                        .tags(tags)
                        .tags("operation", operation, "problem", problem.name())
                        .register(registry))
                .increment();
    }
}
