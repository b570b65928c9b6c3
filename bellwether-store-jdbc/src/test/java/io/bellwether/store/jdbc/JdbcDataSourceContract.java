package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStoreException.Problem;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link JdbcLeaseStore} on the application's own {@code DataSource} (a HikariCP pool the test owns, as an
 * application would): the store works through it, learns the database from it, commits its writes whatever the
 * pool's auto-commit, and leaves it open and usable when it closes. Each test has its own table.
 */
abstract class JdbcDataSourceContract {
    static final long CEILING_SECONDS = 30;
    static final String GROUP = "orders";

    String table;
    HikariDataSource application;

    /** Makes sure the database is up (skips or fails via {@code Services}). */
    abstract void requireService();

    /** A JDBC URL for the database, with working credentials. */
    abstract String url();

    /** The family {@link JdbcLeaseStore#describe()} names once it knows the database. */
    abstract String family();

    abstract boolean pushes();

    @BeforeEach
    void setUp() {
        requireService();
        table = "bw_ds_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (application != null) {
            application.close();
        }
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    HikariDataSource applicationPool(boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setMaximumPoolSize(4);
        config.setAutoCommit(autoCommit);
        config.setPoolName("application");
        application = new HikariDataSource(config);
        return application;
    }

    JdbcLeaseStore store(HikariDataSource dataSource) {
        return JdbcLeaseStore.builder()
                .dataSource(dataSource)
                .table(table)
                .createSchema(true)
                .requestTimeout(Duration.ofSeconds(10))
                .build();
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    /** The expiry of {@code group}'s row as a connection of its own (not the application's pool) sees it. */
    long expirySeenElsewhere(String group) throws Exception {
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT expires_at FROM " + table + " WHERE grp = '" + group + "'")) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    @Test
    void theStoreWorksThroughTheApplicationsDataSourceAndLearnsItsDatabaseFromIt() throws Exception {
        try (JdbcLeaseStore store = store(applicationPool(true))) {
            assertThat(store.canPush()).isFalse(); // not known before the first connection

            LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));
            LeaseRecord renewed = get(store.acquireOrRenew(GROUP, "a", held.token(), Duration.ofSeconds(10)));

            assertThat(held.heldBy("a", 1)).isTrue();
            assertThat(renewed.heldBy("a", 1)).isTrue();
            assertThat(get(store.release(GROUP, "a", 1))).isTrue();
            assertThat(get(store.read(GROUP)))
                    .hasValueSatisfying(r -> assertThat(r.expired()).isTrue());
            assertThat(store.describe()).startsWith(family() + " DataSource HikariDataSource table " + table);
            assertThat(store.canPush()).isEqualTo(pushes());
            assertThat(store.createTableStatement()).contains(table);
        }
    }

    @Test
    void closingTheStoreLeavesTheApplicationsDataSourceOpenAndUsable() throws Exception {
        HikariDataSource dataSource = applicationPool(true);
        JdbcLeaseStore store = store(dataSource);
        get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        store.close();

        assertThat(dataSource.isClosed()).isFalse();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT token FROM " + table + " WHERE grp = '" + GROUP + "'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(1);
        }
        await().atMost(Duration.ofSeconds(CEILING_SECONDS))
                .untilAsserted(() -> assertThat(dataSource.getHikariPoolMXBean().getActiveConnections())
                        .isZero());
        ExecutionException closed =
                org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> get(store.read(GROUP)));
        assertThat(((JdbcLeaseStoreException) closed.getCause()).kind()).isEqualTo(Problem.CLOSED);
    }

    @Test
    void writesAreCommittedAndTheConnectionGoesBackAsLentWhenThePoolLendsWithoutAutoCommit() throws Exception {
        HikariDataSource dataSource = applicationPool(false);
        try (JdbcLeaseStore store = store(dataSource)) {
            LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30)));
            assertThat(expirySeenElsewhere(GROUP)).isEqualTo(held.expiresAtMillis());

            assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();
            assertThat(expirySeenElsewhere(GROUP)).isLessThan(held.expiresAtMillis());
        }
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.getAutoCommit()).isFalse();
        }
    }

    @Test
    void aReleaseWakesAWatcherThroughTheDataSourceWhereTheDatabasePushes() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(pushes(), "this database does not push releases");
        HikariDataSource dataSource = applicationPool(true);
        JdbcLeaseStore store = store(dataSource);
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30)));
        CompletableFuture<Void> inForce = new CompletableFuture<>();
        CompletableFuture<Void> released = new CompletableFuture<>();
        AutoCloseable watch = store.watchReleases(GROUP, () -> {
            if (!inForce.complete(null)) {
                released.complete(null);
            }
        });
        inForce.get(CEILING_SECONDS, TimeUnit.SECONDS); // the first wake: LISTEN is in force

        assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();

        released.get(CEILING_SECONDS, TimeUnit.SECONDS);
        watch.close();
        store.close();
        // The listening connection went back to the application's pool, which stays open, and listens no more.
        await().atMost(Duration.ofSeconds(CEILING_SECONDS))
                .untilAsserted(() -> assertThat(dataSource.getHikariPoolMXBean().getActiveConnections())
                        .isZero());
        assertThat(dataSource.isClosed()).isFalse();
        List<Connection> all = new ArrayList<>();
        try {
            for (int i = 0; i < dataSource.getMaximumPoolSize(); i++) {
                all.add(dataSource.getConnection());
            }
            for (Connection c : all) {
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
                    rs.next();
                    assertThat(rs.getLong(1))
                            .as("channels a pooled connection listens on")
                            .isZero();
                }
            }
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
    }
}
