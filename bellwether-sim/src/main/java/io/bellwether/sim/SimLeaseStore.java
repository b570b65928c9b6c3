package io.bellwether.sim;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The simulator's lease store: one lease per name, on the store's own clock, which is the simulation's true
 * time in milliseconds (so every node's drift is relative to it). Operations complete at once, at the instant
 * the {@link Engine} applies them; latency, outages and lost replies are the engine's business. It remembers,
 * per token, the latest expiry it ever gave that token: the bound no holder's validity may exceed.
 */
final class SimLeaseStore implements LeaseStore {
    /**
     * Stands in for the store in {@link SimulationConfig#forAlgorithm}'s lease spec: each run replaces it with
     * its own simulated store, so it is never called. It claims to push so that electors keep a release watch
     * outstanding; whether a run's store actually pushes is drawn per run.
     */
    static final LeaseStore PLACEHOLDER = new LeaseStore() {
        @Override
        public String describe() {
            return "simulated store (one per run)";
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            throw new IllegalStateException("the simulator replaces this store in each run");
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            throw new IllegalStateException("the simulator replaces this store in each run");
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            throw new IllegalStateException("the simulator replaces this store in each run");
        }

        @Override
        public boolean canPush() {
            return true;
        }

        @Override
        public void close() {}
    };

    /** A lease, its holder's priority and the best waiting contender's claim (priority, until). */
    private record Row(
            String holder, long token, long expiresAtMillis, int holderPriority, int claimPriority, long claimUntil) {
        LeaseRecord record(long now) {
            return new LeaseRecord(holder, token, expiresAtMillis, now, claimPriority, claimUntil);
        }
    }

    private final LongSupplier trueNanos;
    private final Map<String, Row> rows = new HashMap<>();
    private final Map<Long, Long> maxExpiryMillis = new HashMap<>();
    /** Mutation for tests: a store that reuses the token on takeover instead of incrementing it. */
    boolean keepTokenOnTakeover;
    /** Mutation for tests: a store that drops contenders' claims, so holders never see one. */
    boolean dropClaims;
    /** Mutation for tests: a store that gives a free lease to anyone, a live claim of higher priority or not. */
    boolean ignoreClaimsOnFreeLease;

    long acquisitions;
    long renewals;
    long releases;
    long claims;

    SimLeaseStore(LongSupplier trueNanos) {
        this.trueNanos = trueNanos;
    }

    private long nowMillis() {
        return trueNanos.getAsLong() / 1_000_000L;
    }

    @Override
    public String describe() {
        return "simulated store";
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return acquireOrRenew(group, holder, token, duration, 0);
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        long now = nowMillis();
        Row row = rows.get(group);
        // A free lease goes to nobody below a live claim, so that the claimant, not a lower contender, takes it.
        boolean claimedAbove =
                row != null && !ignoreClaimsOnFreeLease && row.claimUntil() > now && row.claimPriority() > priority;
        if (row == null || (row.expiresAtMillis() <= now && !claimedAbove)) {
            long next = row == null ? 1 : keepTokenOnTakeover ? row.token() : row.token() + 1;
            row = row == null
                    ? new Row(holder, next, now + duration.toMillis(), priority, 0, 0)
                    : new Row(holder, next, now + duration.toMillis(), priority, row.claimPriority(), row.claimUntil());
            rows.put(group, row);
            acquisitions++;
        } else if (row.expiresAtMillis() > now && row.holder().equals(holder) && row.token() == token) {
            row = new Row(holder, token, now + duration.toMillis(), priority, row.claimPriority(), row.claimUntil());
            rows.put(group, row);
            renewals++;
        } else if (priority > row.holderPriority()
                && !dropClaims
                && !(row.claimUntil() > now && row.claimPriority() > priority)) {
            row = new Row(
                    row.holder(),
                    row.token(),
                    row.expiresAtMillis(),
                    row.holderPriority(),
                    priority,
                    now + duration.toMillis());
            rows.put(group, row);
            claims++;
        }
        maxExpiryMillis.merge(row.token(), row.expiresAtMillis(), Math::max);
        return CompletableFuture.completedFuture(row.record(now));
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        long now = nowMillis();
        Row row = rows.get(group);
        boolean released =
                row != null && row.expiresAtMillis() > now && row.holder().equals(holder) && row.token() == token;
        if (released) {
            rows.put(group, new Row(holder, token, now, row.holderPriority(), row.claimPriority(), row.claimUntil()));
            releases++;
        }
        return CompletableFuture.completedFuture(released);
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        long now = nowMillis();
        return CompletableFuture.completedFuture(
                Optional.ofNullable(rows.get(group)).map(r -> r.record(now)));
    }

    /** The latest expiry, in true nanoseconds, ever given to {@code token}; {@code Long.MIN_VALUE} if none. */
    long maxExpiryNanos(long token) {
        Long ms = maxExpiryMillis.get(token);
        return ms == null ? Long.MIN_VALUE : ms * 1_000_000L;
    }

    @Override
    public void close() {}
}
