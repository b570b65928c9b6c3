package io.bellwether.bench.peers;

import java.time.Duration;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A node of Spring Integration's leader election on a JDBC lock: a {@link LockRegistryLeaderInitiator} on a {@link
 * JdbcLockRegistry} over a {@link DefaultLockRepository} on the pool, built by hand as a Spring context would (a
 * {@link DataSourceTransactionManager} on the same pool, {@code afterPropertiesSet}, {@code
 * afterSingletonsInstantiated}, {@code start}). The repository's time to live is LEASE_MILLIS and its table
 * {@code TABLE_PREFIX_lock} (prefix {@code TABLE_PREFIX_}, the shape of Spring Integration's {@code
 * schema-postgresql.sql}); the initiator runs at its defaults: busy-wait 50 ms, heartbeat 500 ms, and the
 * registry's default 100 ms between tries. Leader from {@link Candidate#onGranted} to {@link
 * Candidate#onRevoked}. SIGTERM stops the initiator, which unlocks the lock.
 *
 * <p>Usage: {@code SpringIntegrationNode ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}; see {@link LeaseNodes} for the
 * arguments and the lines it prints.
 */
public final class SpringIntegrationNode {
    /** The candidate's role, which names the lock. */
    static final String ROLE = "bw-peers";

    private SpringIntegrationNode() {}

    /**
     * Runs a node until SIGTERM.
     *
     * @param args {@code ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}
     */
    public static void main(String[] args) {
        LeaseNodes.run(SpringIntegrationNode.class, args, (a, pool, counted, events) -> {
            String prefix = a.tablePrefix() + "_";
            LeaseNodes.createTable(pool, createTableStatement(prefix));
            DefaultLockRepository repository = new DefaultLockRepository(counted);
            repository.setPrefix(prefix);
            repository.setTimeToLive(Math.toIntExact(a.lease().toMillis()));
            repository.setTransactionManager(new DataSourceTransactionManager(counted));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            repository.start();
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(new JdbcLockRegistry(repository), new Candidate() {
                        @Override
                        public String getRole() {
                            return ROLE;
                        }

                        @Override
                        public String getId() {
                            return a.id();
                        }

                        @Override
                        public void onGranted(Context context) {
                            events.leader();
                        }

                        @Override
                        public void onRevoked(Context context) {
                            events.follower();
                        }
                    });
            initiator.start();
            Duration stopWait = a.lease().plusSeconds(1);
            return () -> {
                initiator.stop();
                // stop() only interrupts the initiator's thread, which then unlocks and calls onRevoked.
                long deadline = System.nanoTime() + stopWait.toNanos();
                while (events.leading() && System.nanoTime() - deadline < 0) {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                repository.stop();
            };
        });
    }

    /** Spring Integration's {@code INT_LOCK} table for PostgreSQL, with {@code prefix} for {@code INT_}. */
    static String createTableStatement(String prefix) {
        return "CREATE TABLE IF NOT EXISTS " + prefix
                + "LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
                + " CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, CONSTRAINT " + prefix
                + "LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))";
    }
}
