package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * {@link FencingGuardContract} against the real MariaDB on 127.0.0.1:3306, database {@code test}, at its default
 * isolation level, REPEATABLE READ.
 */
class MariaDbFencingGuardTest extends FencingGuardContract {
    @Override
    void requireService() {
        Services.require("MariaDB", "127.0.0.1", 3306);
    }

    @Override
    String url() {
        return "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    }

    @Override
    int lockWaiters(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM information_schema.INNODB_TRX"
                + " WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE CONCAT('%', ?, '%')")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
