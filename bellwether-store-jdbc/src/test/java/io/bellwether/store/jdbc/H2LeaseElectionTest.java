package io.bellwether.store.jdbc;

import java.util.UUID;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link JdbcLeaseElectionContract} against an in-memory H2 database of its own, served over TCP by an H2 server in
 * this JVM so that a contender can be put behind the black-holing proxy. Contenders poll.
 */
class H2LeaseElectionTest extends JdbcLeaseElectionContract {
    private static final String DATABASE =
            "bw_election_" + UUID.randomUUID().toString().replace("-", "");
    private static Server server;

    @BeforeAll
    static void startServer() throws Exception {
        // -ifNotExists: H2 refuses to create databases for remote clients unless told to.
        server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.stop();
        }
    }

    @Override
    protected void requireService() {}

    @Override
    String urlWithPort(int port) {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + DATABASE + ";DB_CLOSE_DELAY=-1";
    }

    @Override
    protected int servicePort() {
        return server.getPort();
    }
}
