package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link JdbcLeaseElectionContract} against the real MariaDB on 127.0.0.1:3306: contenders poll. */
class MariaDbLeaseElectionTest extends JdbcLeaseElectionContract {
    @Override
    protected void requireService() {
        Services.require("MariaDB", "127.0.0.1", 3306);
    }

    @Override
    String urlWithPort(int port) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root";
    }

    @Override
    protected int servicePort() {
        return 3306;
    }
}
