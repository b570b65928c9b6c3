package io.bellwether.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** {@link FencingGuardContract} against an in-memory H2 database of its own. */
class H2FencingGuardTest extends FencingGuardContract {
    private static final String URL = "jdbc:h2:mem:bw_fence_"
            + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=60000";

    @Override
    void requireService() {}

    @Override
    String url() {
        return URL;
    }

    /**
     * H2 names the blocker of a session that waits for a row lock, but not of one whose insert waits for another
     * transaction's uncommitted insert of the same key: that one only shows as running. A running guard statement
     * of another session is waiting, since nothing else keeps it running for long.
     */
    @Override
    int lockWaiters(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS"
                + " WHERE SESSION_ID <> SESSION_ID() AND (BLOCKER_ID IS NOT NULL OR SESSION_STATE = 'RUNNING')"
                + " AND LOWER(EXECUTING_STATEMENT) LIKE CONCAT('%', LOWER(?), '%')")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
