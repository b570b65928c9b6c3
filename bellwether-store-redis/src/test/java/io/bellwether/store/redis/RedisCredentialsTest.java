package io.bellwether.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStoreException.Problem;
import io.bellwether.testkit.Services;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Credentials given to the builder rather than in the URI: what reaches Lettuce, that they are never shown, and
 * (against the real Redis) that they authenticate. The real test creates an ACL user of its own, limited to its key
 * prefix, and deletes it afterwards: Redis's default user, which every other test uses, is left alone.
 */
class RedisCredentialsTest {
    private static final String PASSWORD = "pw-" + UUID.randomUUID();

    @Test
    void aUserAndPasswordGivenApartReachTheRedisUriAndAreNeverShown() {
        try (RedisLeaseStore store = RedisLeaseStore.builder()
                .uri("redis://127.0.0.1:6379/2")
                .username("app")
                .password(PASSWORD)
                .build()) {
            assertThat(store.uri().getUsername()).isEqualTo("app");
            assertThat(store.uri().getPassword()).isEqualTo(PASSWORD.toCharArray());
            assertThat(store.uri().getDatabase()).isEqualTo(2);
            assertThat(store.describe()).doesNotContain(PASSWORD);
            assertThat(store.uri().toString()).doesNotContain(PASSWORD);
        }
    }

    @Test
    void aPasswordAloneIsTheDefaultUsersAndAUserNeedsOne() {
        try (RedisLeaseStore store = RedisLeaseStore.builder()
                .uri("redis://127.0.0.1:6379")
                .password(PASSWORD)
                .build()) {
            assertThat(store.uri().getUsername()).isNull();
            assertThat(store.uri().getPassword()).isEqualTo(PASSWORD.toCharArray());
        }
        assertThatThrownBy(() -> RedisLeaseStore.builder()
                        .uri("redis://127.0.0.1:6379")
                        .username("app")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("username 'app' is given without a password");
        assertThatThrownBy(() -> RedisLeaseStore.builder().password(""))
                .hasMessageContaining("password must not be empty");
    }

    @Test
    void aPasswordInABadUriIsNotShownInTheError() {
        assertThatThrownBy(() -> RedisLeaseStore.builder().uri("http://" + PASSWORD + "@127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'http://***@127.0.0.1:6379'")
                .message()
                .doesNotContain(PASSWORD);
    }

    @Test
    void aPasswordProtectedUserOfItsOwnAuthenticatesAgainstTheRealRedis() throws Exception {
        Services.require("Redis", "127.0.0.1", 6379);
        String user = "bw-test-" + UUID.randomUUID().toString().substring(0, 12);
        String prefix = user + ":";
        RedisClient admin = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> c = admin.connect()) {
            c.sync()
                    .aclSetuser(
                            user,
                            io.lettuce.core.AclSetuserArgs.Builder.on()
                                    .addPassword(PASSWORD)
                                    .keyPattern(prefix + "*")
                                    .channelPattern(prefix + "*")
                                    .allCommands());
            try {
                try (RedisLeaseStore store = RedisLeaseStore.builder()
                        .uri("redis://127.0.0.1:6379")
                        .username(user)
                        .password(PASSWORD)
                        .keyPrefix(prefix)
                        .build()) {
                    LeaseRecord r = store.acquireOrRenew("g", "a", 0, Duration.ofSeconds(5))
                            .toCompletableFuture()
                            .get(30, TimeUnit.SECONDS);
                    assertThat(r.holder()).isEqualTo("a");
                    assertThat(r.token()).isEqualTo(r.storeNowMillis() * 16);
                }
                try (RedisLeaseStore store = RedisLeaseStore.builder()
                        .uri("redis://127.0.0.1:6379")
                        .username(user)
                        .password("not-" + PASSWORD)
                        .keyPrefix(prefix)
                        .build()) {
                    RedisLeaseStoreException e =
                            RedisLeaseStoreTest.failure(store.acquireOrRenew("g", "b", 0, Duration.ofSeconds(5)));
                    assertThat(e.problem()).isEqualTo(Problem.CREDENTIALS);
                    assertThat(e.getMessage()).doesNotContain(PASSWORD);
                }
            } finally {
                c.sync().aclDeluser(user);
                java.util.List<String> keys = c.sync().keys(prefix + "*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            }
        } finally {
            admin.shutdown();
        }
    }
}
