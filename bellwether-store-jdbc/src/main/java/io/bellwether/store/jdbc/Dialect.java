package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The SQL of one database family. Every statement computes "now" on the database, as epoch milliseconds, so
 * no two JVM clocks (or time zones) ever meet in the table. The statements themselves are documented in
 * {@code docs/lease-stores.md}.
 */
abstract class Dialect {
    /** The columns every dialect creates; the shape check demands exactly these. */
    static final String COLUMNS = "grp VARCHAR(200) NOT NULL PRIMARY KEY, holder VARCHAR(200) NOT NULL,"
            + " token BIGINT NOT NULL, expires_at BIGINT NOT NULL";

    /**
     * The columns that carry priorities (issue #17): the holder's priority and the best waiting contender's claim
     * (its priority, and until when on the database's clock). A table made before them works without them, but only
     * for members of priority 0.
     */
    static final List<String> PRIORITY_COLUMNS = List.of(
            "holder_priority INT NOT NULL DEFAULT 0",
            "wanted_priority INT NOT NULL DEFAULT 0",
            "wanted_until BIGINT NOT NULL DEFAULT 0");

    /** The names of {@link #PRIORITY_COLUMNS}. */
    static final List<String> PRIORITY_COLUMN_NAMES = List.of("holder_priority", "wanted_priority", "wanted_until");

    /** An unquoted SQL identifier, optionally schema-qualified, as every table name must be. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    final String table;

    Dialect(String table) {
        this.table = table;
    }

    /** The family's name as shown by {@link JdbcLeaseStore#describe()}. */
    abstract String family();

    /** {@code CREATE TABLE IF NOT EXISTS} for the lease table. */
    String createTable() {
        return "CREATE TABLE IF NOT EXISTS " + table + " (" + COLUMNS + ", " + String.join(", ", PRIORITY_COLUMNS)
                + ")";
    }

    /** {@code ALTER TABLE} statements adding the priority column {@code i} of {@link #PRIORITY_COLUMNS}. */
    String addPriorityColumn(int i) {
        return "ALTER TABLE " + table + " ADD COLUMN " + PRIORITY_COLUMNS.get(i);
    }

