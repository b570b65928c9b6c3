package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link JdbcDataSourceContract} against the real PostgreSQL on 127.0.0.1:5432, database {@code test}. */
class PostgresDataSourceTest extends JdbcDataSourceContract {
    @Override
    void requireService() {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
    }

    @Override
    String url() {
        return "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    }

    @Override
    String family() {
        return "postgresql";
    }

    @Override
    boolean pushes() {
        return true;
    }
}
