package io.bellwether.store.jdbc;

import java.util.UUID;

/** {@link JdbcDataSourceContract} against an in-memory H2 database of its own. */
class H2DataSourceTest extends JdbcDataSourceContract {
    private final String url = "jdbc:h2:mem:ds_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";

    @Override
    void requireService() {}

    @Override
    String url() {
        return url;
    }

    @Override
    String family() {
        return "h2";
    }

    @Override
    boolean pushes() {
        return false;
    }
}
