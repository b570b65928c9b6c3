package io.bellwether.server.demo;

import java.sql.SQLException;
import java.time.Duration;
import org.h2.tools.Server;

/**
 * An H2 database server on a free loopback port, inside this JVM, holding one in-memory database: the lease store
 * of {@code bellwether demo --algorithm lease}, of the lease process tests and of benchmarks. Node processes reach
 * it at {@link #jdbcUrl()}. The database lives as long as the server ({@code DB_CLOSE_DELAY=-1}); {@link #close()}
 * stops the server and with it the data.
 *
 * <p>Thread-safe.
 */
public final class EmbeddedH2 implements AutoCloseable {
    private final Server server;
    private final String database;

    private EmbeddedH2(Server server, String database) {
        this.server = server;
        this.database = database;
    }

    /**
     * Starts a TCP server on 127.0.0.1 at a port the system chooses. Remote clients may create the in-memory
     * database ({@code -ifNotExists}): only processes on this machine can reach the port.
     *
     * @param database the in-memory database's name, e.g. {@code bellwether}
     * @throws IllegalStateException if the server cannot start
     */
    public static EmbeddedH2 start(String database) {
        return start(database, 0);
    }

    /**
     * Like {@link #start(String)}, on a given port ({@code 0}: one the system chooses).
     *
     * @throws IllegalStateException if the server cannot start (the port is taken, …)
     */
    public static EmbeddedH2 start(String database, int port) {
        // Bind to loopback only where H2 has not been loaded yet (it reads this once); either way, without
        // -tcpAllowOthers the server refuses connections from other hosts.
        if (System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
        try {
            Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists")
                    .start();
            return new EmbeddedH2(server, database);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot start the embedded H2 server: " + e.getMessage(), e);
        }
    }

    /** The port the server listens on. */
    public int port() {
        return server.getPort();
    }

    /** The JDBC URL of the in-memory database, for every node: {@code jdbc:h2:tcp://127.0.0.1:<port>/mem:<name>;...}. */
    public String jdbcUrl() {
        return "jdbc:h2:tcp://127.0.0.1:" + port() + "/mem:" + database + ";DB_CLOSE_DELAY=-1";
    }

    /**
     * The {@code lease:} section of a node configuration pointing at this database, with {@code create-schema:
     * true} and the given lease duration (the other timings default in proportion to it).
     */
    public String leaseSection(Duration duration) {
        return LocalCluster.leaseSection(jdbcUrl(), duration, true);
    }

    /** Stops the server; clients' connections are closed and the in-memory database is gone. */
    @Override
    public void close() {
        server.stop();
    }
}
