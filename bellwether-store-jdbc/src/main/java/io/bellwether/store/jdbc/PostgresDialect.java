package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * PostgreSQL: one statement per operation. {@code now()} is the transaction's start time, and each operation
 * runs in its own auto-committed transaction, so every mention of the clock within a statement reads the
 * same instant.
 */
final class PostgresDialect extends Dialect {
    private final String acquireSql;
    private final String priorityAcquireSql;
    private final String releaseSql;

    PostgresDialect(String table) {
        super(table);
        // The data-modifying CTE does the compare-and-set; the outer query reports the row as it stands,
        // either the one just written (RETURNING) or, when the WHERE refused the update, the current one.
        this.acquireSql = "WITH clock AS (SELECT " + nowMillis() + " AS now_ms),"
                + " up AS (INSERT INTO " + table + " AS l (grp, holder, token, expires_at)"
                + " SELECT ?, ?, 1, clock.now_ms + ? FROM clock"
                + " ON CONFLICT (grp) DO UPDATE SET"
                + " holder = EXCLUDED.holder,"
                + " token = CASE WHEN l.expires_at <= (SELECT now_ms FROM clock) THEN l.token + 1 ELSE l.token END,"
                + " expires_at = EXCLUDED.expires_at"
                + " WHERE l.expires_at <= (SELECT now_ms FROM clock)"
                + " OR (l.holder = EXCLUDED.holder AND l.token = ?)"
                + " RETURNING holder, token, expires_at)"
                + " SELECT up.holder, up.token, up.expires_at, clock.now_ms FROM up, clock"
                + " UNION ALL"
                + " SELECT l.holder, l.token, l.expires_at, clock.now_ms FROM " + table + " l, clock"
                + " WHERE l.grp = ? AND NOT EXISTS (SELECT 1 FROM up)";
        // With priorities the arguments sit in a CTE of their own (each is used several times). When the
        // compare-and-set fails, a caller of higher priority than the holder's writes its claim instead, unless a
        // live claim is higher; the row is then returned as updated.
        // A free lease goes to nobody below a live claim, so that the claimant, not a lower contender, takes it.
        String now = "(SELECT now_ms FROM clock)";
        String claimedAbove = "(l.wanted_until > " + now + " AND l.wanted_priority > EXCLUDED.holder_priority)";
        String take = "((l.expires_at <= " + now + " AND NOT " + claimedAbove + ") OR (l.expires_at > " + now
                + " AND l.holder = EXCLUDED.holder AND l.token = (SELECT tok FROM a)))";
        this.priorityAcquireSql = "WITH clock AS (SELECT " + nowMillis() + " AS now_ms),"
                + " a AS (SELECT CAST(? AS VARCHAR) AS grp, CAST(? AS VARCHAR) AS holder, CAST(? AS BIGINT) AS tok,"
                + " CAST(? AS BIGINT) AS dur, CAST(? AS INT) AS prio),"
                + " up AS (INSERT INTO " + table + " AS l (grp, holder, token, expires_at, holder_priority)"
                + " SELECT a.grp, a.holder, 1, clock.now_ms + a.dur, a.prio FROM a, clock"
                + " ON CONFLICT (grp) DO UPDATE SET"
                + " holder = CASE WHEN " + take + " THEN EXCLUDED.holder ELSE l.holder END,"
                + " token = CASE WHEN l.expires_at <= " + now + " THEN l.token + 1 ELSE l.token END,"
                + " expires_at = CASE WHEN " + take + " THEN EXCLUDED.expires_at ELSE l.expires_at END,"
                + " holder_priority = CASE WHEN " + take + " THEN EXCLUDED.holder_priority ELSE l.holder_priority END,"
                + " wanted_priority = CASE WHEN " + take + " THEN l.wanted_priority ELSE EXCLUDED.holder_priority END,"
                + " wanted_until = CASE WHEN " + take + " THEN l.wanted_until ELSE EXCLUDED.expires_at END"
                + " WHERE " + take
                + " OR (EXCLUDED.holder_priority > l.holder_priority"
                + " AND NOT " + claimedAbove + ")"
                + " RETURNING holder, token, expires_at, wanted_priority, wanted_until)"
                + " SELECT up.holder, up.token, up.expires_at, clock.now_ms, up.wanted_priority, up.wanted_until"
                + " FROM up, clock"
                + " UNION ALL"
                + " SELECT l.holder, l.token, l.expires_at, clock.now_ms, l.wanted_priority, l.wanted_until"
                + " FROM " + table + " l, clock WHERE l.grp = (SELECT grp FROM a) AND NOT EXISTS (SELECT 1 FROM up)";
        // pg_notify runs only for the released row, inside the same transaction: listeners hear of the
        // release exactly when it commits, and never of a release that did not happen.
        this.releaseSql = "WITH clock AS (SELECT " + nowMillis() + " AS now_ms),"
                + " r AS (UPDATE " + table + " l SET expires_at = clock.now_ms FROM clock"
                + " WHERE l.grp = ? AND l.holder = ? AND l.token = ? AND l.expires_at > clock.now_ms"
                + " RETURNING l.grp)"
                + " SELECT pg_notify(?, r.grp) FROM r";
    }

    @Override
    String family() {
        return "postgresql";
    }

    @Override
    String nowMillis() {
        return "floor(extract(epoch FROM now()) * 1000)::bigint";
    }

    /** The LISTEN/NOTIFY channel: the table name as written, so two tables never wake each other. */
    String channel() {
        return table;
    }

    @Override
    LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(acquireSql)) {
            ps.setString(1, group);
            ps.setString(2, holder);
            ps.setLong(3, durationMillis);
            ps.setLong(4, token);
            ps.setString(5, group);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return record(rs);
                }
            }
        }
        // The upsert refused to write and the statement's snapshot predates the row: a contender inserted it
        // concurrently and committed after this statement began. Report the row as it is now.
        return read(c, group).orElseThrow(() -> new SQLException("lease row for group '" + group + "' vanished"));
    }

    @Override
    LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis, int priority)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(priorityAcquireSql)) {
            ps.setString(1, group);
            ps.setString(2, holder);
            ps.setLong(3, token);
            ps.setLong(4, durationMillis);
            ps.setInt(5, priority);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return recordWithClaim(rs);
                }
            }
        }
        // As without priorities: a row inserted concurrently, after this statement's snapshot.
        return readWithClaim(c, group)
                .orElseThrow(() -> new SQLException("lease row for group '" + group + "' vanished"));
    }

    @Override
    boolean release(Connection c, String group, String holder, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
            ps.setString(1, group);
            ps.setString(2, holder);
            ps.setLong(3, token);
            ps.setString(4, channel());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
