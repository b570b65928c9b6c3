package io.bellwether.store.redis;

import io.bellwether.spi.LeaseStore;
import io.bellwether.testkit.LeaseElectionContract;
import io.bellwether.testkit.Services;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The {@link LeaseElectionContract} against the real Redis on 127.0.0.1:6379: the namespace is a key prefix of its
 * own, deleted after the test. Redis pushes releases over pub/sub, so contenders wait for them.
 */
class RedisLeaseElectionTest extends LeaseElectionContract {
    private static final int PORT = 6379;
    private static RedisClient admin;
    private static StatefulRedisConnection<String, String> adminConnection;

    @BeforeAll
    static void connectAdmin() {
        Services.require("Redis", "127.0.0.1", PORT);
        admin = RedisClient.create("redis://127.0.0.1:" + PORT);
        adminConnection = admin.connect();
    }

    @AfterAll
    static void closeAdmin() {
        if (admin != null) {
            adminConnection.close();
            admin.shutdown();
        }
    }

    @Override
    protected void requireService() {
        Services.require("Redis", "127.0.0.1", PORT);
    }

    @Override
    protected int servicePort() {
        return PORT;
    }

    @Override
    protected LeaseStore newStore(int port, Duration requestTimeout) {
        return RedisLeaseStore.builder()
                .uri("redis://127.0.0.1:" + port)
                .keyPrefix(namespace + ":")
                .requestTimeout(requestTimeout)
                .build();
    }

    @Override
    protected void deleteNamespace(String namespace) {
        List<String> keys = adminConnection.sync().keys(namespace + ":*");
        if (!keys.isEmpty()) {
            adminConnection.sync().del(keys.toArray(String[]::new));
        }
    }
}
