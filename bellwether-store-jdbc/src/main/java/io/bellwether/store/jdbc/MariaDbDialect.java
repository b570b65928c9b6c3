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
}
