package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import io.bellwether.spi.LeaseStore;
import io.bellwether.testkit.Services;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Lease mode on the real Redis, through the application's Lettuce client or Spring Data Redis' factory. */
class RedisLeaseTest {
    @BeforeEach
    void redis() {
        Services.require("Redis", "127.0.0.1", 6379);
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean(destroyMethod = "shutdown")
        RedisClient redisClient() {
            return RedisClient.create("redis://127.0.0.1:6379");
        }
    }

    private static Map<String, Object> properties(String group) {
        return Map.of(
                "bellwether.lease.store", "redis",
                "bellwether.group", group,
                "bellwether.lease.key-prefix", "bw-spring-test:" + UUID.randomUUID() + ":",
                "spring.data.redis.host", "127.0.0.1",
                "spring.data.redis.port", "6379");
    }

    @Test
    void electsThroughTheApplicationsRedisClient() {
        TestApps.Recorder recorder = new TestApps.Recorder();
        try (ConfigurableApplicationContext context =
                TestApps.start(recorder, properties("redis-own-client"), OwnClient.class)) {
            assertLeadsThroughRedis(context, recorder);
        }
    }

    @Test
    void electsThroughSpringDataRedisConnectionFactory() {
        TestApps.Recorder recorder = new TestApps.Recorder();
        try (ConfigurableApplicationContext context = TestApps.start(recorder, properties("redis-spring-data"))) {
            assertLeadsThroughRedis(context, recorder);
        }
    }

    private static void assertLeadsThroughRedis(ConfigurableApplicationContext context, TestApps.Recorder recorder) {
        assertThat(context.getBean(LeaseStore.class).describe()).containsIgnoringCase("redis");
        Election election = context.getBean(Election.class);
        await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
        await().atMost(Duration.ofSeconds(10)).until(() -> recorder.runs.size() >= 3);
        assertThat(context.getBean(BellwetherHealthIndicator.class).health().getStatus())
                .isEqualTo(Status.UP);
    }
}
