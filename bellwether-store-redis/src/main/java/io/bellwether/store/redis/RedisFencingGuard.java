package io.bellwether.store.redis;

import io.bellwether.StaleTokenException;
import io.bellwether.spi.FencingSupport;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Makes a Redis write conditional on a fencing token ({@link io.bellwether.Leadership#epoch()}): the Redis
 * counterpart of the JDBC {@code FencingGuard}. Each fenced resource has a fence key, {@code <prefix><resource>},
 * holding the highest token the resource has accepted. {@link #set} and {@link #hset} run one Lua script that
 * compares the offered token with it and, if the token is not lower (higher: a newer leadership, which raises the
 * bar; equal: the same leadership writing again), raises the fence and performs the write; a lower token
 * changes nothing and throws {@link StaleTokenException}. Redis runs a script atomically, so no other command,
 * in particular no other guarded write, can come between the comparison and the write.
 *
 * <p>The script is sent by {@code EVALSHA}, falling back to {@code EVAL} when the server does not know it yet.
 * Tokens are compared exactly for every non-negative {@code long} (as decimal strings, not as Lua's doubles).
 *
 * <p>It works on the application's own Lettuce connection (a {@link StatefulRedisConnection} with string keys
 * and values), synchronously, on the calling thread; it opens nothing of its own. On Redis Cluster, the fence key
 * and the written key must hash to the same slot: put the same hash tag in both, e.g. the prefix {@code
 * {invoices}:fence:} and the key {@code {invoices}:latest}.
 *
 * <p>A fence protects only writes that go through it: a resource written both through the guard and directly
 * is not fenced. The fence keys must not expire or be evicted (no TTL is set; keep them out of an {@code
 * allkeys-*} eviction policy's reach), and if Redis loses a fence key, the next token re-creates it: the
 * guarantee is as durable as Redis's own persistence. Immutable and thread-safe.
 */
public final class RedisFencingGuard {
    /** The default prefix of fence keys. */
    public static final String DEFAULT_KEY_PREFIX = "bellwether:fence:";

    /** The longest resource name, in characters. */
    public static final int MAX_RESOURCE_LENGTH = FencingSupport.MAX_RESOURCE_LENGTH;

    private static final String SCRIPT = load("fence.lua");

    private final String keyPrefix;

    private RedisFencingGuard(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /** A guard whose fence keys start with {@value #DEFAULT_KEY_PREFIX}. */
    public static RedisFencingGuard create() {
        return new RedisFencingGuard(DEFAULT_KEY_PREFIX);
    }

    /**
     * A guard whose fence keys start with {@code keyPrefix}: 1 to 100 characters, no whitespace.
     *
     * @throws IllegalArgumentException if the prefix is out of range
     */
    public static RedisFencingGuard withKeyPrefix(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isEmpty() || keyPrefix.length() > 100 || !keyPrefix.matches("\\S+")) {
            throw new IllegalArgumentException(
                    "fence key prefix must be 1 to 100 characters without whitespace, got " + keyPrefix);
        }
        return new RedisFencingGuard(keyPrefix);
    }

    /** The fence key of {@code resource}: the prefix followed by the resource's name. */
    public String key(String resource) {
        FencingSupport.checkResource(resource);
        return keyPrefix + resource;
    }

    /**
     * {@code SET key value} if {@code token} is not lower than the highest token {@code resource} has accepted.
     *
     * @param c the application's connection
     * @param resource the fenced resource: 1 to {@value #MAX_RESOURCE_LENGTH} characters, not blank
     * @param token the writer's fencing token (its leadership's epoch), not negative
     * @throws StaleTokenException if the resource has accepted a higher token; nothing was written
     * @throws IllegalArgumentException if an argument is null or out of range; nothing was sent
     * @throws io.lettuce.core.RedisException if Redis fails; the write may or may not have happened
     */
    public void set(StatefulRedisConnection<String, String> c, String resource, long token, String key, String value) {
        require(key, "key");
        require(value, "value");
        run(c, resource, token, key, "set", value);
    }

    /**
     * {@code HSET key field value} if {@code token} is not lower than the highest token {@code resource} has
     * accepted.
     *
     * @param c the application's connection
     * @param resource the fenced resource: 1 to {@value #MAX_RESOURCE_LENGTH} characters, not blank
     * @param token the writer's fencing token (its leadership's epoch), not negative
     * @throws StaleTokenException if the resource has accepted a higher token; nothing was written
     * @throws IllegalArgumentException if an argument is null or out of range; nothing was sent
     * @throws io.lettuce.core.RedisException if Redis fails; the write may or may not have happened
     */
    public void hset(
            StatefulRedisConnection<String, String> c,
            String resource,
            long token,
            String key,
            String field,
            String value) {
        require(key, "key");
        require(field, "field");
        require(value, "value");
        run(c, resource, token, key, "hset", field, value);
    }

    @Override
    public String toString() {
        return "RedisFencingGuard[" + keyPrefix + "]";
    }

    private void run(
            StatefulRedisConnection<String, String> c, String resource, long token, String key, String... operation) {
        FencingSupport.checkWrite(resource, token);
        if (c == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        String[] keys = {keyPrefix + resource, key};
        String[] args = new String[operation.length + 1];
        args[0] = Long.toString(token);
        System.arraycopy(operation, 0, args, 1, operation.length);
        RedisCommands<String, String> redis = c.sync();
        List<Object> reply;
        try {
            reply = redis.evalsha(redis.digest(SCRIPT), ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) {
            // First use on this server (or after SCRIPT FLUSH): EVAL also caches it.
            reply = redis.eval(SCRIPT, ScriptOutputType.MULTI, keys, args);
        }
        if ((Long) reply.get(0) == 0L) {
            throw new StaleTokenException(resource, token, Long.parseLong((String) reply.get(1)));
        }
    }

    private static void require(String value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("guarded write's " + what + " must not be null");
        }
    }

    private static String load(String name) {
        try (InputStream in = RedisFencingGuard.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load script " + name, e);
        }
    }
}
