package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** {@link FencingGuardContract} against the real PostgreSQL on 127.0.0.1:5432, database {@code test}. */
class PostgresFencingGuardTest extends FencingGuardContract {
    @Override
    void requireService() {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
    }

    @Override
    String url() {
        return "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    }

    @Override
    int lockWaiters(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE wait_event_type = 'Lock' AND query LIKE '%' || ? || '%'")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
