package io.bellwether.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.testkit.Services;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisLeaseStore} on the application's own Lettuce client or connection (the real Redis on 127.0.0.1:6379,
 * each test on its own key prefix): it works through them, pushes releases where it can open a pub/sub connection,
 * polls where it cannot, and closing it leaves the application's client and connection open.
 */
class RedisApplicationResourcesTest {
    static final long CEILING_SECONDS = 30;
    static final String URI = "redis://127.0.0.1:6379";
    static final String GROUP = "orders";

    RedisClient application;
    StatefulRedisConnection<String, String> applicationConnection;
    String prefix;

    @BeforeEach
    void setUp() {
        Services.require("Redis", "127.0.0.1", 6379);
        application = RedisClient.create(URI);
        applicationConnection = application.connect();
        prefix = "bw-test:" + UUID.randomUUID().toString().substring(0, 12) + ":";
    }

    @AfterEach
    void tearDown() {
        List<String> keys = applicationConnection.sync().keys(prefix + "*");
        if (!keys.isEmpty()) {
            applicationConnection.sync().del(keys.toArray(String[]::new));
        }
        applicationConnection.close();
        application.shutdown();
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    /** Completes once the watch is in force (its first wake), then with the next wake: a release. */
    static CompletableFuture<Void>[] watch(RedisLeaseStore store) {
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] wakes =
                new CompletableFuture[] {new CompletableFuture<>(), new CompletableFuture<>()};
        store.watchReleases(GROUP, () -> {
            if (!wakes[0].complete(null)) {
                wakes[1].complete(null);
            }
        });
        return wakes;
    }

    long subscribers(RedisLeaseStore store) {
        return applicationConnection
                .sync()
                .pubsubNumsub(store.releaseChannel(GROUP))
                .getOrDefault(store.releaseChannel(GROUP), 0L);
    }

    @Test
    void onTheApplicationsClientTheStoreWorksPushesReleasesAndLeavesTheClientOpen() throws Exception {
        RedisLeaseStore store =
                RedisLeaseStore.builder().client(application).keyPrefix(prefix).build();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30)));
        assertThat(held.heldBy("a", held.token())).isTrue();
        assertThat(store.canPush()).isTrue();
        CompletableFuture<Void>[] wakes = watch(store);
        wakes[0].get(CEILING_SECONDS, TimeUnit.SECONDS);

        assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();
        wakes[1].get(CEILING_SECONDS, TimeUnit.SECONDS);

        store.close();

        try (StatefulRedisConnection<String, String> c = application.connect()) {
            assertThat(c.sync().ping()).isEqualTo("PONG");
        }
        assertThat(applicationConnection.sync().ping()).isEqualTo("PONG");
    }

    @Test
    void onTheApplicationsConnectionAloneTheStoreWorksButCannotPushAndLeavesTheConnectionOpen() throws Exception {
        RedisLeaseStore store = RedisLeaseStore.builder()
                .connection(applicationConnection)
                .keyPrefix(prefix)
                .build();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30)));
        assertThat(get(store.read(GROUP)))
                .hasValueSatisfying(r -> assertThat(r.heldBy("a", held.token())).isTrue());

        assertThat(store.canPush()).isFalse();
        store.watchReleases(GROUP, () -> {}).close();
        assertThat(subscribers(store)).as("subscribers of the release channel").isZero();

        store.close();

        assertThat(applicationConnection.isOpen()).isTrue();
        assertThat(applicationConnection.sync().ping()).isEqualTo("PONG");
    }

    @Test
    void onTheApplicationsConnectionAndClientTheStorePushesThroughAPubSubConnectionOfItsOwn() throws Exception {
        RedisLeaseStore store = RedisLeaseStore.builder()
                .connection(applicationConnection)
                .client(application)
                .keyPrefix(prefix)
                .build();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30)));
        CompletableFuture<Void>[] wakes = watch(store);
        wakes[0].get(CEILING_SECONDS, TimeUnit.SECONDS);
        assertThat(subscribers(store)).isEqualTo(1);

        assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();
        wakes[1].get(CEILING_SECONDS, TimeUnit.SECONDS);

        store.close();
        assertThat(applicationConnection.sync().ping()).isEqualTo("PONG");
    }

    /** Without pushes a contender learns of the holder's release at its next poll, and takes over then. */
    @Test
    void withoutPushesAContenderTakesOverAtItsNextPoll() throws Exception {
        RedisLeaseStore store = RedisLeaseStore.builder()
                .connection(applicationConnection)
                .keyPrefix(prefix)
                .build();
        LeaseConfig lease = LeaseConfig.builder()
                .store(store)
                .duration(Duration.ofSeconds(2))
                .build();
        Election a = election(NodeId.of("a"), lease);
        CompletableFuture<Leadership> aWon = elected(a);
        a.start();
        long aEpoch = aWon.get(CEILING_SECONDS, TimeUnit.SECONDS).epoch();
        Election b = election(NodeId.of("b"), lease);
        CompletableFuture<Leadership> bWon = elected(b);
        b.start();
        try {
            a.close(); // releases the lease; nothing tells b

            assertThat(bWon.get(CEILING_SECONDS, TimeUnit.SECONDS).epoch()).isGreaterThan(aEpoch);
        } finally {
            b.close();
            store.close();
        }
    }

    static Election election(NodeId self, LeaseConfig lease) {
        return Election.builder()
                .group(GROUP)
                .self(self)
                .algorithm(lease)
                .stateStore(new InMemoryStateStore())
                .build();
    }

    static CompletableFuture<Leadership> elected(Election e) {
        CompletableFuture<Leadership> f = new CompletableFuture<>();
        e.addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                f.complete(leadership);
            }
        });
        return f;
    }

    @Test
    void whatTheStoreIsBuiltFromIsChecked() {
        assertThatThrownBy(() -> RedisLeaseStore.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store uri, client or connection is required");
        assertThatThrownBy(() -> RedisLeaseStore.builder()
                        .uri(URI)
                        .connection(applicationConnection)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store uri is given with a connection");
        assertThatThrownBy(() -> RedisLeaseStore.builder()
                        .client(application)
                        .password("secret")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("username and password apply to a store uri");
    }
}
