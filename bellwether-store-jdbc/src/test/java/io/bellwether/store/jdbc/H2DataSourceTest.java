package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.spi.LeaseStoreException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

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

    @Test
    void aDataSourceThatNeverConnectsFailsEveryCallAsUnreachable() {
        DataSource refusing = new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                throw new SQLException("Connection refused", "08001");
            }

            @Override
            public Connection getConnection(String username, String password) throws SQLException {
                return getConnection();
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {}

            @Override
            public void setLoginTimeout(int seconds) {}

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() throws SQLFeatureNotSupportedException {
                throw new SQLFeatureNotSupportedException();
            }

            @Override
            public <T> T unwrap(Class<T> type) throws SQLException {
                throw new SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> type) {
                return false;
            }
        };
        try (JdbcLeaseStore store =
                JdbcLeaseStore.builder().dataSource(refusing).build()) {
            assertThatThrownBy(() -> store.acquireOrRenew("g", "h", 0, Duration.ofSeconds(1))
                            .toCompletableFuture()
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfSatisfying(JdbcLeaseStoreException.class, e -> assertThat(e.problem())
                            .isEqualTo(LeaseStoreException.Problem.UNREACHABLE));
        }
    }
}
