package io.bellwether.store.jdbc;

import io.bellwether.StaleTokenException;
import io.bellwether.spi.FencingSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Makes a write conditional on a fencing token ({@link io.bellwether.Leadership#epoch()}) in the write's own
 * transaction, on PostgreSQL, MySQL/MariaDB and H2. The guard keeps one row per fenced resource, {@code
 * (resource, token)}, holding the highest token the resource has accepted. {@link #check} accepts a token that is
 * not lower than that (higher: a newer leadership, which raises the bar; equal: the same leadership writing
 * again) and refuses a lower one with a {@link StaleTokenException}. Because the check and the write commit or
 * roll back together, a write of a leadership that has been superseded can never land after a write of its
 * successor, even when it was already under way (checked by {@code checkValid()}) when its leader paused.
 *
 * <p>Usage: on the application's own {@link Connection} (from its own pool; the guard has none and needs no
 * driver of its own), with auto-commit off:
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     try {
 *         guard.check(c, "invoices", leadership.epoch()); // throws StaleTokenException when superseded
 *         insertInvoice(c, invoice);
 *         c.commit();
 *     } catch (SQLException | RuntimeException e) {
 *         c.rollback();
 *         throw e;
 *     }
 * }
 * }</pre>
 *
 * <p>How the check is atomic: it is one conditional upsert that raises the resource's row to {@code
 * GREATEST(token, offered)} (inserting the row when the resource is new) and yields the row's value afterwards;
 * the offered token passes exactly when that value equals it. PostgreSQL does it in one {@code INSERT ... ON
 * CONFLICT DO UPDATE ... RETURNING}; MySQL/MariaDB ({@code INSERT ... ON DUPLICATE KEY UPDATE}) and H2 ({@code
 * MERGE}) cannot return the row from an upsert, so they read it back with {@code SELECT ... FOR UPDATE} in the
 * same transaction. The upsert takes the row's exclusive lock and holds it until the transaction ends, so:
 *
 * <ul>
 *   <li>writers of one resource are serialised from their checks to their commits: a writer with token 5 that
 *       checks while one with token 6 holds the row waits for it, then reads 6 and is refused;
 *   <li>the upsert works on the latest committed row, not on a snapshot (PostgreSQL's {@code ON CONFLICT} and
 *       InnoDB's and H2's upserts always do, at every isolation level), and the locking read sees what the upsert
 *       left; a plain {@code SELECT} would not do, since under REPEATABLE READ (MySQL/MariaDB's default) it may
 *       read an older snapshot.
 * </ul>
 *
 * This was chosen over a separate {@code SELECT ... FOR UPDATE} followed by an {@code UPDATE}: that needs a
 * second path for a resource with no row yet (nothing to lock, so two first writers could both pass), which the
 * upsert handles in the same statement. Isolation: READ COMMITTED (PostgreSQL's default) and REPEATABLE READ
 * (MySQL/MariaDB's) both work as described. Under PostgreSQL's REPEATABLE READ or SERIALIZABLE, a check that
 * waited for a concurrent writer of the same resource fails with a serialisation error (SQLState {@code 40001})
 * instead; retrying the whole transaction then either passes or is refused as stale. On MySQL/MariaDB, two
 * writers creating the same new resource at once may see a deadlock error (1213) for one of them; again, retry
 * the transaction. The guard never retries the caller's transaction itself.
 *
 * <p>The check may run anywhere in the transaction before its commit; running it first keeps a refused
 * transaction from doing any work. A refused check changes nothing but leaves the row locked until the caller
 * rolls back. Keep the transaction short: it blocks the resource's other writers while it is open.
 *
 * <p>The database family is taken from the connection's JDBC URL ({@code getMetaData().getURL()}), as {@link
 * JdbcLeaseStore} does from its own. The table: {@link #createTableStatement} gives the DDL, {@link
 * #createTable} runs it; the guard never creates it by itself. Immutable and thread-safe; the connection is used
 * by one thread at a time, as JDBC requires.
 */
public final class FencingGuard {
    /** The default table name. */
    public static final String DEFAULT_TABLE = "bellwether_fence";

    /** The longest resource name, in characters: the width of the table's key column. */
    public static final int MAX_RESOURCE_LENGTH = FencingSupport.MAX_RESOURCE_LENGTH;

    private final String table;

    private FencingGuard(String table) {
        this.table = table;
    }

    /** A guard on the table {@value #DEFAULT_TABLE}. */
    public static FencingGuard create() {
        return new FencingGuard(DEFAULT_TABLE);
    }

    /**
     * A guard on {@code table}: an unquoted SQL identifier (letters, digits and '_', not starting with a digit),
     * optionally {@code schema.table}, at most 63 characters.
     *
     * @throws IllegalArgumentException if {@code table} is not such a name
     */
    public static FencingGuard onTable(String table) {
        if (!Dialect.isTableName(table)) {
            throw new IllegalArgumentException("fencing table must be an SQL identifier (letters, digits and '_',"
                    + " not starting with a digit, optionally 'schema.table', at most 63 characters), got '" + table
                    + "'");
        }
        return new FencingGuard(table);
    }

    /** The guard's table. */
    public String table() {
        return table;
    }

    /**
     * The {@code CREATE TABLE IF NOT EXISTS} statement for the database {@code c} is connected to: {@code
     * (resource VARCHAR(200) NOT NULL PRIMARY KEY, token BIGINT NOT NULL)}, with {@code ENGINE=InnoDB} on
     * MySQL/MariaDB.
     *
     * @throws SQLException if the connection's metadata cannot be read
     * @throws IllegalArgumentException if the database is not PostgreSQL, MySQL/MariaDB or H2
     */
    public String createTableStatement(Connection c) throws SQLException {
        String ddl = "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + MAX_RESOURCE_LENGTH
                + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL)";
        return family(c).equals("mariadb") ? ddl + " ENGINE=InnoDB" : ddl;
    }

    /**
     * Runs {@link #createTableStatement} on {@code c}. Run it once at start-up, not inside a write's transaction:
     * MySQL and MariaDB commit any open transaction around DDL.
     *
     * @throws SQLException if the database refuses
     */
    public void createTable(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(createTableStatement(c));
        }
    }

    /**
     * Accepts {@code token} for {@code resource} in {@code c}'s current transaction if it is not lower than the
     * highest token the resource has accepted, raising that to {@code token}; refuses it otherwise. The decision
     * holds for the transaction: until it ends, no other transaction can pass a check for the resource. Commit the
     * transaction to make the acceptance (and the write) durable; roll it back on any exception.
     *
     * @param c the connection of the write's transaction; auto-commit must be off
     * @param resource the fenced resource: 1 to {@value #MAX_RESOURCE_LENGTH} characters, not blank
     * @param token the writer's fencing token (its leadership's epoch), not negative
     * @throws StaleTokenException if the resource has accepted a higher token; nothing was changed
     * @throws IllegalArgumentException if {@code resource} or {@code token} is out of range; nothing was sent
     * @throws IllegalStateException if {@code c} is in auto-commit mode: the check would not share the write's
     *     transaction; nothing was sent
     * @throws SQLException if the database fails (a lock timeout, a serialisation failure, a lost connection)
     */
    public void check(Connection c, String resource, long token) throws SQLException {
        FencingSupport.checkWrite(resource, token);
        if (c == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        if (c.getAutoCommit()) {
            throw new IllegalStateException("fencing check for resource '" + resource + "' on a connection in"
                    + " auto-commit mode: the check must share the write's transaction; call"
                    + " setAutoCommit(false) first, and commit after the write");
        }
        long highest =
                switch (family(c)) {
                    case "postgresql" -> upsertReturning(c, resource, token);
                    case "mariadb" -> upsertThenRead(c, resource, token, mariaDbUpsert(), false);
                    default -> upsertThenRead(c, resource, token, h2Upsert(), true);
                };
        if (highest > token) {
            throw new StaleTokenException(resource, token, highest);
        }
    }

    @Override
    public String toString() {
        return "FencingGuard[" + table + "]";
    }

    // ---------------------------------------------------------------------------------------------------------

    private long upsertReturning(Connection c, String resource, long token) throws SQLException {
        String sql = "INSERT INTO " + table + " AS f (resource, token) VALUES (?, ?)"
                + " ON CONFLICT (resource) DO UPDATE SET token = GREATEST(f.token, EXCLUDED.token)"
                + " RETURNING token";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, resource);
            ps.setLong(2, token);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("fencing upsert on " + table + " returned no row for '" + resource + "'");
                }
                return rs.getLong(1);
            }
        }
    }

    private String mariaDbUpsert() {
        return "INSERT INTO " + table + " (resource, token) VALUES (?, ?)"
                + " ON DUPLICATE KEY UPDATE token = GREATEST(token, ?)";
    }

    private String h2Upsert() {
        return "MERGE INTO " + table + " f USING (VALUES (CAST(? AS VARCHAR(" + MAX_RESOURCE_LENGTH
                + ")), CAST(? AS BIGINT), CAST(? AS BIGINT))) s(resource, token, again) ON f.resource = s.resource"
                + " WHEN MATCHED THEN UPDATE SET token = GREATEST(f.token, s.again)"
                + " WHEN NOT MATCHED THEN INSERT (resource, token) VALUES (s.resource, s.token)";
    }

    /**
     * Runs the upsert (parameters: resource, token, token), then reads the row back with a locking read.
     *
     * @param retryDuplicate whether a duplicate-key failure of the upsert means that a concurrent transaction
     *     inserted the row first (H2's {@code MERGE}, which fails the statement only): the upsert is then run once
     *     more and takes its matched branch
     */
    private long upsertThenRead(Connection c, String resource, long token, String upsert, boolean retryDuplicate)
            throws SQLException {
        try {
            upsert(c, upsert, resource, token);
        } catch (SQLException e) {
            if (!retryDuplicate || !"23505".equals(e.getSQLState())) {
                throw e;
            }
            upsert(c, upsert, resource, token);
        }
        try (PreparedStatement ps =
                c.prepareStatement("SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("fencing row for '" + resource + "' in " + table + " vanished");
                }
                return rs.getLong(1);
            }
        }
    }

    private static void upsert(Connection c, String sql, String resource, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, resource);
            ps.setLong(2, token);
            ps.setLong(3, token);
            ps.executeUpdate();
        }
    }

    private static String family(Connection c) throws SQLException {
        String url = c.getMetaData().getURL();
        String family = url == null ? null : Dialect.familyOf(url);
        if (family == null) {
            throw new IllegalArgumentException("fencing guard: the connection's database ("
                    + (url == null ? "no URL" : "'" + JdbcUrls.redact(url) + "'")
                    + ") is not supported: allowed are PostgreSQL, MySQL/MariaDB and H2");
        }
        return family;
    }
}
