package io.bellwether.store.jdbc;

import io.bellwether.testkit.Services;

/** {@link JdbcDataSourceContract} against the real MariaDB on 127.0.0.1:3306, database {@code test}. */
class MariaDbDataSourceTest extends JdbcDataSourceContract {
    @Override
    void requireService() {
        Services.require("MariaDB", "127.0.0.1", 3306);
    }

    @Override
    String url() {
        return "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    }

    @Override
    String family() {
        return "mariadb";
    }

    @Override
    boolean pushes() {
        return false;
    }
}
