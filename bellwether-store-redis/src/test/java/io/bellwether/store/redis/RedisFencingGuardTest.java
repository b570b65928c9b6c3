package io.bellwether.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.StaleTokenException;
import io.bellwether.testkit.Services;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RedisFencingGuard} against the real Redis on 127.0.0.1:6379; each test on its own key prefix. */
class RedisFencingGuardTest {
    static final String RESOURCE = "invoices";

    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;

    String prefix;
    String target;
    RedisFencingGuard guard;

    @BeforeAll
    static void connect() {
        Services.require("Redis", "127.0.0.1", 6379);
        client = RedisClient.create("redis://127.0.0.1:6379");
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            connection.close();
            client.shutdown();
        }
    }

    @BeforeEach
    void setUp() {
        prefix = "bw-test:" + UUID.randomUUID().toString().substring(0, 12) + ":";
        target = prefix + "latest-invoice";
        guard = RedisFencingGuard.withKeyPrefix(prefix + "fence:");
    }

    @AfterEach
    void tearDown() {
        List<String> keys = redis().keys(prefix + "*");
        if (!keys.isEmpty()) {
            redis().del(keys.toArray(String[]::new));
        }
    }

    static RedisCommands<String, String> redis() {
        return connection.sync();
    }

    @Test
    void higherTokenWritesAndRaisesTheBar() {
        guard.set(connection, RESOURCE, 5, target, "from 5");
        guard.set(connection, RESOURCE, 7, target, "from 7");

        assertThat(redis().get(target)).isEqualTo("from 7");
        assertThat(redis().get(guard.key(RESOURCE))).isEqualTo("7");
    }

    @Test
    void equalTokenWritesForTheSameLeadershipWritingAgain() {
        guard.set(connection, RESOURCE, 5, target, "first");
        guard.set(connection, RESOURCE, 5, target, "second");

        assertThat(redis().get(target)).isEqualTo("second");
    }

    @Test
    void lowerTokenIsRefusedAndWritesNothing() {
        guard.set(connection, RESOURCE, 6, target, "from 6");

        StaleTokenException e = org.junit.jupiter.api.Assertions.assertThrows(
                StaleTokenException.class, () -> guard.set(connection, RESOURCE, 5, target, "from 5"));
        StaleTokenException h = org.junit.jupiter.api.Assertions.assertThrows(
                StaleTokenException.class, () -> guard.hset(connection, RESOURCE, 4, prefix + "h", "f", "from 4"));

        assertThat(e.resource()).isEqualTo(RESOURCE);
        assertThat(e.offeredToken()).isEqualTo(5);
        assertThat(e.highestToken()).isEqualTo(6);
        assertThat(e).hasMessageContaining("offered 5").hasMessageContaining("accepted 6");
        assertThat(h.highestToken()).isEqualTo(6);
        assertThat(redis().get(target)).isEqualTo("from 6");
        assertThat(redis().exists(prefix + "h")).isZero();
        assertThat(redis().get(guard.key(RESOURCE))).isEqualTo("6");
    }

    @Test
    void hsetIsGuardedLikeSet() {
        guard.hset(connection, RESOURCE, 3, target, "node", "a");
        guard.hset(connection, RESOURCE, 3, target, "epoch", "3");

        assertThat(redis().hgetall(target))
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("node", "a", "epoch", "3"));
    }

    @Test
    void tokensCompareExactlyBeyondTheRangeOfLuasNumbers() {
        long big = (1L << 53) + 1; // as a double, equal to 2^53
        guard.set(connection, RESOURCE, big, target, "big");

        assertThatThrownBy(() -> guard.set(connection, RESOURCE, big - 1, target, "stale"))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining("accepted " + big);
        guard.set(connection, RESOURCE, Long.MAX_VALUE, target, "max");
        assertThat(redis().get(target)).isEqualTo("max");
        assertThatThrownBy(() -> guard.set(connection, RESOURCE, 9, target, "short"))
                .isInstanceOf(StaleTokenException.class);
    }

    @Test
    void resourcesAreFencedIndependently() {
        guard.set(connection, RESOURCE, 9, target, "nine");

        guard.set(connection, "other", 2, prefix + "other", "two");

        assertThat(redis().get(prefix + "other")).isEqualTo("two");
    }

    /**
     * Eight writers with tokens 1 to 8 race on one resource: whatever the order, the value left is the highest
     * token's, the fence holds 8, and every writer refused saw a higher token than its own.
     */
    @Test
    void racingWritersLeaveTheHighestTokensValue() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Long>> refusedAt = new ArrayList<>();
        for (long token = 1; token <= 8; token++) {
            long mine = token;
            refusedAt.add(pool.submit(() -> {
                start.await();
                try {
                    guard.set(connection, RESOURCE, mine, target, "from " + mine);
                    return -1L;
                } catch (StaleTokenException e) {
                    assertThat(e.highestToken()).isGreaterThan(mine);
                    return e.highestToken();
                }
            }));
        }
        start.countDown();
        for (Future<Long> f : refusedAt) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(refusedAt.get(7).get()).isEqualTo(-1L); // token 8 always passes
        assertThat(redis().get(target)).isEqualTo("from 8");
        assertThat(redis().get(guard.key(RESOURCE))).isEqualTo("8");
    }

    @Test
    void scriptIsReloadedAfterTheServerForgetsIt() {
        guard.set(connection, RESOURCE, 1, target, "one");
        redis().scriptFlush();

        guard.set(connection, RESOURCE, 2, target, "two");

        assertThat(redis().get(target)).isEqualTo("two");
    }

    @Test
    void badInputIsRefusedWithAClearMessageAndChangesNothing() {
        assertThatThrownBy(() -> guard.set(connection, null, 1, target, "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencing resource must be a non-blank name, got null");
        assertThatThrownBy(() -> guard.set(connection, " ", 1, target, "v"))
                .hasMessageContaining("non-blank name, got ' '");
        assertThatThrownBy(() -> guard.set(connection, "r".repeat(201), 1, target, "v"))
                .hasMessageContaining("at most 200 characters, got 201");
        assertThatThrownBy(() -> guard.set(connection, RESOURCE, -1, target, "v"))
                .hasMessageContaining("fencing token for resource 'invoices' must not be negative, got -1");
        assertThatThrownBy(() -> guard.set(null, RESOURCE, 1, target, "v"))
                .hasMessageContaining("connection must not be null");
        assertThatThrownBy(() -> guard.set(connection, RESOURCE, 1, null, "v"))
                .hasMessageContaining("key must not be null");
        assertThatThrownBy(() -> guard.set(connection, RESOURCE, 1, target, null))
                .hasMessageContaining("value must not be null");
        assertThatThrownBy(() -> guard.hset(connection, RESOURCE, 1, target, null, "v"))
                .hasMessageContaining("field must not be null");
        assertThatThrownBy(() -> RedisFencingGuard.withKeyPrefix("has space"))
                .hasMessageContaining("fence key prefix")
                .hasMessageContaining("has space");

        assertThat(redis().keys(prefix + "*")).isEmpty();
        guard.set(connection, "r".repeat(200), 0, target, "limits are allowed");
        assertThat(redis().get(target)).isEqualTo("limits are allowed");
    }
}
