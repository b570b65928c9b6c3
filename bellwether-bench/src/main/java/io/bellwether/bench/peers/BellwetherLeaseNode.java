package io.bellwether.bench.peers;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.store.jdbc.JdbcLeaseStore;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node of Bellwether's lease election on the application's {@code DataSource}, as the Spring Boot starter builds
 * it: a {@link JdbcLeaseStore} on the pool (table {@code TABLE_PREFIX_lease}, schema creation on) and an {@link
 * Election} of the lease algorithm with {@code duration} = LEASE_MILLIS and every other timing at its default in
 * proportion (renew every duration / 3, contenders poll every duration / 6 ± 20%, woken at once by PostgreSQL
 * {@code NOTIFY} when the lease is released); the store's request timeout is duration / 3, clamped to 100 ms – 60 s,
 * as the starter sets it. The lease needs no transport between members. SIGTERM closes the election, which releases
 * the lease.
 *
 * <p>Usage: {@code BellwetherLeaseNode ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}; see {@link LeaseNodes} for the
 * arguments and the lines it prints.
 */
public final class BellwetherLeaseNode {
    /** The election group, which names the lease row. */
    static final String GROUP = "bw-peers";

    private BellwetherLeaseNode() {}

    /**
     * Runs a node until SIGTERM.
     *
     * @param args {@code ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}
     */
    public static void main(String[] args) {
        LeaseNodes.run(BellwetherLeaseNode.class, args, (a, pool, counted, events) -> {
            JdbcLeaseStore store = JdbcLeaseStore.builder()
                    .dataSource(counted)
                    .table(a.tablePrefix() + "_lease")
                    .createSchema(true)
                    .requestTimeout(requestTimeout(a.lease()))
                    .build();
            LeaseNodes.createTable(pool, store.createTableStatement());
            Election election = Election.builder()
                    .group(GROUP)
                    .self(NodeId.of(a.id()))
                    .algorithm(LeaseConfig.builder()
                            .store(store)
                            .duration(a.lease())
                            .build())
                    .stateStore(new InMemoryStateStore())
                    .build();
            election.addListener(new ElectionListener() {
                @Override
                public void elected(Leadership leadership) {
                    events.leader();
                }

                @Override
                public void revoked(Leadership leadership, RevocationReason reason) {
                    events.follower();
                }
            });
            election.start();
            Duration closeWait = requestTimeout(a.lease()).plusSeconds(1);
            return () -> {
                election.close();
                try {
                    // The release is the store's last request; let it finish before the store goes.
                    election.closed().toCompletableFuture().get(closeWait.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException | TimeoutException e) {
                    System.err.println("BellwetherLeaseNode " + a.id() + ": election did not stop cleanly: " + e);
                }
                store.close();
            };
        });
    }

    /** Duration / 3 within what the store allows, 100 ms to 60 s. */
    static Duration requestTimeout(Duration lease) {
        Duration third = lease.dividedBy(3);
        Duration min = Duration.ofMillis(100);
        Duration max = Duration.ofSeconds(60);
        return third.compareTo(min) < 0 ? min : third.compareTo(max) > 0 ? max : third;
    }
}
