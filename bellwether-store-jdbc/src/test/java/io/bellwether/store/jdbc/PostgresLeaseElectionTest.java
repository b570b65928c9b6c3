package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link LeaseElectionContract} against the real PostgreSQL on 127.0.0.1:5432: releases are pushed. */
class PostgresLeaseElectionTest extends LeaseElectionContract {
    @Override
    void requireService() {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
    }

    @Override
    String url() {
        return urlWithPort(5432);
    }

    @Override
    String urlWithPort(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres";
    }

    @Override
    int port() {
        return 5432;
    }

    @Override
    boolean pushes() {
        return true;
    }
}
