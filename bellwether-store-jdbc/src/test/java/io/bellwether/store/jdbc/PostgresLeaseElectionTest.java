package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link JdbcLeaseElectionContract} against the real PostgreSQL on 127.0.0.1:5432: releases are pushed. */
class PostgresLeaseElectionTest extends JdbcLeaseElectionContract {
    @Override
    protected void requireService() {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
    }

    @Override
    String urlWithPort(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres";
    }

    @Override
    protected int servicePort() {
        return 5432;
    }
}
