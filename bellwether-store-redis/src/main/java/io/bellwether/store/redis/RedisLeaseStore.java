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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseStore} on Redis (Lettuce, asynchronous API). Each group's lease is a hash {@code
 * <prefix><group>} with fields {@code holder}, {@code token} and {@code expires} (epoch milliseconds on the Redis
 * server's clock). The hash has no TTL and is never deleted, so its token only ever grows; expiry is decided by
 * the scripts against {@code TIME}, never by key eviction. Every operation is one Lua script (sent by {@code
 * EVALSHA}, falling back to {@code EVAL} when the server does not know it yet), which Redis runs atomically.
 *
 * <p>A release publishes the group's name on {@code <prefix>released:<group>} from inside the releasing script;
 * {@link #watchReleases} subscribes to it on a dedicated pub/sub connection.
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

    private final RedisURI uri;
    private final String keyPrefix;
    private final String description;
    private final Duration requestTimeout;
    private final ClientResources resources;
    private final RedisClient client;
    private final ScheduledExecutorService timer;
    private final ExecutorService callbacks;
    private final ReleaseWatchers watches;
    private final Object lock = new Object();
    private CompletableFuture<StatefulRedisConnection<String, String>> connection;
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub;
    private boolean pubSubReady;
    private boolean closed;

    private RedisLeaseStore(Builder b) {
        this.uri = b.uri;
        this.keyPrefix = b.keyPrefix;
        this.requestTimeout = b.requestTimeout;
        uri.setTimeout(requestTimeout);
        this.description =
                "redis " + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase() + " prefix " + keyPrefix;
        this.resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .build();
        this.client = RedisClient.create(resources, uri);
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
        this.timer =
                Executors.newSingleThreadScheduledExecutor(LeaseStoreSupport.daemonThreads("bellwether-redis-timer"));
        this.callbacks = Executors.newSingleThreadExecutor(LeaseStoreSupport.daemonThreads("bellwether-redis-wake"));
        this.watches = new ReleaseWatchers(callbacks);
    }

    /** Starts a builder; {@link Builder#uri} is the only required setting. */
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
        checkName("group", group);
        checkName("holder", holder);
        if (duration == null || duration.toMillis() <= 0) {
            throw new IllegalArgumentException(
                    "lease duration must be at least 1 ms, got " + duration + " (store " + description + ")");
        }
        return run(ACQUIRE, key(group), holder, Long.toString(token), Long.toString(duration.toMillis()))
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

    @Override
    public boolean canPush() {
        return true;
    }

    /**
     * Calls {@code onRelease} from a store thread once as soon as the subscription is in force (a release may have
     * happened just before), again whenever it is re-established after a lost connection, and on every release
     * of the group.
     */
    @Override
    public AutoCloseable watchReleases(String group, Runnable onRelease) {
        checkName("group", group);
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
        try {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } catch (RuntimeException e) {
            log.debug("{}: closing the client failed", description, e);
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
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
            // Once connected, Lettuce reconnects by itself; only a failed first connection is tried afresh.
            if (connection == null || connection.isCompletedExceptionally()) {
                connection = client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
            }
            return connection;
        }
    }

    /** Caller holds {@link #lock}. */
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub() {
        if (pubSub == null || pubSub.isCompletedExceptionally()) {
            pubSubReady = false;
            pubSub = client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
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

        /** The Redis URI (required), e.g. {@code redis://127.0.0.1:6379} or {@code redis://user:pw@host:6379/2}. */
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

        /** Creates the store; connects to nothing yet. */
        public RedisLeaseStore build() {
            if (uri == null) {
                throw new IllegalArgumentException("store uri is required (a redis:// URI)");
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
