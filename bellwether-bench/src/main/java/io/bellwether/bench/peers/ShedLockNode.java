package io.bellwether.bench.peers;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A node that uses ShedLock as a leader elector, the way applications do: leader = holds the lock.
 *
 * <p>ShedLock's {@link JdbcTemplateLockProvider} runs on a {@link JdbcTemplate} over the pool, with the database's
 * clock ({@code usingDbTime()}, which ShedLock's documentation recommends) and {@code locked_by} = the node id, on
 * the table {@code TABLE_PREFIX_shedlock} of ShedLock's documented schema. One scheduler thread, as a
 * {@code @Scheduled} job would:
 *
 * <ul>
 *   <li>a node without the lock tries {@code lock(new LockConfiguration(now, "bw-peers", lockAtMostFor = LEASE,
 *       lockAtLeastFor = 0))} every <b>LEASE / 2</b>. ShedLock has no poll period of its own: the lock is tried
 *       whenever the scheduled job fires, and its README pairs a job's period with a {@code lockAtMostFor} just
 *       under it (a job every 15 minutes, {@code lockAtMostFor} 14 minutes). Half of that is the period at which ShedLock's own {@code KeepAliveLockProvider}
 *       touches the lock, so holder and contenders each issue about one statement per LEASE / 2;
 *   <li>the holder keeps the lock by {@link SimpleLock#extend extending} it by LEASE every LEASE / 2, exactly as
 *       {@code KeepAliveLockProvider} does (which itself refuses a {@code lockAtMostFor} under 30 s, so cannot be
 *       used at the leases measured here). It leads from a successful {@code lock} until an extension fails or
 *       LEASE has passed since the last successful one was sent, whichever comes first.
 * </ul>
 *
 * <p>A killed holder's lock is taken once its {@code lock_until} has passed, at a contender's next try: up to
 * LEASE after the last extension, plus up to LEASE / 2. SIGTERM unlocks (with {@code lockAtLeastFor} 0 the lock
 * is free at once) and contenders take it at their next try.
 *
 * <p>Usage: {@code ShedLockNode ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}; see {@link LeaseNodes} for the arguments
 * and the lines it prints.
 */
public final class ShedLockNode {
    /** The lock's name. */
    static final String LOCK_NAME = "bw-peers";

    private final LockProvider provider;
    private final Duration lease;
    private final Duration period;
    private final LeaseNodes.Events events;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "shedlock-leader");
        t.setDaemon(true);
        return t;
    });

    // Confined to the scheduler thread.
    private SimpleLock lock;
    private long validUntilNanos;
    private boolean stopped;

    private ShedLockNode(LockProvider provider, Duration lease, LeaseNodes.Events events) {
        this.provider = provider;
        this.lease = lease;
        this.period = lease.dividedBy(2);
        this.events = events;
    }

    /**
     * Runs a node until SIGTERM.
     *
     * @param args {@code ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}
     */
    public static void main(String[] args) {
        LeaseNodes.run(ShedLockNode.class, args, (a, pool, counted, events) -> {
            String table = a.tablePrefix() + "_shedlock";
            LeaseNodes.createTable(pool, createTableStatement(table));
            LockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(counted))
                    .withTableName(table)
                    .withLockedByValue(a.id())
                    .usingDbTime()
                    .build());
            ShedLockNode node = new ShedLockNode(provider, a.lease(), events);
            node.scheduler.execute(node::tick);
            return node::stop;
        });
    }

    /** ShedLock's documented PostgreSQL table, named {@code table}. */
    static String createTableStatement(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
    }

    /** One run of the job: try the lock, or extend the one held; then schedule the next run. */
    private void tick() {
        if (stopped) {
            return;
        }
        long sent = System.nanoTime();
        if (lock == null) {
            Optional<SimpleLock> taken = Optional.empty();
            try {
                taken = provider.lock(new LockConfiguration(Instant.now(), LOCK_NAME, lease, Duration.ZERO));
            } catch (RuntimeException e) {
                System.err.println("ShedLockNode: lock failed: " + e);
            }
            if (taken.isPresent()) {
                lock = taken.get();
                validUntilNanos = sent + lease.toNanos();
                events.leader();
            }
        } else if (sent - validUntilNanos >= 0) {
            lost("the lock ran out before it could be extended");
        } else {
            Optional<SimpleLock> extended = Optional.empty();
            try {
                extended = lock.extend(lease, Duration.ZERO);
            } catch (RuntimeException e) {
                System.err.println("ShedLockNode: extend failed: " + e);
            }
            if (extended.isPresent()) {
                lock = extended.get();
                validUntilNanos = sent + lease.toNanos();
            } else {
                lost("extending the lock failed");
            }
        }
        scheduler.schedule(this::tick, period.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void lost(String why) {
        System.err.println("ShedLockNode: leadership lost: " + why);
        lock = null;
        events.follower();
    }

    /** Unlocks the lock if held (on the scheduler thread, after any run in progress) and stops the job. */
    private void stop() {
        try {
            scheduler
                    .submit(() -> {
                        stopped = true;
                        if (lock != null) {
                            SimpleLock held = lock;
                            lock = null;
                            events.follower();
                            held.unlock();
                        }
                    })
                    .get(lease.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("ShedLockNode: unlocking failed: " + e);
        } finally {
            scheduler.shutdownNow();
        }
    }
}
