package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseRecord;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * H2 (tests, demos, single-host setups): a standard {@code MERGE} whose {@code WHEN MATCHED AND} condition is
 * the compare-and-set, then a read-back in the same transaction. H2 locks the row it merges into until
 * commit, so the read sees exactly what the merge left.
 */
final class H2Dialect extends Dialect {
    private final String mergeSql;
    private final String priorityMergeSql;

    H2Dialect(String table) {
        super(table);
        String now = nowMillis();
        // Standard SQL: every right-hand side of SET reads the row as it was before the update.
        this.mergeSql = "MERGE INTO " + table + " l USING (VALUES (CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(200)),"
                + " CAST(? AS BIGINT), CAST(? AS BIGINT))) s(grp, holder, tok, dur) ON l.grp = s.grp"
                + " WHEN MATCHED AND (l.expires_at <= " + now + " OR (l.holder = s.holder AND l.token = s.tok))"
                + " THEN UPDATE SET holder = s.holder,"
                + " token = CASE WHEN l.expires_at <= " + now + " THEN l.token + 1 ELSE l.token END,"
                + " expires_at = " + now + " + s.dur"
                + " WHEN NOT MATCHED THEN INSERT (grp, holder, token, expires_at)"
                + " VALUES (s.grp, s.holder, 1, " + now + " + s.dur)";
        // The first WHEN MATCHED whose condition holds applies: the compare-and-set (recording the holder's
        // priority), else a claim by a caller of higher priority than the holder's, unless a live claim is higher.
        // A free lease goes to nobody below a live claim, so that the claimant, not a lower contender, takes it.
        String claimedAbove = "(l.wanted_until > " + now + " AND l.wanted_priority > s.prio)";
        this.priorityMergeSql = "MERGE INTO " + table + " l USING (VALUES (CAST(? AS VARCHAR(200)),"
                + " CAST(? AS VARCHAR(200)), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS INT)))"
                + " s(grp, holder, tok, dur, prio) ON l.grp = s.grp"
                + " WHEN MATCHED AND ((l.expires_at <= " + now + " AND NOT " + claimedAbove + ")"
                + " OR (l.expires_at > " + now + " AND l.holder = s.holder AND l.token = s.tok))"
                + " THEN UPDATE SET holder = s.holder,"
                + " token = CASE WHEN l.expires_at <= " + now + " THEN l.token + 1 ELSE l.token END,"
                + " expires_at = " + now + " + s.dur, holder_priority = s.prio"
                + " WHEN MATCHED AND s.prio > l.holder_priority"
                + " AND NOT " + claimedAbove
                + " THEN UPDATE SET wanted_priority = s.prio, wanted_until = " + now + " + s.dur"
                + " WHEN NOT MATCHED THEN INSERT (grp, holder, token, expires_at, holder_priority)"
                + " VALUES (s.grp, s.holder, 1, " + now + " + s.dur, s.prio)";
    }

    @Override
    String family() {
        return "h2";
    }

    @Override
    String nowMillis() {
        // CURRENT_TIMESTAMP is fixed for the whole command in H2 2.x.
        return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";
    }

    @Override
    boolean supportsNetworkTimeout() {
        return false;
    }

    @Override
    boolean retryable(SQLException e) {
        // 23505: two contenders merged into a missing row at once and the second insert lost; the row exists
        // now, so the retry takes the WHEN MATCHED branch. 40001: H2's deadlock report.
        return super.retryable(e) || "23505".equals(e.getSQLState());
    }

    @Override
    LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis)
            throws SQLException {
        return upsertThenRead(c, group, mergeSql, group, holder, token, durationMillis);
    }

    @Override
    LeaseRecord acquireOrRenew(Connection c, String group, String holder, long token, long durationMillis, int priority)
            throws SQLException {
        return upsertThenRead(c, group, true, priorityMergeSql, group, holder, token, durationMillis, priority);
    }
}
