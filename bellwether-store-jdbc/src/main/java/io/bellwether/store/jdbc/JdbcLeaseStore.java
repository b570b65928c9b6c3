package io.bellwether.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException.Problem;
import io.bellwether.spi.LeaseStoreSupport;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseStore} in one SQL table, {@code (grp PRIMARY KEY, holder, token, expires_at)}, one row per
 * election group; many groups share a table. PostgreSQL, MySQL/MariaDB and H2 are supported, chosen from the
 * JDBC URL, or, on an application's {@link DataSource}, from the database its first connection reports. Each
 * operation is one atomic statement that computes "now" on the database server (expiry is kept as
 * epoch milliseconds of the database's clock, so JVM clocks and time zones never matter); the statements are
 * documented in {@code docs/lease-stores.md}.
 *
 * <p><b>Connections.</b> Built from a {@linkplain Builder#url URL}, the store keeps its own connection pool
 * (HikariCP) and closes it in {@link #close()}; the URL's JDBC driver must be on the class path (the drivers are
 * the application's dependencies, not this module's). Built on the application's {@linkplain Builder#dataSource
 * DataSource}, it borrows a connection for each operation and gives it back as it got it (auto-commit and network
 * timeout restored), and never closes the DataSource: the pool stays the application's. On PostgreSQL it then keeps
 * one of the DataSource's connections for {@code LISTEN} while a release watch is open (see below).
 *
 * <p>Blocking JDBC calls run on the store's own small pool of daemon threads ({@link Builder#poolSize}), so the
 * returned stages never block the caller. Every operation completes within the request timeout: if the database
 * does not answer in time the stage completes exceptionally with a {@link JdbcLeaseStoreException} of problem
 * {@link Problem#TIMEOUT}. All failures are {@link JdbcLeaseStoreException}s whose message names the store and
 * what to do.
 *
 * <p>The store connects lazily: {@link Builder#build()} never touches the database, so a node can start while
 * the database is down (on a DataSource, the database's kind is known from the first connection on). On the first successful connection it creates the table if asked to and checks the
 * table's shape (columns, types, primary key); a missing or misshapen table fails every operation with
 * {@link Problem#SCHEMA} until it is fixed.
 *
 * <p>PostgreSQL pushes releases ({@code pg_notify} in the releasing statement, {@code LISTEN} on a dedicated
 * connection: a connection of its own with a URL, one held from the DataSource otherwise, {@code UNLISTEN}ed before
 * it goes back); MySQL/MariaDB and H2 do not, and their contenders poll.
 *
 * <p>Thread-safe.
 */
public final class JdbcLeaseStore implements LeaseStore {
    private static final Logger log = LoggerFactory.getLogger(JdbcLeaseStore.class);

    /** Default table name. */
    public static final String DEFAULT_TABLE = "bellwether_lease";
    /** Default number of pooled connections. */
    public static final int DEFAULT_POOL_SIZE = 3;
    /** Default bound on every operation. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(2);

    private static final int ATTEMPTS = 3;
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    private final String table;
    /** Known from the URL; on an application's DataSource, learnt from its first connection. */
    private volatile Dialect dialect;

    private volatile String description;
    /** What {@link #describe()} says of the application's DataSource before and after its database is known. */
    private final String dataSourceDescription;

    private final boolean createSchema;
    private final Duration requestTimeout;
    /** Where connections come from: the store's own pool, or the application's DataSource. */
    private final DataSource dataSource;
    /** The store's own pool, closed with it; null on the application's DataSource, which the store never closes. */
    private final HikariDataSource ownPool;

    private final ThreadPoolExecutor executor;
    private final ScheduledExecutorService timer;
    /** Opens the connection that LISTENs (PostgreSQL). */
    private final PgReleaseListener.ConnectionSource listenerConnections;

    private final Object listenerLock = new Object();
    private PgReleaseListener listener;
    private volatile boolean schemaReady;
    /** Whether the table has {@link Dialect#PRIORITY_COLUMNS}; known once the schema is ready. */
    private volatile boolean priorityColumns;

    private volatile boolean closed;

    private JdbcLeaseStore(Builder b) {
        this.table = b.table;
        this.createSchema = b.createSchema;
        this.requestTimeout = b.requestTimeout;
        if (b.dataSource != null) {
            this.dialect = null;
            this.dataSourceDescription = "DataSource " + b.dataSource.getClass().getSimpleName() + " table " + table;
            this.description = dataSourceDescription;
            this.dataSource = b.dataSource;
            this.ownPool = null;
            this.listenerConnections = b.dataSource::getConnection;
        } else {
            String url = b.effectiveUrl();
            this.dataSourceDescription = null;
            this.dialect = Dialect.forUrl(url, table);
            this.description = dialect.family() + " " + JdbcUrls.location(url) + " table " + table;
            this.ownPool = pool(b, url);
            this.dataSource = ownPool;
            Properties listenerProperties = new Properties();
            if (b.user != null) {
                listenerProperties.setProperty("user", b.user);
            }
            if (b.password != null) {
                listenerProperties.setProperty("password", b.password);
            }
            this.listenerConnections = () -> DriverManager.getConnection(url, listenerProperties);
        }

        this.executor = new ThreadPoolExecutor(
                b.poolSize,
                b.poolSize,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                LeaseStoreSupport.daemonThreads("bellwether-jdbc-" + b.table));
        executor.allowCoreThreadTimeOut(true);
        this.timer = Executors.newSingleThreadScheduledExecutor(
                LeaseStoreSupport.daemonThreads("bellwether-jdbc-timer-" + b.table));
    }

    private static HikariDataSource pool(Builder b, String url) {
        long timeoutMillis = b.requestTimeout.toMillis();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (b.user != null) {
            config.setUsername(b.user);
        }
        if (b.password != null) {
            config.setPassword(b.password);
        }
        config.setPoolName("bellwether-lease-" + b.table);
        config.setMaximumPoolSize(b.poolSize);
        config.setMinimumIdle(1);
        // Never connect in the constructor: a node must start (and report "unreachable") while the database
        // is down. Leave some of the request timeout for the statement itself, and let Hikari's own failure
        // (which carries the driver's reason: refused, bad password, ...) surface before our deadline does.
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(Math.max(250, timeoutMillis * 3 / 4));
        config.setValidationTimeout(Math.max(250, timeoutMillis / 2));
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }

    /** The store's own connection pool's settings, credentials included (null on a DataSource): for tests. */
    HikariConfig poolConfig() {
        return ownPool;
    }

    /** Starts a builder; a {@link Builder#url} or a {@link Builder#dataSource} is the only required setting. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * The {@code CREATE TABLE} statement this store runs when schema creation is on. On a DataSource whose database
     * the store has not met yet, this borrows a connection to learn it.
     *
     * @throws JdbcLeaseStoreException if that connection fails
     */
    public String createTableStatement() {
        Dialect d = dialect;
        if (d != null) {
            return d.createTable();
        }
        try (Connection c = dataSource.getConnection()) {
            return dialect(c).createTable();
        } catch (SQLException | RuntimeException e) {
            throw translate(e);
        }
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return acquireOrRenew(group, holder, token, duration, 0);
    }

    /**
     * Records priorities in the columns {@code holder_priority}, {@code wanted_priority} and {@code wanted_until}.
     * On a table made without them (by an earlier version, with schema creation off), priority 0 runs the statement
     * without priorities and any other priority fails with {@link Problem#SCHEMA}, naming the columns and the DDL
     * that adds them.
     */
    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        LeaseStoreSupport.checkAcquireOrRenew(group, holder, duration, description);
        long millis = duration.toMillis();
        return submit((d, c) -> {
            if (priorityColumns) {
                return d.acquireOrRenew(c, group, holder, token, millis, priority);
            }
            if (priority != 0) {
                throw failure(
                        Problem.SCHEMA,
                        "table " + table + " has no priority columns ("
                                + String.join(", ", Dialect.PRIORITY_COLUMN_NAMES)
                                + "), so lease priority " + priority + " cannot be recorded: add them ("
                                + d.addPriorityColumns() + ") or turn on schema creation (create-schema: true),"
                                + " which adds them",
                        null);
            }
            return d.acquireOrRenew(c, group, holder, token, millis);
        });
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        checkName("group", group);
        checkName("holder", holder);
        return submit((d, c) -> d.release(c, group, holder, token));
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        checkName("group", group);
        return submit((d, c) -> d.read(c, group));
    }

    @Override
    public boolean canPush() {
        return dialect instanceof PostgresDialect;
    }

    /**
     * On PostgreSQL, calls {@code onRelease} from a store thread once as soon as the watch is in force (a release
     * may have happened just before it was), again whenever the connection that listens was lost and is back,
     * and on every release of the group. Elsewhere it does nothing; so does it on a DataSource whose database the
     * store has not met yet ({@link #canPush()} is false until then).
     */
    @Override
    public AutoCloseable watchReleases(String group, Runnable onRelease) {
        checkName("group", group);
        if (!(dialect instanceof PostgresDialect pg)) {
            return () -> {};
        }
        PgReleaseListener l;
        synchronized (listenerLock) {
            if (closed) {
                throw closedException();
            }
            if (listener == null) {
                listener = new PgReleaseListener(listenerConnections, pg.channel(), description);
                listener.start();
            }
            l = listener;
        }
        return l.watch(group, onRelease);
    }

    @Override
    public void close() {
        synchronized (listenerLock) {
            if (closed) {
                return;
            }
            closed = true;
            if (listener != null) {
                listener.close();
            }
        }
        executor.shutdownNow();
        timer.shutdownNow();
        if (ownPool != null) {
            ownPool.close(); // an application's DataSource stays open: it is not the store's
        }
    }

    @Override
    public String toString() {
        return "JdbcLeaseStore[" + description + "]";
    }

    // ---------------------------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Dialect dialect, Connection c) throws SQLException;
    }

    private <T> CompletionStage<T> submit(SqlWork<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(closedException());
            return result;
        }
        try {
            ScheduledFuture<?> deadline = timer.schedule(
                    () -> result.completeExceptionally(failure(
                            Problem.TIMEOUT,
                            "no answer within the request timeout of " + requestTimeout.toMillis()
                                    + " ms: check that the database runs and is reachable",
                            null)),
                    requestTimeout.toMillis(),
                    TimeUnit.MILLISECONDS);
            result.whenComplete((r, e) -> deadline.cancel(false));
            executor.execute(() -> {
                // A request that waited in the queue past its deadline has been answered already.
                if (!result.isDone()) {
                    run(work, result);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closedException());
        }
        return result;
    }

    private <T> void run(SqlWork<T> work, CompletableFuture<T> result) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = dataSource.getConnection()) {
                result.complete(onBorrowed(c, dialect(c), work));
                return;
            } catch (SQLException e) {
                // No dialect yet when the DataSource has never given a connection: nothing to retry then.
                Dialect d = dialect;
                if (attempt < ATTEMPTS && d != null && d.retryable(e) && !result.isDone()) {
                    log.debug("{}: retrying after {}", description, e.toString());
                    continue;
                }
                result.completeExceptionally(translate(e));
                return;
            } catch (JdbcLeaseStoreException e) {
                result.completeExceptionally(e);
                return;
            } catch (RuntimeException e) {
                result.completeExceptionally(closed ? closedException() : translate(e));
                return;
            }
        }
    }

    /**
     * Runs {@code work} on {@code c} with what the statements need, auto-commit and a network timeout, and gives the
     * connection back as it was lent: an application's pool may hand out connections without auto-commit (whose
     * writes a pool rolls back on return), and need not reset a network timeout.
     */
    private <T> T onBorrowed(Connection c, Dialect d, SqlWork<T> work) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        boolean timeout = d.supportsNetworkTimeout();
        int lentTimeout = timeout ? c.getNetworkTimeout() : 0;
        try {
            if (!autoCommit) {
                c.setAutoCommit(true);
            }
            if (timeout) {
                // A blackholed connection must not hold this thread for ever.
                c.setNetworkTimeout(executor, (int) requestTimeout.toMillis());
            }
            ensureSchema(c, d);
            return work.run(d, c);
        } finally {
            try {
                if (timeout) {
                    c.setNetworkTimeout(executor, lentTimeout);
                }
                if (!autoCommit) {
                    c.setAutoCommit(false);
                }
            } catch (SQLException e) {
                // A broken connection: the pool finds out and drops it; what failed above is what counts.
                log.debug("{}: could not restore a connection's settings: {}", description, e.toString());
            }
        }
    }

    /** The dialect; on a DataSource, learnt from the first connection's database. */
    private Dialect dialect(Connection c) throws SQLException {
        Dialect d = dialect;
        if (d == null) {
            String product = c.getMetaData().getDatabaseProductName();
            d = Dialect.forProduct(product, table);
            if (d == null) {
                throw failure(
                        Problem.FAILED,
                        "the DataSource's database is " + product + ", which is not supported: allowed are"
                                + " PostgreSQL, MySQL/MariaDB and H2",
                        null);
            }
            description = d.family() + " " + dataSourceDescription;
            dialect = d;
        }
        return d;
    }

    private void ensureSchema(Connection c, Dialect d) throws SQLException {
        if (schemaReady) {
            return;
        }
        SQLException createFailure = null;
        if (createSchema) {
            try (Statement s = c.createStatement()) {
                s.execute(d.createTable());
            } catch (SQLException e) {
                // Two processes creating the table at once may race inside the database; the shape check
                // below tells whether the table is there after all.
                createFailure = e;
            }
        }
        try {
            checkShape(c, d);
        } catch (JdbcLeaseStoreException e) {
            if (createFailure != null) {
                e.addSuppressed(createFailure);
            }
            throw e;
        }
        priorityColumns = priorityColumns(c, d);
        if (d instanceof H2Dialect) {
            warnIfCommitsAreDelayed(c);
        }
        schemaReady = true;
    }

    /**
     * An H2 database on disk that writes commits later ({@code WRITE_DELAY} above 0, 500 ms by default) loses its
     * last commits when the process holding the file is killed, a takeover's token increment among them: the next
     * holder could get a token handed out already. In memory the database dies with its only process.
     */
    private void warnIfCommitsAreDelayed(Connection c) {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                        + " WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            String url = c.getMetaData().getURL();
            if (rs.next()
                    && Long.parseLong(rs.getString(1).trim()) > 0
                    && url != null
                    && !url.startsWith("jdbc:h2:mem:")) {
                log.warn(
                        "{}: the H2 database writes commits up to {} ms late (WRITE_DELAY); if the process that holds"
                                + " its file is killed, lease tokens can be handed out twice. Add ;WRITE_DELAY=0 to"
                                + " the URL of an H2 file that several processes share",
                        description,
                        rs.getString(1).trim());
            }
        } catch (SQLException | NumberFormatException e) {
            log.debug("{}: could not read H2's WRITE_DELAY: {}", description, e.toString());
        }
    }

    /**
     * Whether the table has the priority columns; with schema creation on, adds those that a table made by an
     * earlier version lacks (one at a time: another process may be adding them too, which the check after tells).
     */
    private boolean priorityColumns(Connection c, Dialect d) throws SQLException {
        List<Integer> missing = TableShape.missingPriorityColumns(c, table);
        if (!missing.isEmpty() && createSchema) {
            for (int i : missing) {
                try (Statement s = c.createStatement()) {
                    s.execute(d.addPriorityColumn(i));
                    log.info("{}: added the priority column {}", description, Dialect.PRIORITY_COLUMNS.get(i));
                } catch (SQLException e) {
                    log.debug("{}: adding a priority column failed: {}", description, e.toString());
                }
            }
            missing = TableShape.missingPriorityColumns(c, table);
        }
        return missing.isEmpty();
    }

    private void checkShape(Connection c, Dialect d) throws SQLException {
        String wrong;
        try {
            wrong = TableShape.columnProblem(c, table);
        } catch (SQLException e) {
            throw translate(e);
        }
        if (wrong == null && !TableShape.grpIsKey(c, table, d instanceof MariaDbDialect)) {
            wrong = "column grp is not its primary key";
        }
        if (wrong != null) {
            throw wrongShape(wrong);
        }
    }

    private JdbcLeaseStoreException wrongShape(String what) {
        return failure(
                Problem.SCHEMA,
                "table " + table + " has the wrong shape: " + what
                        + "; expected (" + Dialect.COLUMNS
                        + "). Drop or rename it, or choose another table name (see docs/lease-stores.md)",
                null);
    }

    JdbcLeaseStoreException translate(Throwable e) {
        if (e instanceof JdbcLeaseStoreException j) {
            return j;
        }
        // Pools wrap the driver's exception (copying its SQL state); the innermost one says what happened.
        SQLException s = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && (s == null || sql.getSQLState() != null)) {
                s = sql;
            }
        }
        if (s != null) {
            String state = s.getSQLState() == null ? "" : s.getSQLState();
            int code = s.getErrorCode();
            if (state.startsWith("28") || code == 1045 || code == 1044) {
                return failure(
                        Problem.CREDENTIALS,
                        "the database rejected the credentials (" + s.getMessage()
                                + "): check the user and password in the store URL or settings",
                        e);
            }
            if (state.equals("3D000") || code == 1049) {
                return failure(
                        Problem.CREDENTIALS,
                        "the database named in the URL does not exist (" + s.getMessage()
                                + "): create it or fix the URL",
                        e);
            }
            Dialect d = dialect;
            boolean h2 = d instanceof H2Dialect;
            if (state.equals("42P01")
                    || state.equals("42S02")
                    || code == 1146
                    || (h2 && (code == 42102 || code == 42103 || code == 42104))) {
                schemaReady = false;
                return failure(
                        Problem.SCHEMA,
                        "table " + table + " does not exist: create it with the DDL in docs/lease-stores.md"
                                + (d != null ? " (" + d.createTable() + ")" : "")
                                + " or turn on schema creation (create-schema: true)",
                        e);
            }
            if (state.equals("42703") || state.equals("42S22") || code == 1054 || (h2 && code == 42122)) {
                schemaReady = false;
                return wrongShape("a column is missing (" + s.getMessage() + ")");
            }
            if (state.startsWith("08")) {
                return unreachable(s.getMessage(), e);
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof java.net.ConnectException) {
                return unreachable(t.getMessage(), e);
            }
            if (t instanceof java.net.SocketTimeoutException) {
                return failure(
                        Problem.TIMEOUT,
                        "the database stopped answering (" + t.getMessage() + "): check that it runs",
                        e);
            }
        }
        return failure(Problem.FAILED, String.valueOf(e.getMessage()), e);
    }

    private JdbcLeaseStoreException unreachable(String detail, Throwable e) {
        return failure(
                Problem.UNREACHABLE,
                "cannot reach the database (" + detail + "): check that it runs and that the URL's host and port"
                        + " are right",
                e);
    }

    private JdbcLeaseStoreException failure(Problem problem, String message, Throwable cause) {
        return new JdbcLeaseStoreException(description, problem, message, cause);
    }

    private JdbcLeaseStoreException closedException() {
        return failure(Problem.CLOSED, "the store is closed", null);
    }

    private void checkName(String what, String value) {
        LeaseStoreSupport.checkName(what, value, description);
    }

    /** Settings for a {@link JdbcLeaseStore}; validated when set, with messages naming the setting. */
    public static final class Builder {
        private String url;
        private DataSource dataSource;
        /** Where the URL's driver must be found; tests replace it with one that has none. */
        ClassLoader drivers = Builder.class.getClassLoader();

        private String user;
        private String password;
        private String table = DEFAULT_TABLE;
        private boolean createSchema;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;

        private Builder() {}

        /**
         * The JDBC URL: {@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:} or {@code jdbc:h2:}.
         * Credentials may be in it ({@code ?user=...&password=...}) or set separately. The store keeps its own
         * connection pool for it, and needs the database's JDBC driver on the class path ({@link #build()} names
         * the one that is missing). Required unless a {@link #dataSource} is given.
         */
        public Builder url(String url) {
            if (url == null || url.isBlank()) {
                throw new IllegalArgumentException("store url must be a JDBC URL, got " + url);
            }
            Dialect.forUrl(url, DEFAULT_TABLE); // rejects unsupported databases now, naming the URL
            this.url = url;
            return this;
        }

        /**
         * The application's {@code DataSource} (typically its connection pool), instead of a {@link #url}: the store
         * borrows a connection per operation (at most {@link #poolSize} at once, one more held for {@code LISTEN}
         * on PostgreSQL while a release watch is open), gives each back with the settings it was lent with, and
         * never closes the DataSource. PostgreSQL, MySQL/MariaDB and H2 are recognised from the first connection.
         */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** The database user, overriding one in the URL. */
        public Builder user(String user) {
            this.user = user;
            return this;
        }

        /** The database password, overriding one in the URL. */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /**
         * The lease table (default {@code bellwether_lease}): an unquoted SQL identifier, optionally
         * schema-qualified ({@code schema.table}), at most 63 characters.
         */
        public Builder table(String table) {
            if (table == null || !IDENTIFIER.matcher(table).matches() || table.length() > 63) {
                throw new IllegalArgumentException("table must be an SQL identifier (letters, digits and '_', not"
                        + " starting with a digit, optionally 'schema.table', at most 63 characters), got '"
                        + table + "'");
            }
            this.table = table;
            return this;
        }

        /** Whether to run {@code CREATE TABLE IF NOT EXISTS} on first connection (default false). */
        public Builder createSchema(boolean createSchema) {
            this.createSchema = createSchema;
            return this;
        }

        /**
         * Worker threads, and the connections of the store's own pool (with a {@link #url}) or those it borrows at
         * once from a {@link #dataSource}: 1 to 16 (default 3).
         */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1 || poolSize > 16) {
                throw new IllegalArgumentException("pool size must be 1 to 16, got " + poolSize);
            }
            this.poolSize = poolSize;
            return this;
        }

        /**
         * The longest any operation may take before it completes exceptionally, 100 ms to 60 s (default 2 s).
         * Keep it below the lease's renew deadline.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = LeaseStoreSupport.requestTimeout(requestTimeout);
            return this;
        }

        /**
         * Creates the store; connects to nothing yet.
         *
         * @throws IllegalArgumentException if neither or both of a URL and a DataSource are given, if a user or
         *     password comes with a DataSource (it carries its own), or if the URL's JDBC driver is not on the
         *     class path (naming it and the Maven dependency to add)
         */
        public JdbcLeaseStore build() {
            if (dataSource != null) {
                if (url != null) {
                    throw new IllegalArgumentException("store url and dataSource are both set: allowed one of them");
                }
                if (user != null || password != null) {
                    throw new IllegalArgumentException("user and password apply to a store url: a dataSource"
                            + " connects with its own credentials");
                }
                return new JdbcLeaseStore(this);
            }
            if (url == null) {
                throw new IllegalArgumentException("store url or dataSource is required (a jdbc:postgresql:,"
                        + " jdbc:mariadb:, jdbc:mysql: or jdbc:h2: URL, or the application's DataSource)");
            }
            JdbcDrivers.require(url, drivers);
            return new JdbcLeaseStore(this);
        }

        private String effectiveUrl() {
            // Without MySQL's own driver on the class path, MariaDB's serves jdbc:mysql: URLs if told to.
            if (url.toLowerCase(Locale.ROOT).startsWith("jdbc:mysql:") && !mysqlDriverPresent()) {
                return url + (url.contains("?") ? "&" : "?") + "permitMysqlScheme";
            }
            return url;
        }

        private boolean mysqlDriverPresent() {
            return JdbcDrivers.present(JdbcDrivers.MYSQL, drivers);
        }
    }
}
