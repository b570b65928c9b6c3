package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bellwether.StaleTokenException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FencingGuard} against a real database: each test on a guard table and a write table of its own (random
 * names, dropped afterwards). A subclass says how to connect and how to see that a session waits for a row lock.
 */
abstract class FencingGuardContract {
    static final long CEILING_SECONDS = 60;
    static final String RESOURCE = "invoices";

    final List<Connection> connections = new ArrayList<>();
    final ExecutorService threads = Executors.newCachedThreadPool();
    String fenceTable;
    String writeTable;
    FencingGuard guard;

    abstract void requireService();

    abstract String url();

    /** How many sessions wait for a lock in a statement that mentions {@code table}; {@code c} is in auto-commit. */
    abstract int lockWaiters(Connection c, String table) throws SQLException;

    @BeforeEach
    void setUp() throws Exception {
        requireService();
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        fenceTable = "bw_fence_" + suffix;
        writeTable = "bw_fence_writes_" + suffix;
        guard = FencingGuard.onTable(fenceTable);
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            guard.createTable(c);
            s.execute("CREATE TABLE " + writeTable + " (id VARCHAR(100) NOT NULL PRIMARY KEY, token BIGINT NOT NULL)");
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        for (Connection c : connections) {
            c.close();
        }
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + fenceTable);
            s.execute("DROP TABLE IF EXISTS " + writeTable);
        }
    }

    /** A connection of the test's, closed afterwards; auto-commit off, as a write's transaction needs. */
    Connection transaction() throws SQLException {
        Connection c = DriverManager.getConnection(url());
        connections.add(c);
        c.setAutoCommit(false);
        return c;
    }

    Connection autoCommit() throws SQLException {
        Connection c = DriverManager.getConnection(url());
        connections.add(c);
        return c;
    }

    void write(Connection c, String id, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + writeTable + " (id, token) VALUES (?, ?)")) {
            ps.setString(1, id);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
    }

    /** Guarded write of {@code id} with {@code token}, committed. */
    void guardedWrite(String id, long token) throws SQLException {
        Connection c = transaction();
        guard.check(c, RESOURCE, token);
        write(c, id, token);
        c.commit();
    }

    List<String> writes() throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM " + writeTable + " ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    /** The guard row's token for {@code resource}, or -1 if it has none. */
    long highest(String resource) throws SQLException {
        try (Connection c = DriverManager.getConnection(url());
                PreparedStatement ps = c.prepareStatement("SELECT token FROM " + fenceTable + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /**
     * Waits until the database shows a transaction waiting for a lock on the guard table, which must be {@code
     * waiter}'s: fails at once, with its exception, if {@code waiter} ends instead (it was not made to wait).
     */
    void awaitLockWaiter(CompletableFuture<Void> waiter) throws SQLException {
        Connection monitor = autoCommit();
        // Not faster than every 150 ms: InnoDB refreshes the cache behind information_schema.INNODB_TRX only when
        // it has not been read for 100 ms, so a tighter poll reads the same stale snapshot for ever.
        await().atMost(Duration.ofSeconds(CEILING_SECONDS))
                .pollInterval(Duration.ofMillis(150))
                .until(() -> {
                    if (waiter.isDone()) {
                        waiter.join(); // throws its failure
                        throw new AssertionError("the second writer finished without waiting for the first");
                    }
                    return lockWaiters(monitor, fenceTable) > 0;
                });
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    StaleTokenException refusal(CompletableFuture<?> f) {
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> f.get(CEILING_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause()).isInstanceOf(StaleTokenException.class);
        return (StaleTokenException) e.getCause();
    }

    @Test
    void higherTokenPassesAndRaisesTheBar() throws Exception {
        guardedWrite("a5", 5);
        guardedWrite("b7", 7);

        assertThat(highest(RESOURCE)).isEqualTo(7);
        Connection c = transaction();
        assertThatThrownBy(() -> guard.check(c, RESOURCE, 6))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining("'" + RESOURCE + "'")
                .hasMessageContaining("offered 6")
                .hasMessageContaining("accepted 7");
        c.rollback();
        assertThat(writes()).containsExactly("a5", "b7");
    }

    @Test
    void equalTokenPassesForTheSameLeadershipWritingAgain() throws Exception {
        guardedWrite("a5", 5);
        guardedWrite("b5", 5);

        assertThat(writes()).containsExactly("a5", "b5");
        assertThat(highest(RESOURCE)).isEqualTo(5);
    }

    @Test
    void resourcesAreFencedIndependently() throws Exception {
        guardedWrite("a9", 9);
        Connection c = transaction();

        guard.check(c, "other", 3);
        c.commit();

        assertThat(highest("other")).isEqualTo(3);
        assertThat(highest(RESOURCE)).isEqualTo(9);
    }

    @Test
    void lowerTokenIsRejectedAndTheWriteInTheSameTransactionIsRolledBack() throws Exception {
        guardedWrite("new", 6);
        Connection stale = transaction();
        write(stale, "stale", 5); // the write first: the rollback, not the order, keeps it out

        StaleTokenException e = org.junit.jupiter.api.Assertions.assertThrows(
                StaleTokenException.class, () -> guard.check(stale, RESOURCE, 5));
        stale.rollback();

        assertThat(e.resource()).isEqualTo(RESOURCE);
        assertThat(e.offeredToken()).isEqualTo(5);
        assertThat(e.highestToken()).isEqualTo(6);
        assertThat(writes()).containsExactly("new");
        assertThat(highest(RESOURCE)).isEqualTo(6);
    }

    /**
     * Token 6 checks and writes first and holds its transaction open; token 5 checks meanwhile, waits for the row,
     * and once 6 commits is refused: 5 never commits after 6.
     */
    @ParameterizedTest(name = "resource row exists beforehand: {0}")
    @ValueSource(booleans = {false, true})
    void lowerTokenThatChecksWhileAHigherOneIsOpenWaitsAndIsRefused(boolean rowExists) throws Exception {
        if (rowExists) {
            guardedWrite("first", 1);
        }
        Connection six = transaction();
        guard.check(six, RESOURCE, 6);
        write(six, "six", 6);

        Connection five = transaction();
        CompletableFuture<Void> fiveDone = CompletableFuture.runAsync(
                () -> {
                    try {
                        guard.check(five, RESOURCE, 5);
                        write(five, "five", 5);
                        five.commit();
                    } catch (SQLException e) {
                        throw new RuntimeException(e);
                    }
                },
                threads);
        awaitLockWaiter(fiveDone);
        six.commit();

        StaleTokenException e = refusal(fiveDone);
        five.rollback();
        assertThat(e.highestToken()).isEqualTo(6);
        assertThat(writes()).containsExactlyElementsOf(rowExists ? List.of("first", "six") : List.of("six"));
        assertThat(highest(RESOURCE)).isEqualTo(6);
    }

    /**
     * Token 5 checks and writes first and holds its transaction open; token 6 waits for it, then passes: both
     * commit, 5 before 6, which is the order of their leaderships.
     */
    @ParameterizedTest(name = "resource row exists beforehand: {0}")
    @ValueSource(booleans = {false, true})
    void higherTokenThatChecksWhileALowerOneIsOpenWaitsForItsCommitThenPasses(boolean rowExists) throws Exception {
        if (rowExists) {
            guardedWrite("first", 1);
        }
        Connection five = transaction();
        guard.check(five, RESOURCE, 5);
        write(five, "five", 5);

        Connection six = transaction();
        CompletableFuture<Void> sixDone = CompletableFuture.runAsync(
                () -> {
                    try {
                        guard.check(six, RESOURCE, 6);
                        write(six, "six", 6);
                        six.commit();
                    } catch (SQLException e) {
                        throw new RuntimeException(e);
                    }
                },
                threads);
        awaitLockWaiter(sixDone); // 6 cannot pass while 5 may still commit
        five.commit();

        get(sixDone);
        assertThat(writes())
                .containsExactlyElementsOf(rowExists ? List.of("first", "five", "six") : List.of("five", "six"));
        assertThat(highest(RESOURCE)).isEqualTo(6);
    }

    /**
     * The transaction read the guard table before a newer leadership committed (so a snapshot of it exists, as
     * under REPEATABLE READ): its check still sees the newer token.
     */
    @Test
    void checkSeesATokenCommittedAfterTheTransactionsFirstRead() throws Exception {
        guardedWrite("first", 1);
        Connection five = transaction();
        try (Statement s = five.createStatement();
                ResultSet rs = s.executeQuery("SELECT token FROM " + fenceTable)) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(1);
        }

        guardedWrite("six", 6);

        assertThatThrownBy(() -> guard.check(five, RESOURCE, 5))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining("accepted 6");
        five.rollback();
        assertThat(writes()).containsExactly("first", "six");
    }

    @Test
    void badInputIsRefusedWithAClearMessageAndChangesNothing() throws Exception {
        Connection c = transaction();

        assertThatThrownBy(() -> guard.check(c, null, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencing resource must be a non-blank name, got null");
        assertThatThrownBy(() -> guard.check(c, "  ", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-blank name, got '  '");
        assertThatThrownBy(() -> guard.check(c, "r".repeat(201), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 200 characters, got 201");
        assertThatThrownBy(() -> guard.check(c, RESOURCE, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencing token for resource 'invoices' must not be negative, got -1");
        assertThatThrownBy(() -> guard.check(null, RESOURCE, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connection must not be null");
        Connection auto = autoCommit();
        assertThatThrownBy(() -> guard.check(auto, RESOURCE, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("auto-commit mode");
        assertThatThrownBy(() -> FencingGuard.onTable("bad-name"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'bad-name'");
        c.commit();

        assertThat(highest(RESOURCE)).isEqualTo(-1);
        guard.check(c, "r".repeat(200), 0); // the limits themselves are allowed
        c.commit();
        assertThat(highest("r".repeat(200))).isZero();
    }
}
