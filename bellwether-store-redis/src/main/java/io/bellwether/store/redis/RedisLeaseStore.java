package io.bellwether.store.redis;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException.Problem;
import io.bellwether.spi.LeaseStoreSupport;
import io.bellwether.spi.ReleaseWatchers;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseStore} on Redis (Lettuce, asynchronous API). Each group's lease is a hash {@code
 * <prefix><group>} with fields {@code holder}, {@code token} and {@code expires} (epoch milliseconds on the Redis
 * server's clock). The hash has no TTL and is never deleted; expiry is decided by the scripts against {@code
 * TIME}, never by key eviction. Every operation is one Lua script (sent by {@code EVALSHA}, falling back to {@code
 * EVAL} when the server does not know it yet), which Redis runs atomically.
 *
 * <p><b>Tokens never go backwards, even when Redis forgets them.</b> A takeover's token is {@code max(previous +
 * 1, serverMillis × 16)}, {@code serverMillis} being the server's {@code TIME} in epoch milliseconds: the clock in
 * the high bits, and four low bits that count takeovers within one millisecond (a seventeenth borrows from the
 * next millisecond; tokens stay unique and increasing). A server that has lost the hash (restarted without
 * persistence, lost its last writes, or a replica that missed them was promoted) therefore still issues tokens
 * above every token issued before, <em>provided its clock reads later than the clock of the server that issued
 * the last token read when it issued it</em>. That holds when the server's clock is not stepped back across a
 * restart, and when replicas' clocks are synchronised (NTP) to well within the time a failover takes. Tokens stay
 * below {@code 2^47}, the elector's counter range, until the year 2248; a server whose clock is beyond that fails
 * the takeover with an error naming its clock. See {@code docs/lease-stores.md}.
 *
 * <p>A release publishes the group's name on {@code <prefix>released:<group>} from inside the releasing script;
 * {@link #watchReleases} subscribes to it on a dedicated pub/sub connection.
 *
 * <p><b>Connections.</b> Built from a {@linkplain Builder#uri URI}, the store has a Lettuce client of its own and
 * shuts it down in {@link #close()}. On the application's {@linkplain Builder#client client} it opens its own two
 * connections from it (commands, pub/sub) and closes only those. On the application's {@linkplain
 * Builder#connection connection} it runs its scripts there and never closes it; a connection cannot subscribe, so
 * releases are pushed only if a client is given as well (for the pub/sub connection): with a connection alone,
 * {@link #canPush()} is false and contenders notice a release at their next poll (the lease's {@code retry}).
 *
 * <p>The store connects lazily and reconnects by itself, so it can be built while Redis is down. Every operation
 * completes within the request timeout; failures are {@link RedisLeaseStoreException}s whose message names the
 * store (never a password) and what to do. Thread-safe.
 */
public final class RedisLeaseStore implements LeaseStore {
    private static final Logger log = LoggerFactory.getLogger(RedisLeaseStore.class);

    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "bellwether:lease:";
    /** Default bound on every operation. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(2);

    private static final Script ACQUIRE = Script.load("acquire.lua");
    private static final Script RELEASE = Script.load("release.lua");
    private static final Script READ = Script.load("read.lua");

    /** Where the store's own connections go; null for the application client's default URI. */
    private final RedisURI uri;

    private final String keyPrefix;
    private final String description;
    private final Duration requestTimeout;
    /** The store's own client's resources; null on the application's client or connection. */
    private final ClientResources resources;
    /** The store's own client or the application's; null with the application's connection alone. */
    private final RedisClient client;
    /** Whether {@link #client} is the store's own, to shut down in {@link #close()}. */
    private final boolean ownClient;
    /** The application's connection, which commands run on and the store never closes; or null. */
    private final StatefulRedisConnection<String, String> lent;
    /** Opens connections through an application's client to its default URI (a blocking call). */
    private final ExecutorService connector;

    private final ScheduledExecutorService timer;
    private final ExecutorService callbacks;
    private final ReleaseWatchers watches;
    private final Object lock = new Object();
    private CompletableFuture<StatefulRedisConnection<String, String>> connection;
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub;
    private boolean pubSubReady;
    private boolean closed;

    private RedisLeaseStore(Builder b) {
        this.keyPrefix = b.keyPrefix;
        this.requestTimeout = b.requestTimeout;
        this.lent = b.connection;
        if (b.client != null || b.connection != null) {
            this.uri = b.uri;
            this.resources = null;
            this.client = b.client;
            this.ownClient = false;
            String where = uri != null
                    ? uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase()
                    : b.connection != null ? "(application connection)" : "(application client)";
            this.description = "redis " + where + " prefix " + keyPrefix;
        } else {
            this.uri = b.uri;
            uri.setTimeout(requestTimeout);
            this.description =
                    "redis " + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase() + " prefix " + keyPrefix;
            this.resources = DefaultClientResources.builder()
                    .ioThreadPoolSize(2)
                    .computationThreadPoolSize(2)
                    .build();
            this.client = RedisClient.create(resources, uri);
            this.ownClient = true;
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    // Fail at once while disconnected instead of queueing requests that would all time out.
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(requestTimeout))
                    .socketOptions(SocketOptions.builder()
                            .connectTimeout(requestTimeout)
                            .keepAlive(true)
                            .build())
                    .build());
        }
        ThreadPoolExecutor connecting = new ThreadPoolExecutor(
                1,
                1,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                LeaseStoreSupport.daemonThreads("bellwether-redis-connect"));
        connecting.allowCoreThreadTimeOut(true);
        this.connector = connecting;
        this.timer =
                Executors.newSingleThreadScheduledExecutor(LeaseStoreSupport.daemonThreads("bellwether-redis-timer"));
        this.callbacks = Executors.newSingleThreadExecutor(LeaseStoreSupport.daemonThreads("bellwether-redis-wake"));
        this.watches = new ReleaseWatchers(callbacks);
    }

    /** Starts a builder; a {@link Builder#uri}, {@link Builder#client} or {@link Builder#connection} is required. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String describe() {
        return description;
    }

    /** The hash holding {@code group}'s lease. */
    public String key(String group) {
        return keyPrefix + group;
    }

    /** The channel a release of {@code group} is published on. */
    public String releaseChannel(String group) {
        return keyPrefix + "released:" + group;
    }

    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
        return acquireOrRenew(group, holder, token, duration, 0);
    }

    /**
     * Records the holder's priority in the hash's field {@code priority} and a waiting contender's claim in {@code
     * wanted_priority} and {@code wanted_until}; fields that are absent read as 0, so a hash written by an earlier
     * version needs nothing.
     */
    @Override
    public CompletionStage<LeaseRecord> acquireOrRenew(
            String group, String holder, long token, Duration duration, int priority) {
        LeaseStoreSupport.checkAcquireOrRenew(group, holder, duration, description);
        return run(
                        ACQUIRE,
                        key(group),
                        holder,
                        Long.toString(token),
                        Long.toString(duration.toMillis()),
                        Integer.toString(priority))
                .thenApply(RedisLeaseStore::record);
    }

    @Override
    public CompletionStage<Boolean> release(String group, String holder, long token) {
        checkName("group", group);
        checkName("holder", holder);
        return run(RELEASE, key(group), holder, Long.toString(token), releaseChannel(group), group)
                .thenApply(r -> ((Long) r.get(0)) == 1L);
    }

    @Override
    public CompletionStage<Optional<LeaseRecord>> read(String group) {
        checkName("group", group);
        return run(READ, key(group)).thenApply(r -> r.isEmpty() ? Optional.empty() : Optional.of(record(r)));
    }

    /** True unless the store was given the application's connection alone (it cannot subscribe on it). */
    @Override
    public boolean canPush() {
        return client != null;
    }

    /**
     * Calls {@code onRelease} from a store thread once as soon as the subscription is in force (a release may have
     * happened just before), again whenever it is re-established after a lost connection, and on every release
     * of the group. Does nothing on the application's connection alone ({@link #canPush()} is false).
     */
    @Override
    public AutoCloseable watchReleases(String group, Runnable onRelease) {
        checkName("group", group);
        if (!canPush()) {
            return () -> {};
        }
        String channel = releaseChannel(group);
        ReleaseWatchers.Watcher w;
        synchronized (lock) {
            if (closed) {
                throw closedException();
            }
            w = watches.add(channel, onRelease);
            CompletableFuture<StatefulRedisPubSubConnection<String, String>> ps = pubSub();
            if (pubSubReady) {
                // Subscribing again to a subscribed channel is harmless; its confirmation wakes the new watcher.
                ps.join().async().subscribe(channel);
            } // else the connection, once up, subscribes every watched channel.
        }
        return () -> {
            synchronized (lock) {
                if (watches.remove(channel, w)) {
                    if (pubSub != null && !closed) {
                        pubSub.thenAccept(c -> c.async().unsubscribe(channel));
                    }
                }
            }
        };
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        callbacks.shutdownNow();
        timer.shutdownNow();
        connector.shutdownNow();
        if (!ownClient) {
            // The application's client or connection stays open; only what the store opened from it is closed.
            CompletableFuture<Void> closing = CompletableFuture.allOf(closeOpened(connection), closeOpened(pubSub));
            // Waited for (briefly): the application may shut its client down right after, and a client closing a
            // connection that is still closing logs it as already closed.
            try {
                closing.get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                log.debug("{}: closing its connections did not end in time", description, e);
            }
            return;
        }
        try {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } catch (RuntimeException e) {
            log.debug("{}: closing the client failed", description, e);
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /**
     * Closes a connection the store opened (once it is open, if it is still opening); completes when it is closed,
     * or at once if it never opened.
     */
    private CompletableFuture<Void> closeOpened(
            CompletableFuture<? extends StatefulConnection<String, String>> opened) {
        if (opened == null) {
            return CompletableFuture.completedFuture(null);
        }
        return opened.handle((c, error) -> c)
                .thenCompose(c -> c == null ? CompletableFuture.completedFuture(null) : c.closeAsync());
    }

    @Override
    public String toString() {
        return "RedisLeaseStore[" + description + "]";
    }

    // ---------------------------------------------------------------------------------------------------------

    private CompletableFuture<List<Object>> run(Script script, String key, String... args) {
        CompletableFuture<List<Object>> result = new CompletableFuture<>();
        ScheduledFuture<?> deadline;
        try {
            deadline = timer.schedule(
                    () -> result.completeExceptionally(new RedisLeaseStoreException(
                            description,
                            Problem.TIMEOUT,
                            "no answer within the request timeout of " + requestTimeout.toMillis()
                                    + " ms: check that Redis runs and is reachable",
                            null)),
                    requestTimeout.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closedException());
            return result;
        }
        result.whenComplete((r, e) -> deadline.cancel(false));
        String[] keys = {key};
        connection()
                .thenCompose(c -> c.async()
                        .<List<Object>>evalsha(script.sha1(), ScriptOutputType.MULTI, keys, args)
                        .toCompletableFuture()
                        .handle((r, e) -> {
                            if (e == null) {
                                return CompletableFuture.completedFuture(r);
                            }
                            if (unwrap(e) instanceof RedisNoScriptException) {
                                // First use on this server (or after SCRIPT FLUSH): EVAL also caches it.
                                return c.async()
                                        .<List<Object>>eval(script.body(), ScriptOutputType.MULTI, keys, args)
                                        .toCompletableFuture();
                            }
                            return CompletableFuture.<List<Object>>failedFuture(e);
                        })
                        .thenCompose(f -> f))
                .whenComplete((r, e) -> {
                    if (e == null) {
                        result.complete(r);
                    } else {
                        result.completeExceptionally(translate(e));
                    }
                });
        return result;
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> connection() {
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(closedException());
            }
            if (lent != null) {
                return CompletableFuture.completedFuture(lent);
            }
            // Once connected, Lettuce reconnects by itself; only a failed first connection is tried afresh.
            if (connection == null || connection.isCompletedExceptionally()) {
                connection = uri != null
                        ? client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture()
                        : CompletableFuture.supplyAsync(() -> client.connect(StringCodec.UTF8), connector);
            }
            return connection;
        }
    }

    /** Caller holds {@link #lock}. */
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub() {
        if (pubSub == null || pubSub.isCompletedExceptionally()) {
            pubSubReady = false;
            pubSub = uri != null
                    ? client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture()
                    : CompletableFuture.supplyAsync(() -> client.connectPubSub(StringCodec.UTF8), connector);
            pubSub.whenComplete((c, e) -> {
                if (e != null) {
                    log.warn(
                            "{}: cannot subscribe to releases ({}); retrying",
                            description,
                            translate(e).getMessage());
                    retrySubscriptions();
                    return;
                }
                c.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        watches.wake(channel);
                    }

                    @Override
                    public void subscribed(String channel, long count) {
                        // Also called when Lettuce resubscribes after a reconnection: a release may have been missed.
                        watches.wake(channel);
                    }
                });
                synchronized (lock) {
                    pubSubReady = true;
                    for (String channel : watches.keys()) {
                        c.async().subscribe(channel);
                    }
                }
            });
        }
        return pubSub;
    }

    private void retrySubscriptions() {
        try {
            timer.schedule(
                    () -> {
                        synchronized (lock) {
                            if (!closed && !watches.isEmpty()) {
                                pubSub();
                            }
                        }
                    },
                    1,
                    TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    private static LeaseRecord record(List<Object> r) {
        if (r.size() >= 6) {
            return new LeaseRecord(
                    (String) r.get(0),
                    (Long) r.get(1),
                    (Long) r.get(2),
                    (Long) r.get(3),
                    (int) (long) (Long) r.get(4),
                    (Long) r.get(5));
        }
        return new LeaseRecord((String) r.get(0), (Long) r.get(1), (Long) r.get(2), (Long) r.get(3));
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    RedisLeaseStoreException translate(Throwable error) {
        Throwable e = unwrap(error);
        if (e instanceof RedisLeaseStoreException r) {
            return r;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("WRONGPASS") || message.contains("NOAUTH") || message.contains("AUTH")) {
                return new RedisLeaseStoreException(
                        description,
                        Problem.CREDENTIALS,
                        "Redis rejected the credentials (" + message + "): check the user and password in the"
                                + " store URI (redis://user:password@host:port)",
                        e);
            }
            if (message.contains("WRONGTYPE")) {
                return new RedisLeaseStoreException(
                        description,
                        Problem.SCHEMA,
                        "a lease key under prefix '" + keyPrefix + "' holds a value that is not a lease hash ("
                                + message + "): other data uses this prefix; choose another key prefix",
                        e);
            }
        }
        if (e instanceof RedisCommandTimeoutException || e instanceof TimeoutException) {
            return new RedisLeaseStoreException(
                    description,
                    Problem.TIMEOUT,
                    "no answer within the request timeout of " + requestTimeout.toMillis()
                            + " ms: check that Redis runs and is reachable",
                    e);
        }
        if (e instanceof RedisConnectionException
                || e instanceof IOException
                || String.valueOf(e.getMessage()).contains("not connected")) {
            return new RedisLeaseStoreException(
                    description,
                    Problem.UNREACHABLE,
                    "cannot reach Redis (" + e.getMessage() + "): check that it runs and that the URI's host and"
                            + " port are right",
                    e);
        }
        if (e instanceof RedisCommandExecutionException) {
            return new RedisLeaseStoreException(description, Problem.FAILED, e.getMessage(), e);
        }
        return new RedisLeaseStoreException(description, Problem.FAILED, String.valueOf(e), e);
    }

    private RedisLeaseStoreException closedException() {
        return new RedisLeaseStoreException(description, Problem.CLOSED, "the store is closed", null);
    }

    private void checkName(String what, String value) {
        LeaseStoreSupport.checkName(what, value, description);
    }

    /** A Lua script from this package's resources, with its SHA-1 for EVALSHA. */
    private record Script(String body, String sha1) {
        static Script load(String name) {
            try (InputStream in = RedisLeaseStore.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("missing script resource " + name);
                }
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
                return new Script(body, HexFormat.of().formatHex(digest));
            } catch (IOException | NoSuchAlgorithmException e) {
                throw new IllegalStateException("cannot load script " + name, e);
            }
        }
    }

    /** The URI with whatever precedes the host ({@code user:password@} or {@code password@}) replaced by ***. */
    static String redact(String uri) {
        return uri.replaceAll("//[^/@]*@", "//***@");
    }

    /** The URI the store connects with, credentials included: for tests. */
    RedisURI uri() {
        return uri;
    }

    /** Settings for a {@link RedisLeaseStore}; validated when set, with messages naming the setting. */
    public static final class Builder {
        private RedisURI uri;
        private RedisClient client;
        private StatefulRedisConnection<String, String> connection;
        private String username;
        private char[] password;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;

        private Builder() {}

        /** The Redis user (an ACL user, Redis 6 and later), overriding one in the URI; needs {@link #password}. */
        public Builder username(String username) {
            if (username == null || username.isEmpty() || !username.matches("\\S+")) {
                throw new IllegalArgumentException(
                        "username must be a non-empty name without whitespace, got '" + username + "'");
            }
            this.username = username;
            return this;
        }

        /**
         * The password (with {@link #username}, of that user; else of the default user), overriding one in the URI.
         * The builder keeps a copy; the store never shows it.
         */
        public Builder password(CharSequence password) {
            if (password == null || password.length() == 0) {
                throw new IllegalArgumentException("password must not be empty");
            }
            this.password = password.toString().toCharArray();
            return this;
        }

        /**
         * The Redis URI, e.g. {@code redis://127.0.0.1:6379} or {@code redis://user:pw@host:6379/2}: alone, the store
         * connects with a Lettuce client of its own; with {@link #client}, it connects there through the
         * application's client. Required unless a client or a connection is given.
         */
        public Builder uri(String uri) {
            if (uri == null || !(uri.startsWith("redis://") || uri.startsWith("rediss://"))) {
                throw new IllegalArgumentException("store uri must be a redis:// or rediss:// URI, got "
                        + (uri == null ? null : "'" + redact(uri) + "'"));
            }
            try {
                this.uri = RedisURI.create(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "store uri '" + redact(uri) + "' is not a valid Redis URI: " + e.getMessage(), e);
            }
            return this;
        }

        /**
         * The application's Lettuce client: the store opens its own command and pub/sub connections from it (to
         * the client's default URI, or to {@link #uri} if given) and closes only those, never the client. The
         * client's options (timeouts, reconnection) apply; the store still bounds each operation by {@link
         * #requestTimeout}.
         */
        public Builder client(RedisClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * The application's connection (String keys and values), which the store runs its scripts on and never
         * closes. A connection cannot subscribe: with a {@link #client} as well, the store opens its pub/sub
         * connection from that client; with a connection alone, releases are not pushed ({@link #canPush()} is
         * false) and contenders notice one at their next poll.
         */
        public Builder connection(StatefulRedisConnection<String, String> connection) {
            this.connection = Objects.requireNonNull(connection, "connection");
            return this;
        }

        /**
         * The prefix of every key and channel (default {@code bellwether:lease:}): 1 to 100 characters, no
         * whitespace.
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isEmpty() || keyPrefix.length() > 100 || !keyPrefix.matches("\\S+")) {
                throw new IllegalArgumentException(
                        "key prefix must be 1 to 100 characters without whitespace, got " + keyPrefix);
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** The longest any operation may take, 100 ms to 60 s (default 2 s). Keep it below the renew deadline. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = LeaseStoreSupport.requestTimeout(requestTimeout);
            return this;
        }

        /**
         * Creates the store; connects to nothing yet.
         *
         * @throws IllegalArgumentException if none of a URI, client and connection is given, if a URI comes with a
         *     connection but no client, or credentials without a URI
         */
        public RedisLeaseStore build() {
            if (uri == null && client == null && connection == null) {
                throw new IllegalArgumentException("store uri, client or connection is required (a redis:// URI, or"
                        + " the application's Lettuce RedisClient or StatefulRedisConnection)");
            }
            if (uri != null && connection != null && client == null) {
                throw new IllegalArgumentException("store uri is given with a connection: allowed with a client (the"
                        + " store connects there through it), or leave the uri out");
            }
            if (uri == null && (username != null || password != null)) {
                throw new IllegalArgumentException("username and password apply to a store uri: the application's"
                        + " client or connection authenticates itself");
            }
            if (username != null && password == null) {
                throw new IllegalArgumentException("username '" + username + "' is given without a password: Redis"
                        + " authenticates a user by its password");
            }
            if (password != null) {
                // A copy: the store sets its own timeout on its URI, and the caller's may be reused.
                RedisURI.Builder b = RedisURI.builder(uri);
                RedisURI withCredentials = (username != null
                                ? b.withAuthentication(username, password)
                                : b.withPassword(password))
                        .build();
                uri = withCredentials;
            }
            return new RedisLeaseStore(this);
        }
    }
}
