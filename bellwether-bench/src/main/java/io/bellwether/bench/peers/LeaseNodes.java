package io.bellwether.bench.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.bellwether.NodeId;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The node mains of the lease systems, which contend for leadership through one PostgreSQL database: {@link
 * BellwetherLeaseNode}, {@link ShedLockNode} and {@link SpringIntegrationNode}, and what they share.
 *
 * <p>Each main takes {@code ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}: the node's id (1–64 letters, digits, {@code
 * .}, {@code _}, {@code -}), a {@code jdbc:postgresql:} URL, a lower-case SQL identifier that begins the names of
 * the tables the node creates if they are absent ({@code TABLE_PREFIX_lease}, {@code TABLE_PREFIX_shedlock},
 * {@code TABLE_PREFIX_lock} respectively), and the lease duration in milliseconds ({@value #MIN_LEASE_MILLIS} to
 * {@value #MAX_LEASE_MILLIS}). A bad argument exits with status {@value #BAD_ARGUMENTS} and
 * a message naming it; a node that cannot start (the database unreachable) exits with status 1.
 *
 * <p>A node reaches the database through a HikariCP pool of {@value #POOL_SIZE} connections (the application's
 * pool), wrapped in a {@link CountingDataSource}, and prints to standard output, flushed, one line per event:
 * {@code bw-peer ready ID} once started, {@code bw-peer leader NANOS} on becoming leader, {@code bw-peer follower
 * NANOS} on ceasing to lead (NANOS: wall-clock nanoseconds since 1970, read in the callback that reports the
 * change), and once a second {@code bw-peer statements TOTAL}, the statements its election has executed since it
 * started (creating its tables is not counted). SIGTERM stops the election gracefully (each system's way of
 * giving the leadership up) before the process exits; logging goes to standard error.
 */
public final class LeaseNodes {
    /** The node mains, by class name. */
    public static final List<String> MAIN_CLASSES = List.of(
            BellwetherLeaseNode.class.getName(), ShedLockNode.class.getName(), SpringIntegrationNode.class.getName());

    /** The exit status of a node given a bad argument. */
    public static final int BAD_ARGUMENTS = 2;

    /** The shortest lease a node accepts, in milliseconds. */
    public static final long MIN_LEASE_MILLIS = 500;

    /** The longest lease a node accepts, in milliseconds. */
    public static final long MAX_LEASE_MILLIS = 600_000;

    /** Connections in each node's pool: Bellwether's default store pool size (3), its release watch (1), one spare. */
    static final int POOL_SIZE = 5;

    /** Lower-case SQL identifier; short enough that every table name made from it stays within 63 characters. */
    private static final Pattern TABLE_PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");

    /** The advisory lock that serializes the nodes' {@code CREATE TABLE IF NOT EXISTS}. */
    private static final long DDL_LOCK = 0x6277_7065_6572L;

    private static final String USAGE = " ID JDBC_URL TABLE_PREFIX LEASE_MILLIS";

    private LeaseNodes() {}

    /**
     * Drops every table of the connection's current schema whose name starts with {@code tablePrefix}.
     *
     * @param jdbcUrl where the tables are, with credentials in the URL
     * @param tablePrefix the prefix the nodes were given (a lower-case SQL identifier)
     * @throws IllegalArgumentException if {@code tablePrefix} is not a lower-case SQL identifier
     * @throws IllegalStateException if the database fails
     */
    public static void dropTables(String jdbcUrl, String tablePrefix) {
        checkTablePrefix(tablePrefix);
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            List<String> tables = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables"
                            + " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    // Filtered here rather than with LIKE, where the prefix's underscores would be wildcards.
                    if (name.startsWith(tablePrefix)) {
                        tables.add(name);
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                for (String table : tables) {
                    s.execute("DROP TABLE IF EXISTS " + quoteIdentifier(table));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("dropping the tables of prefix '" + tablePrefix + "' failed: " + e, e);
        }
    }

    /** {@code name} as a quoted SQL identifier: in double quotes, each double quote in it doubled. */
    static String quoteIdentifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    private static String checkTablePrefix(String tablePrefix) {
        if (tablePrefix == null || !TABLE_PREFIX.matcher(tablePrefix).matches()) {
            throw new IllegalArgumentException("TABLE_PREFIX must be a lower-case SQL identifier: 1-40 characters of"
                    + " a-z, 0-9 and '_', starting with a letter; was '" + tablePrefix + "'");
        }
        return tablePrefix;
    }

    /**
     * A node's arguments.
     *
     * @param id the node's id
     * @param jdbcUrl the PostgreSQL database
     * @param tablePrefix what the names of the node's tables begin with
     * @param lease the lease duration
     */
    record NodeArgs(String id, String jdbcUrl, String tablePrefix, Duration lease) {
        /**
         * Parses {@code ID JDBC_URL TABLE_PREFIX LEASE_MILLIS}.
         *
         * @throws IllegalArgumentException naming the argument that is wrong and what is allowed
         */
        static NodeArgs parse(String[] args) {
            if (args.length != 4) {
                throw new IllegalArgumentException("expected 4 arguments, got " + args.length);
            }
            String id = args[0];
            if (!NodeId.isValid(id)) {
                throw new IllegalArgumentException(
                        "ID must be 1-64 characters of letters, digits, '.', '_' and '-'; was '" + id + "'");
            }
            String url = args[1];
            if (!url.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("JDBC_URL must be a PostgreSQL URL (jdbc:postgresql://host:port/db"
                        + "?user=...); was '" + url + "'");
            }
            String prefix = checkTablePrefix(args[2]);
            long millis;
            try {
                millis = Long.parseLong(args[3]);
            } catch (NumberFormatException e) {
                millis = -1;
            }
            if (millis < MIN_LEASE_MILLIS || millis > MAX_LEASE_MILLIS) {
                throw new IllegalArgumentException(String.format(
                        Locale.ROOT,
                        "LEASE_MILLIS must be a whole number from %d to %d; was '%s'",
                        MIN_LEASE_MILLIS,
                        MAX_LEASE_MILLIS,
                        args[3]));
            }
            return new NodeArgs(id, url, prefix, Duration.ofMillis(millis));
        }
    }

    /** A running election of one node. */
    interface Node {
        /** Stops the election gracefully, giving the leadership up if this node holds it. */
        void stop();
    }

    /** What a node main starts once its pool is up: its election, running. */
    @FunctionalInterface
    interface Starter {
        /**
         * Creates the node's tables if absent (with {@link #createTable}) and starts its election.
         *
         * @param args the node's arguments
         * @param pool the pool, for the tables: statements run on it are not counted
         * @param counted the pool as the election must use it, counting statements
         * @param events where the election reports leadership
         */
        Node start(NodeArgs args, DataSource pool, DataSource counted, Events events) throws Exception;
    }

    /**
     * Runs {@code ddl}, a {@code CREATE TABLE IF NOT EXISTS}, under a transaction-scoped advisory lock: two
     * PostgreSQL sessions creating one table at once can otherwise fail on the catalog's unique index.
     */
    static void createTable(DataSource pool, String ddl) throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(" + DDL_LOCK + ")");
                s.execute(ddl);
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /**
     * The protocol lines a node prints. A {@code leader} line is printed only when this node was not leading and a
     * {@code follower} line only when it was, so the lines alternate whatever the system's callbacks repeat.
     * Thread-safe.
     */
    static final class Events {
        private final PrintStream out;
        private boolean leading;

        Events(PrintStream out) {
            this.out = out;
        }

        /** This node became leader: prints {@code bw-peer leader NANOS} unless it already leads. */
        synchronized void leader() {
            long nanos = wallNanos();
            if (!leading) {
                leading = true;
                print("leader " + nanos);
            }
        }

        /** This node stopped leading: prints {@code bw-peer follower NANOS} if it was leading. */
        synchronized void follower() {
            long nanos = wallNanos();
            if (leading) {
                leading = false;
                print("follower " + nanos);
            }
        }

        /** Whether this node leads, as its last {@link #leader()} or {@link #follower()} said. */
        synchronized boolean leading() {
            return leading;
        }

        void ready(String id) {
            print("ready " + id);
        }

        void statements(long total) {
            print("statements " + total);
        }

        private void print(String line) {
            synchronized (out) {
                out.println("bw-peer " + line);
                out.flush();
            }
        }

        private static long wallNanos() {
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
    }

    /**
     * The whole life of a node main: parses {@code argv} (exit {@value #BAD_ARGUMENTS} if it is wrong), opens the
     * pool, starts the election with {@code starter} (exit 1 if that fails), prints {@code ready} and then the
     * statement count once a second, and on SIGTERM stops the election and closes the pool. Returns only once the
     * JVM is shutting down.
     */
    static void run(Class<?> main, String[] argv, Starter starter) {
        String name = main.getSimpleName();
        configureLogging();
        NodeArgs args;
        try {
            args = NodeArgs.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(name + ": " + e.getMessage());
            System.err.println("usage: " + main.getName() + USAGE);
            System.exit(BAD_ARGUMENTS);
            return;
        }
        HikariDataSource pool;
        Node node;
        CountingDataSource counted;
        Events events = new Events(System.out);
        try {
            pool = pool(args);
        } catch (RuntimeException e) {
            // Without the query string, which may carry a password.
            String where = args.jdbcUrl().replaceFirst("\\?.*", "");
            System.err.println(name + " " + args.id() + ": cannot open a pool on " + where + ": " + e);
            System.exit(1);
            return;
        }
        counted = CountingDataSource.wrap(pool);
        try {
            node = starter.start(args, pool, counted.dataSource(), events);
        } catch (Exception e) {
            System.err.println(name + " " + args.id() + ": cannot start: " + e);
            e.printStackTrace();
            pool.close();
            System.exit(1);
            return;
        }
        events.ready(args.id());
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bw-peer-statements");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(() -> events.statements(counted.statements()), 1, 1, TimeUnit.SECONDS);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            ticker.shutdownNow();
                            try {
                                node.stop();
                            } finally {
                                pool.close();
                                stopped.countDown();
                            }
                        },
                        "bw-peer-stop"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Role changes at INFO with times, on standard error (the server module's {@code simplelogger.properties} says
     * WARN, for its simulations); the pool at WARN. A {@code -D} on the command line wins.
     */
    private static void configureLogging() {
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", "info");
        setDefault("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static HikariDataSource pool(NodeArgs args) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.jdbcUrl());
        config.setPoolName("bw-peer-" + args.id());
        config.setMaximumPoolSize(POOL_SIZE);
        return new HikariDataSource(config);
    }
}
