package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link JdbcLeaseStoreContract} against the real PostgreSQL on 127.0.0.1:5432, database {@code test}. */
class PostgresLeaseStoreTest extends JdbcLeaseStoreContract {
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
    String urlWithWrongCredentials() {
        // The test server trusts local users, so an unknown role is what it rejects.
        return "jdbc:postgresql://127.0.0.1:5432/test?user=bw_no_such_role&password=wrong-password";
    }

    @Override
    boolean pushes() {
        return true;
    }
}
