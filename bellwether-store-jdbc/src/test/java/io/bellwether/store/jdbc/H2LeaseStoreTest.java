package io.bellwether.store.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;

/** {@link JdbcLeaseStoreContract} against an in-memory H2 database of its own. */
class H2LeaseStoreTest extends JdbcLeaseStoreContract {
    private final String database = "bw_" + UUID.randomUUID().toString().replace("-", "");
    private Connection keepAlive;

    @Override
    void requireService() {}

    @Override
    String url() {
        return "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
    }

    @Override
    String urlWithPort(int port) {
        return null;
    }

    @Override
    int port() {
        return -1;
    }

    @Override
    String urlWithWrongCredentials() throws Exception {
        String db = "jdbc:h2:mem:" + database + "_secured";
        // The first connection creates the database with this user and password; later ones must match.
        keepAlive = DriverManager.getConnection(db + ";USER=owner;PASSWORD=right");
        return db + ";USER=owner;PASSWORD=wrong-password";
    }

    @AfterEach
    void closeKeepAlive() throws Exception {
        if (keepAlive != null) {
            keepAlive.close();
        }
    }

    @Override
    boolean pushes() {
        return false;
    }
}