    /** The statements adding every priority column to a table made without them, for errors and docs. */
    String addPriorityColumns() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < PRIORITY_COLUMNS.size(); i++) {
            sb.append(i == 0 ? "" : "; ").append(addPriorityColumn(i));
        }
        return sb.toString();
    }

    /** An SQL expression for the database's clock in epoch milliseconds, constant within one statement. */
    abstract String nowMillis();

    abstract LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis)
            throws SQLException;

    /**
     * {@link io.bellwether.spi.LeaseStore#acquireOrRenew(String, String, long, java.time.Duration, int)} on a table
     * with {@link #PRIORITY_COLUMNS}: the same compare-and-set, which also records the holder's priority, and
     * otherwise the caller's claim when it is of higher priority than the holder's. The record carries the claim.
     */
    abstract LeaseRecord acquireOrRenew(
            Connection c, String group, String holder, long token, long durationMillis, int priority)
            throws SQLException;

    /** Ends the lease now if {@code holder} still holds it with {@code token}; whether it did. */
    boolean release(Connection c, String group, String holder, long token) throws SQLException {
        String now = nowMillis();
        String sql = "UPDATE " + table + " SET expires_at = " + now
                + " WHERE grp = ? AND holder = ? AND token = ? AND expires_at > " + now;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, group);
            ps.setString(2, holder);
            ps.setLong(3, token);
            return ps.executeUpdate() == 1;
        }
    }

    /** Whether the driver honours {@link Connection#setNetworkTimeout}. */
    boolean supportsNetworkTimeout() {
        return true;
    }

    /** Whether {@code e} says a transaction lost a deadlock or serialisation race and may simply be retried. */
    boolean retryable(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.equals("40001") || state.equals("40P01"));
    }

    Optional<LeaseRecord> read(Connection c, String group) throws SQLException {
        String sql = "SELECT holder, token, expires_at, " + nowMillis() + " FROM " + table + " WHERE grp = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(record(rs)) : Optional.empty();
            }
        }
    }

    /** {@link #read}, with the claim, on a table with {@link #PRIORITY_COLUMNS}. */
    Optional<LeaseRecord> readWithClaim(Connection c, String group) throws SQLException {
        String sql = "SELECT holder, token, expires_at, " + nowMillis() + ", wanted_priority, wanted_until FROM "
                + table + " WHERE grp = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(recordWithClaim(rs)) : Optional.empty();
            }
        }
    }

    /**
     * For databases whose upsert cannot return the row (H2, MariaDB): runs {@code upsertSql}, the compare-and-set,
     * then reads the row back with {@code SELECT ... FOR UPDATE}, in one transaction. The upsert holds the row's
     * lock until commit, so the read sees exactly what the upsert left.
     *
     * @param parameters the upsert's parameters in order: {@code String}s and {@code Long}s
     */
    final LeaseRecord upsertThenRead(Connection c, String group, String upsertSql, Object... parameters)
            throws SQLException {
        return upsertThenRead(c, group, false, upsertSql, parameters);
    }

    /** {@link #upsertThenRead(Connection, String, String, Object...)}, reading the claim too if {@code claim}. */
    final LeaseRecord upsertThenRead(Connection c, String group, boolean claim, String upsertSql, Object... parameters)
            throws SQLException {
        String readLockedSql = "SELECT holder, token, expires_at, " + nowMillis()
                + (claim ? ", wanted_priority, wanted_until" : "") + " FROM " + table + " WHERE grp = ? FOR UPDATE";
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            try (PreparedStatement ps = c.prepareStatement(upsertSql)) {
                for (int i = 0; i < parameters.length; i++) {
                    if (parameters[i] instanceof Long number) {
                        ps.setLong(i + 1, number);
                    } else if (parameters[i] instanceof Integer number) {
                        ps.setInt(i + 1, number);
                    } else {
                        ps.setString(i + 1, (String) parameters[i]);
                    }
                }
                ps.executeUpdate();
            }
            LeaseRecord result;
            try (PreparedStatement ps = c.prepareStatement(readLockedSql)) {
                ps.setString(1, group);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("lease row for group '" + group + "' vanished");
                    }
                    result = claim ? recordWithClaim(rs) : record(rs);
                }
            }
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    static LeaseRecord record(ResultSet rs) throws SQLException {
        return new LeaseRecord(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
    }

    /** A record from the columns holder, token, expires_at, now, wanted_priority, wanted_until. */
    static LeaseRecord recordWithClaim(ResultSet rs) throws SQLException {
        return new LeaseRecord(
                rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getInt(5), rs.getLong(6));
    }

    /**
     * The database family of a JDBC URL, from its sub-protocol: {@code postgresql}, {@code mariadb} (also for
     * {@code jdbc:mysql:}) or {@code h2}, as {@link #family()} names them; null for any other database.
     */
    static String familyOf(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            return "postgresql";
        }
        if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
            return "mariadb";
        }
        if (lower.startsWith("jdbc:h2:")) {
            return "h2";
        }
        return null;
    }

    /**
     * Whether {@code name} may name a table: an unquoted SQL identifier (letters, digits and '_', not starting
     * with a digit), optionally {@code schema.table}, at most 63 characters (PostgreSQL's limit).
     */
    static boolean isTableName(String name) {
        return name != null && name.length() <= 63 && TABLE_NAME.matcher(name).matches();
    }

    /**
     * Picks the dialect from the database product name a connection reports ({@link
     * java.sql.DatabaseMetaData#getDatabaseProductName()}); null for a database that is not supported.
     */
    static Dialect forProduct(String product, String table) {
        String lower = String.valueOf(product).toLowerCase(Locale.ROOT);
        if (lower.contains("postgres")) {
            return new PostgresDialect(table);
        }
        if (lower.contains("mariadb") || lower.contains("mysql")) {
            return new MariaDbDialect(table);
        }
        if (lower.equals("h2")) {
            return new H2Dialect(table);
        }
        return null;
    }

    /** Picks the dialect from the JDBC URL's sub-protocol. */
    static Dialect forUrl(String url, String table) {
        String family = familyOf(url);
        if (family == null) {
            throw new IllegalArgumentException("lease store url '" + JdbcUrls.redact(url)
                    + "' is not supported: allowed are jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql: and jdbc:h2: URLs");
        }
        return switch (family) {
            case "postgresql" -> new PostgresDialect(table);
            case "mariadb" -> new MariaDbDialect(table);
            default -> new H2Dialect(table);
        };
    }
}
