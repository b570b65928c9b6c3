package io.bellwether.server.node;

import io.bellwether.elector.Counters;
import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseStore} that passes every call on unchanged and records how each one ended, so that the node can
 * report whether its store answers ({@code /status}'s {@code store} section) and log store trouble once instead
 * of at every poll.
 *
 * <p>Logging: the first failure after success (or at start) is logged once, at WARN for transient problems
 * (unreachable, timeout, other errors: the elector keeps polling and nothing needs doing if the store comes
 * back) and at ERROR for problems someone must fix ({@linkplain LeaseStoreException.Problem#CREDENTIALS
 * credentials}, {@linkplain LeaseStoreException.Problem#SCHEMA schema}). While those persist they are logged
 * again at ERROR at most once per {@code errorLogInterval}, since the elector keeps retrying them too (a
 * password or table fixed on the store side is picked up without a restart); transient failures are repeated
 * only at DEBUG. The first success after failures is logged at INFO. Failures because the store was closed (the
 * node stopping) are not recorded.
 *
 * <p>Thread-safe.
 */
public final class ObservedLeaseStore extends ForwardingLeaseStore {
    private static final Logger log = LoggerFactory.getLogger(ObservedLeaseStore.class);

    /** The default bound on how often a persisting credentials or schema problem is logged. */
    public static final Duration DEFAULT_ERROR_LOG_INTERVAL = Duration.ofSeconds(30);

    /** Whether the store answers. */
    public enum State {
        /** No call has ended yet. */
        UNKNOWN,
        /** The last call that ended succeeded. */
        REACHABLE,
        /** The last call that ended failed (see the problem: the store may be up but refuse this node). */
        UNREACHABLE
    }

    /**
     * What is known of the store now.
     *
     * @param state whether the last call that ended succeeded
     * @param sinceEpochMillis wall-clock time the state began (the start, for {@link State#UNKNOWN})
     * @param problem the kind of the current failure, while unreachable
     * @param lastError the message of the last failure, even after the store answered again
     * @param lastErrorAtEpochMillis when that failure ended its call, wall clock
     */
    public record Health(
            State state,
            long sinceEpochMillis,
            Optional<LeaseStoreException.Problem> problem,
            Optional<String> lastError,
            Optional<Long> lastErrorAtEpochMillis) {}

    private final String node;
    private final long errorLogIntervalNanos;

    private final java.util.concurrent.atomic.AtomicLong outOfRangeTokens =
            new java.util.concurrent.atomic.AtomicLong();

    private final List<ReleaseWaiter> releaseWaiters = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Waits for {@code remaining} more releases to end. */
    private record ReleaseWaiter(java.util.concurrent.atomic.AtomicInteger remaining, CompletableFuture<Void> done) {
        /** Counts one release that ended; true when it was the last one waited for. */
        boolean ended() {
            if (remaining.decrementAndGet() == 0) {
                done.complete(null);
                return true;
            }
            return false;
        }
    }

    // Guarded by this.
    private Health health;
    private long unreachableSinceNanos;
    private long lastErrorLogNanos;

    /**
     * @param node this node's id, for log lines
     * @param errorLogInterval at most one ERROR line per this interval while a credentials or schema problem lasts
     */
    public ObservedLeaseStore(LeaseStore delegate, String node, Duration errorLogInterval) {
        super(delegate);
        this.node = node;
        this.errorLogIntervalNanos = errorLogInterval.toNanos();
        this.health = new Health(
                State.UNKNOWN, System.currentTimeMillis(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The store's health now. */
    public synchronized Health health() {
        return health;
    }

    /** The wrapped store. */
    public LeaseStore delegate() {
        return delegate;
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return observe(() -> delegate.acquireOrRenew(group, holder, token, duration), this::tokenProblem);
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        return observe(() -> delegate.acquireOrRenew(group, holder, token, duration, priority), this::tokenProblem);
    }

    /**
     * How many answers carried a token out of {@link Counters}' range. The lease elector refuses such an answer as
     * a store error; this store reports it the same way (the store is {@link State#UNREACHABLE} with the problem
     * named) and counts it for the node's metrics.
     */
    public long outOfRangeTokens() {
        return outOfRangeTokens.get();
    }

    private Optional<String> tokenProblem(LeaseRecord record) {
        if (record == null || Counters.inRange(record.token())) {
            return Optional.empty();
        }
        outOfRangeTokens.incrementAndGet();
        return Optional.of("answered with token " + record.token() + " (holder " + record.holder() + "), out of range: "
                + Counters.allowed());
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        // Each waiter counts the releases that start after it; one whose count is all started is waited for no more.
        List<ReleaseWaiter> waiting = List.copyOf(releaseWaiters);
        CompletionStage<Boolean> stage;
        try {
            stage = observe(() -> delegate.release(group, holder, token));
        } catch (RuntimeException e) {
            releaseEnded(waiting);
            throw e;
        }
        stage.whenComplete((released, error) -> releaseEnded(waiting));
        return stage;
    }

    /** One release call has ended, however: counts it for the {@code waiting}, dropping those it was the last of. */
    private void releaseEnded(List<ReleaseWaiter> waiting) {
        for (ReleaseWaiter w : waiting) {
            if (w.ended()) {
                releaseWaiters.remove(w);
            }
        }
    }

    /**
     * Completes when the next release call made after this one has ended, however it ended: a stopping holder's
     * daemon waits for it before closing the store, so that its successor need not wait for the lease to expire.
     */
    public CompletableFuture<Void> nextReleaseEnded() {
        return releasesEnded(1);
    }

    /**
     * Completes when {@code count} release calls made after this one have ended, however they ended (at once for
     * 0): a stopping daemon of several groups waits for the releases of the leases it holds.
     */
    public CompletableFuture<Void> releasesEnded(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be at least 0, was " + count);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (count == 0) {
            f.complete(null);
            return f;
        }
        releaseWaiters.add(new ReleaseWaiter(new java.util.concurrent.atomic.AtomicInteger(count), f));
        return f;
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        return observe(() -> delegate.read(group), current -> current.flatMap(this::tokenProblem));
    }

    @Override
    public String toString() {
        return "ObservedLeaseStore[" + delegate + "]";
    }

    private <T> CompletionStage<T> observe(java.util.function.Supplier<CompletionStage<T>> call) {
        return observe(call, result -> Optional.empty());
    }

    /** As {@link #observe(java.util.function.Supplier)}, with an answer that {@code problem} finds wrong a failure. */
    private <T> CompletionStage<T> observe(
            java.util.function.Supplier<CompletionStage<T>> call,
            java.util.function.Function<T, Optional<String>> problem) {
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            failed(e);
            throw e;
        }
        stage.whenComplete((result, error) -> {
            Optional<String> wrong = error == null ? problem.apply(result) : Optional.empty();
            if (error != null) {
                failed(error);
            } else if (wrong.isPresent()) {
                failed(new LeaseStoreException(describe(), LeaseStoreException.Problem.FAILED, wrong.get(), null));
            } else {
                succeeded();
            }
        });
        return stage;
    }

    private void succeeded() {
        Health before;
        long downForMillis;
        synchronized (this) {
            before = health;
            if (before.state() == State.REACHABLE) {
                return;
            }
            downForMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unreachableSinceNanos);
            health = new Health(
                    State.REACHABLE,
                    System.currentTimeMillis(),
                    Optional.empty(),
                    before.lastError(),
                    before.lastErrorAtEpochMillis());
        }
        if (before.state() == State.UNREACHABLE) {
            log.info(
                    "node {}: lease store {} answers again (after {} ms of failures)", node, describe(), downForMillis);
        }
    }

    private void failed(Throwable error) {
        Throwable e = unwrap(error);
        LeaseStoreException.Problem kind;
        String message;
        if (e instanceof LeaseStoreException s) {
            kind = s.kind();
            message = s.getMessage();
        } else {
            kind = LeaseStoreException.Problem.FAILED;
            message = "lease store " + describe() + ": " + e;
        }
        if (kind == LeaseStoreException.Problem.CLOSED) {
            return; // the node is stopping
        }
        boolean needsAction =
                kind == LeaseStoreException.Problem.CREDENTIALS || kind == LeaseStoreException.Problem.SCHEMA;
        boolean logNow;
        long now = System.nanoTime();
        synchronized (this) {
            Health before = health;
            boolean newTrouble = before.state() != State.UNREACHABLE
                    || before.problem().map(p -> p != kind).orElse(true);
            if (before.state() != State.UNREACHABLE) {
                unreachableSinceNanos = now;
            }
            logNow = newTrouble || (needsAction && now - lastErrorLogNanos >= errorLogIntervalNanos);
            if (logNow) {
                lastErrorLogNanos = now;
            }
            long wall = System.currentTimeMillis();
            health = new Health(
                    State.UNREACHABLE,
                    before.state() == State.UNREACHABLE ? before.sinceEpochMillis() : wall,
                    Optional.of(kind),
                    Optional.of(message),
                    Optional.of(wall));
        }
        if (!logNow) {
            log.debug("node {}: {}", node, message);
        } else if (needsAction) {
            log.error(
                    "node {}: {} — this node cannot lead until it is fixed; it keeps retrying and will say so again"
                            + " at most every {} s",
                    node,
                    message,
                    TimeUnit.NANOSECONDS.toSeconds(errorLogIntervalNanos));
        } else {
            log.warn("node {}: {} — retrying; this node will not lead until the store answers", node, message);
        }
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
