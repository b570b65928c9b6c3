package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link LeaseElectionContract} against the real MariaDB on 127.0.0.1:3306: contenders poll. */
class MariaDbLeaseElectionTest extends LeaseElectionContract {
    @Override
    void requireService() {
        Services.require("MariaDB", "127.0.0.1", 3306);
    }

    @Override
    String url() {
        return urlWithPort(3306);
    }

    @Override
    String urlWithPort(int port) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root";
    }

    @Override
    int port() {
        return 3306;
    }

    @Override
    boolean pushes() {
        return false;
    }
}
