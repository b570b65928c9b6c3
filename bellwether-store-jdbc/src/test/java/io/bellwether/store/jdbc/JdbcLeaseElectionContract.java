package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseStore;
import io.bellwether.testkit.LeaseElectionContract;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;

/**
 * The {@link LeaseElectionContract} on a JDBC database: the namespace is a table of its own, created by the first
 * store and dropped after the test.
 */
abstract class JdbcLeaseElectionContract extends LeaseElectionContract {
    /** A JDBC URL for the database listening on 127.0.0.1:{@code port} (its own port, or a proxy's). */
    abstract String urlWithPort(int port);

    @Override
    protected LeaseStore newStore(int port, Duration requestTimeout) {
        return JdbcLeaseStore.builder()
                .url(urlWithPort(port))
                .table(namespace)
                .createSchema(true)
                .requestTimeout(requestTimeout)
                .build();
    }

    @Override
    protected void deleteNamespace(String namespace) throws Exception {
        try (Connection c = DriverManager.getConnection(urlWithPort(servicePort()));
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + namespace);
        }
    }
}
