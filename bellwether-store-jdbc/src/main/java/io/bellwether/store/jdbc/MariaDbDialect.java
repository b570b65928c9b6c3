package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseRecord;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * MySQL and MariaDB. The compare-and-set is one {@code INSERT ... ON DUPLICATE KEY UPDATE}; MariaDB has no
 * {@code RETURNING} for it, so the row is read back with {@code SELECT ... FOR UPDATE} in the same transaction.
 * The upsert holds the row's exclusive lock until commit, so nobody can change the row between the two.
 */
final class MariaDbDialect extends Dialect {
    private final String acquireSql;
    private final String priorityAcquireSql;

    MariaDbDialect(String table) {
        super(table);
        String now = nowMillis();
        // MySQL evaluates ON DUPLICATE KEY UPDATE assignments left to right, each seeing the columns as the
        // previous ones left them. The order below is chosen so that this never changes a decision:
        //   holder first, decided on the old holder, token and expires_at;
        //   token next, decided on the old expires_at alone;
        //   expires_at last: its condition reads the new holder and token, but those changed only when the
        //   lease had expired (then the first disjunct, on the still-old expires_at, decides) or when holder
        //   and token already matched (then they are unchanged).
        this.acquireSql = "INSERT INTO " + table + " (grp, holder, token, expires_at) VALUES (?, ?, 1, " + now
                + " + ?) ON DUPLICATE KEY UPDATE"
                + " holder = IF(expires_at <= " + now + " OR (holder = ? AND token = ?), ?, holder),"
                + " token = IF(expires_at <= " + now + ", token + 1, token),"
                + " expires_at = IF(expires_at <= " + now + " OR (holder = ? AND token = ?), " + now
                + " + ?, expires_at)";
        // With priorities the claim columns come first, while holder, token and expires_at are still the old
        // ones. VALUES(holder_priority) is the caller's priority and VALUES(expires_at) its store-now + duration.
        // wanted_until's condition reads the new wanted_priority, which changed only to the caller's priority and
        // only when that same condition held, so it decides alike. holder_priority is decided on the old holder,
        // token and expires_at; the rest is the statement without priorities.
        // A free lease goes to nobody below a live claim, so that the claimant, not a lower contender, takes it; a
        // claim is never written on a free lease (there NOT take means a live claim above), so take reads the same
        // claim columns in every assignment.
        String claimedAbove = "(wanted_until > " + now + " AND wanted_priority > VALUES(holder_priority))";
        String take = "((expires_at <= " + now + " AND NOT " + claimedAbove + ") OR (expires_at > " + now
                + " AND holder = VALUES(holder) AND token = ?))";
        String claim = "(NOT " + take + " AND VALUES(holder_priority) > holder_priority AND NOT " + claimedAbove + ")";
        this.priorityAcquireSql = "INSERT INTO " + table + " (grp, holder, token, expires_at, holder_priority,"
                + " wanted_priority, wanted_until) VALUES (?, ?, 1, " + now + " + ?, ?, 0, 0)"
                + " ON DUPLICATE KEY UPDATE"
                + " wanted_priority = IF(" + claim + ", VALUES(holder_priority), wanted_priority),"
                + " wanted_until = IF(" + claim + ", VALUES(expires_at), wanted_until),"
                + " holder_priority = IF(" + take + ", VALUES(holder_priority), holder_priority),"
                + " holder = IF(" + take + ", VALUES(holder), holder),"
                + " token = IF(expires_at <= " + now + " AND NOT " + claimedAbove + ", token + 1, token),"
                + " expires_at = IF(" + take + ", VALUES(expires_at), expires_at)";
    }

    @Override
    String family() {
        return "mariadb";
    }

    @Override
    String createTable() {
        return super.createTable() + " ENGINE=InnoDB";
    }

    @Override
    String nowMillis() {
        // Arithmetic on UTC_TIMESTAMP avoids UNIX_TIMESTAMP(NOW()), which converts through the session time
        // zone and is ambiguous for an hour at every daylight-saving change. Both are constant per statement.
        return "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
    }

    @Override
    boolean retryable(SQLException e) {
        // InnoDB may pick an upsert as a deadlock victim when contenders insert the same new key at once.
        return super.retryable(e) || e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
    }

    @Override
    LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis)
            throws SQLException {
        // The parameters in the order of the ?s above.
        return upsertThenRead(
                c,
                group,
                acquireSql,
                group,
                holder,
                durationMillis,
                holder,
                token,
                holder,
                holder,
                token,
                durationMillis);
    }

    @Override
    LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis, int priority)
            throws SQLException {
        // The parameters in the order of the ?s: the row, then the token of each of the five conditions.
        return upsertThenRead(
                c,
                group,
                true,
                priorityAcquireSql,
                group,
                holder,
                durationMillis,
                priority,
                token,
                token,
                token,
                token,
                token);
    }
}
