package io.bellwether.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStoreException.Problem;
import io.bellwether.testkit.Ports;
import io.bellwether.testkit.Services;
import io.bellwether.testkit.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RedisLeaseStore} against the real Redis on 127.0.0.1:6379; each test on its own key prefix. */
class RedisLeaseStoreTest {
    static final Duration LONG = Duration.ofSeconds(30);
    static final String GROUP = "orders";
    static final String URI = "redis://127.0.0.1:6379";

    static RedisClient admin;
    static StatefulRedisConnection<String, String> adminConnection;

    final List<AutoCloseable> closeables = new ArrayList<>();
    String prefix;

    @BeforeAll
    static void connectAdmin() {
        Services.require("Redis", "127.0.0.1", 6379);
        admin = RedisClient.create(URI);
        adminConnection = admin.connect();
    }

    @AfterAll
    static void closeAdmin() {
        if (admin != null) {
            adminConnection.close();
            admin.shutdown();
        }
    }

    @BeforeEach
    void setUp() {
        prefix = "bw-test:" + UUID.randomUUID().toString().substring(0, 12) + ":";
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        List<String> keys = adminConnection.sync().keys(prefix + "*");
        if (!keys.isEmpty()) {
            adminConnection.sync().del(keys.toArray(String[]::new));
        }
    }

    RedisLeaseStore store() {
        return store(RedisLeaseStore.builder().uri(URI).keyPrefix(prefix));
    }

    RedisLeaseStore store(RedisLeaseStore.Builder builder) {
        RedisLeaseStore s = builder.build();
        closeables.add(s);
        return s;
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(LONG.toSeconds(), TimeUnit.SECONDS);
    }

    static RedisLeaseStoreException failure(CompletionStage<?> stage) {
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> stage.toCompletableFuture().get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertThat(e.getCause()).isInstanceOf(RedisLeaseStoreException.class);
        System.out.println("store error: " + e.getCause().getMessage());
        return (RedisLeaseStoreException) e.getCause();
    }

    /** The Redis server's clock, {@code TIME}, in epoch milliseconds. */
    static long serverMillis() {
        List<String> time = adminConnection.sync().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /** Deletes this test's keys only: what a restart without persistence does to them (never FLUSHDB: shared). */
    void forgetThisTestsKeys() {
        List<String> keys = adminConnection.sync().keys(prefix + "*");
        if (!keys.isEmpty()) {
            adminConnection.sync().del(keys.toArray(String[]::new));
        }
        assertThat(adminConnection.sync().keys(prefix + "*")).isEmpty();
    }

    LeaseRecord awaitExpiry(RedisLeaseStore store, String group) {
        return await().atMost(LONG).until(() -> get(store.read(group)).orElseThrow(), LeaseRecord::expired);
    }

    @Test
    void firstAcquisitionGrantsTheLeaseWithATokenFromTheServerClock() throws Exception {
        LeaseRecord r = get(store().acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        assertThat(r.heldBy("a", r.storeNowMillis() * 16)).isTrue();
        assertThat(r.remainingMillis()).isEqualTo(10_000);
    }

    /**
     * Redis forgets the lease between two leaderships (restarted empty, lost its last writes, or failed over to a
     * replica that missed them): the second leadership's token is still greater. Several takeovers first, so the
     * last token has used its millisecond's low bits. The one assumption, that the clock reads later than when the
     * last token was issued, is awaited (a real restart or failover takes far longer than a millisecond).
     */
    @Test
    void tokenKeepsGrowingAfterRedisForgetsTheLease() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord last = null;
        for (String holder : List.of("a", "b", "c")) {
            last = get(store.acquireOrRenew(GROUP, holder, 0, Duration.ofSeconds(60)));
            assertThat(last.holder()).isEqualTo(holder);
            assertThat(get(store.release(GROUP, holder, last.token()))).isTrue();
        }
        LeaseRecord first = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(60)));
        assertThat(first.token()).isGreaterThan(last.token());
        long issuedInMillisecond = first.token() / 16;

        forgetThisTestsKeys();
        await().atMost(LONG).pollInterval(Duration.ofMillis(1)).until(() -> serverMillis() > issuedInMillisecond);

        LeaseRecord second = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(60)));
        assertThat(second.holder()).isEqualTo("b");
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.token()).isLessThan(io.bellwether.elector.Counters.LIMIT);
    }

    @Test
    void holderRenewsWithItsTokenAndKeepsTheToken() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord first = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord renewed = get(store.acquireOrRenew(GROUP, "a", first.token(), Duration.ofSeconds(20)));

        assertThat(renewed.heldBy("a", first.token())).isTrue();
        assertThat(renewed.remainingMillis()).isEqualTo(20_000);
        assertThat(renewed.expiresAtMillis()).isGreaterThan(first.expiresAtMillis());
    }

    @Test
    void contenderCannotTakeALeaseBeforeItExpires() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord seen = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));

        assertThat(seen).isEqualTo(new LeaseRecord("a", held.token(), held.expiresAtMillis(), seen.storeNowMillis()));
    }

    @Test
    void contenderTakesAnExpiredLeaseWithAHigherToken() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord first = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofMillis(200)));
        awaitExpiry(store, GROUP);

        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));

        assertThat(taken.holder()).isEqualTo("b");
        assertThat(taken.token()).isGreaterThan(first.token());
        assertThat(taken.token()).isEqualTo(Math.max(first.token() + 1, taken.storeNowMillis() * 16));
    }

    @Test
    void renewalNeedsBothHolderAndToken() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord wrongToken = get(store.acquireOrRenew(GROUP, "a", 7, Duration.ofSeconds(60)));
        LeaseRecord wrongHolder = get(store.acquireOrRenew(GROUP, "b", held.token(), Duration.ofSeconds(60)));

        assertThat(wrongToken.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(wrongHolder.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(wrongHolder.holder()).isEqualTo("a");
    }

    @Test
    void releaseNeedsHolderAndTokenAndKeepsTheToken() throws Exception {
        RedisLeaseStore store = store();
        long token =
                get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10))).token();

        assertThat(get(store.release(GROUP, "a", token + 1))).isFalse();
        assertThat(get(store.release(GROUP, "b", token))).isFalse();
        assertThat(get(store.read(GROUP)).orElseThrow().expired()).isFalse();
        assertThat(get(store.release(GROUP, "a", token))).isTrue();
        LeaseRecord released = get(store.read(GROUP)).orElseThrow();
        assertThat(released.expired()).isTrue();
        assertThat(released.token()).isEqualTo(token);
        assertThat(get(store.release(GROUP, "a", token))).isFalse();

        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));
        assertThat(taken.holder()).isEqualTo("b");
        assertThat(taken.token()).isGreaterThan(token);
    }

    @Test
    void readShowsTheLeaseWithoutContending() throws Exception {
        RedisLeaseStore store = store();
        assertThat(get(store.read(GROUP))).isEmpty();

        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord seen = get(store.read(GROUP)).orElseThrow();
        assertThat(seen.heldBy("a", held.token())).isTrue();
        assertThat(seen.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
    }

    @Test
    void scriptsAreReloadedAfterTheServerForgetsThem() throws Exception {
        RedisLeaseStore store = store();
        long token =
                get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10))).token();

        adminConnection.sync().scriptFlush();

        assertThat(get(store.acquireOrRenew(GROUP, "a", token, Duration.ofSeconds(10)))
                        .heldBy("a", token))
                .isTrue();
    }

    @Test
    void tokensStayUniqueAndIncreasingUnderConcurrentContenders() throws Exception {
        long seed = Long.getLong("bellwether.test.seed", System.nanoTime());
        System.out.println("tokensStayUniqueAndIncreasingUnderConcurrentContenders seed=" + seed);
        RedisLeaseStore store =
                store(RedisLeaseStore.builder().uri(URI).keyPrefix(prefix).requestTimeout(LONG));
        long startMillis = serverMillis();
        int threads = 8;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Long>>> results = new ArrayList<>();
        Random seeds = new Random(seed);
        for (int i = 0; i < threads; i++) {
            String me = "contender-" + i;
            Random random = new Random(seeds.nextLong());
            results.add(pool.submit(() -> {
                start.await();
                List<Long> mine = new ArrayList<>();
                long observed = 0;
                long myToken = 0;
                long renewWith = 0;
                int renewals = 0;
                for (int n = 0; n < 20_000 && System.nanoTime() < deadline; n++) {
                    LeaseRecord r = get(store.acquireOrRenew(GROUP, me, renewWith, Duration.ofMillis(5)));
                    assertThat(r.token()).isGreaterThanOrEqualTo(observed);
                    observed = r.token();
                    renewWith = 0;
                    if (!r.holder().equals(me) || r.expired()) {
                        continue;
                    }
                    if (r.token() != myToken) {
                        myToken = r.token();
                        mine.add(myToken);
                        renewals = random.nextInt(3);
                    }
                    if (renewals > 0) {
                        renewals--;
                        renewWith = myToken;
                    } else if (random.nextBoolean()) {
                        get(store.release(GROUP, me, myToken));
                    }
                }
                return mine;
            }));
        }
        start.countDown();
        pool.shutdown();
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> f : results) {
            List<Long> mine = f.get(2, TimeUnit.MINUTES);
            for (int i = 1; i < mine.size(); i++) {
                assertThat(mine.get(i)).isGreaterThan(mine.get(i - 1));
            }
            all.addAll(mine);
        }
        Collections.sort(all);
        assertThat(all).hasSizeGreaterThan(threads);
        assertThat(new TreeSet<>(all)).as("every token granted once").hasSize(all.size());
        assertThat(all.get(0)).isGreaterThanOrEqualTo(startMillis * 16);
    }

    @Test
    void releaseWakesAWatcherAtOnce() throws Exception {
        RedisLeaseStore store = store();
        assertThat(store.canPush()).isTrue();
        long token =
                get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(60))).token();
        Semaphore wakes = new Semaphore(0);
        Semaphore otherGroupWakes = new Semaphore(0);
        closeables.add(store.watchReleases(GROUP, wakes::release));
        closeables.add(store.watchReleases("other", otherGroupWakes::release));
        // The first wake says the subscription is in force.
        assertThat(wakes.tryAcquire(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(otherGroupWakes.tryAcquire(LONG.toSeconds(), TimeUnit.SECONDS))
                .isTrue();

        assertThat(get(store.release(GROUP, "a", token))).isTrue();

        assertThat(wakes.tryAcquire(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));
        assertThat(taken.holder()).isEqualTo("b");
        assertThat(taken.token()).isGreaterThan(token);
        assertThat(otherGroupWakes.availablePermits()).isZero();
    }

    @Test
    void operationsFailWithinTheRequestTimeoutWhenRedisStopsAnswering() throws Exception {
        TcpProxy proxy = new TcpProxy(6379);
        closeables.add(proxy);
        RedisLeaseStore store = store(RedisLeaseStore.builder()
                .uri("redis://127.0.0.1:" + proxy.port())
                .keyPrefix(prefix)
                .requestTimeout(Duration.ofSeconds(1)));
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(60)));

        proxy.blackhole();

        RedisLeaseStoreException renew =
                failure(store.acquireOrRenew(GROUP, "a", held.token(), Duration.ofSeconds(60)));
        assertThat(renew.transientFailure()).isTrue();
        assertThat(renew).hasMessageContaining(store.describe());
        assertThat(failure(store.read(GROUP)).transientFailure()).isTrue();
        assertThat(failure(store.release(GROUP, "a", held.token())).transientFailure())
                .isTrue();

        proxy.restore();
        LeaseRecord back = await().atMost(LONG)
                .ignoreExceptions()
                .until(() -> get(store.acquireOrRenew(GROUP, "a", held.token(), Duration.ofSeconds(60))), r -> true);
        assertThat(back.heldBy("a", held.token())).isTrue();
    }

    @Test
    void unreachableRedisIsAClearError() throws Exception {
        int closedPort = Ports.free();
        RedisLeaseStore store = store(RedisLeaseStore.builder()
                .uri("redis://127.0.0.1:" + closedPort)
                .keyPrefix(prefix)
                .requestTimeout(Duration.ofSeconds(1)));

        RedisLeaseStoreException e = failure(store.read(GROUP));

        assertThat(e.problem()).isIn(Problem.UNREACHABLE, Problem.TIMEOUT);
        assertThat(e).hasMessageContaining("127.0.0.1:" + closedPort);
    }

    @Test
    void wrongCredentialsAreAClearErrorWithoutThePassword() throws Exception {
        RedisLeaseStore store = store(RedisLeaseStore.builder()
                .uri("redis://bw-no-such-user:wrong-password@127.0.0.1:6379")
                .keyPrefix(prefix));

        RedisLeaseStoreException e = failure(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(1)));

        assertThat(e.problem()).isEqualTo(Problem.CREDENTIALS);
        assertThat(e).hasMessageContaining(store.describe()).hasMessageContaining("user and password");
        assertThat(e.getMessage()).doesNotContain("wrong-password");
    }

    @Test
    void keyHoldingOtherDataIsAClearError() throws Exception {
        RedisLeaseStore store = store();
        adminConnection.sync().set(store.key(GROUP), "not a lease");

        RedisLeaseStoreException e = failure(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(1)));

        assertThat(e.problem()).isEqualTo(Problem.SCHEMA);
        assertThat(e).hasMessageContaining(prefix).hasMessageContaining("choose another key prefix");
    }

    @Test
    void onlyAContenderOfHigherPriorityClaimsAndTheHolderSeesTheClaimAtItsRenewal() throws Exception {
        RedisLeaseStore store = store();
        Duration d = Duration.ofSeconds(10);
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, d, 1));

        assertThat(get(store.acquireOrRenew(GROUP, "b", 0, d, 1)).claimed()).isFalse();
        assertThat(get(store.acquireOrRenew(GROUP, "c", 0, d, 0)).claimed()).isFalse();

        LeaseRecord claimed = get(store.acquireOrRenew(GROUP, "d", 0, d, 3));
        // A claim changes nothing of the lease itself.
        assertThat(claimed.heldBy("a", held.token())).isTrue();
        assertThat(claimed.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(claimed.claimPriority()).isEqualTo(3);
        assertThat(claimed.claimUntilMillis() - claimed.storeNowMillis()).isEqualTo(10_000L);

        assertThat(get(store.acquireOrRenew(GROUP, "e", 0, d, 2)).claimPriority())
                .as("a live claim of higher priority stays")
                .isEqualTo(3);

        LeaseRecord renewed = get(store.acquireOrRenew(GROUP, "a", held.token(), d, 1));
        assertThat(renewed.heldBy("a", held.token())).isTrue();
        assertThat(renewed.claimedAbove(1)).isTrue();
        assertThat(renewed.claimedAbove(3)).isFalse();

        assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();
        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "d", 0, d, 3));
        assertThat(taken.holder()).isEqualTo("d");
        assertThat(taken.token()).isGreaterThan(held.token());
        assertThat(taken.claimedAbove(3))
                .as("the claimant's own claim does not displace it")
                .isFalse();
        assertThat(get(store.acquireOrRenew(GROUP, "a", 0, d, 1)).heldBy("d", taken.token()))
                .isTrue();
        assertThat(get(store.acquireOrRenew(GROUP, "d", taken.token(), d, 3)).claimedAbove(3))
                .isFalse();
    }

    @Test
    void aFreeLeaseGoesToNobodyBelowALiveClaimUntilTheClaimRunsOut() throws Exception {
        RedisLeaseStore store = store();
        // Released: the claimant of priority 5 takes it, the contender of priority 1 and the former holder do not.
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, LONG, 0));
        assertThat(get(store.acquireOrRenew(GROUP, "c", 0, LONG, 5)).claimedAbove(0))
                .isTrue();
        assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();
        LeaseRecord refused = get(store.acquireOrRenew(GROUP, "b", 0, LONG, 1));
        assertThat(refused.expired()).as("refused: %s", refused).isTrue();
        assertThat(refused.token()).isEqualTo(held.token());
        assertThat(refused.claimedAbove(1)).isTrue();
        assertThat(get(store.acquireOrRenew(GROUP, "a", held.token(), LONG, 0)).expired())
                .as("the former holder cannot renew a released lease past a claim")
                .isTrue();
        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "c", 0, LONG, 5));
        assertThat(taken.heldBy("c", taken.token())).as("taken: %s", taken).isTrue();
        assertThat(taken.token()).isGreaterThan(held.token());

        // Expired, with a claim that runs out: refused while the claim lives, then taken by the lower contender.
        String other = "billing";
        LeaseRecord brief = get(store.acquireOrRenew(other, "a", 0, Duration.ofMillis(200), 0));
        get(store.acquireOrRenew(other, "c", 0, Duration.ofMillis(1_500), 5));
        LeaseRecord first = await().atMost(LONG)
                .until(() -> get(store.acquireOrRenew(other, "b", 0, LONG, 1)), r -> r.expired() || !r.claimed());
        if (first.claimed()) {
            assertThat(first.token()).as("refused past the claim: %s", first).isEqualTo(brief.token());
        }
        LeaseRecord late =
                await().atMost(LONG).until(() -> get(store.acquireOrRenew(other, "b", 0, LONG, 1)), r -> !r.expired());
        assertThat(late.heldBy("b", late.token())).as("late: %s", late).isTrue();
        assertThat(late.token()).isGreaterThan(brief.token());
        assertThat(late.claimed()).isFalse();
    }

    @Test
    void aClaimRunsOutOneDurationAfterTheClaimantsLastPoll() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30), -1));

        assertThat(get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofMillis(300), 0))
                        .claimedAbove(-1))
                .isTrue();

        LeaseRecord later = await().atMost(LONG)
                .until(
                        () -> get(store.acquireOrRenew(GROUP, "a", held.token(), Duration.ofSeconds(30), -1)),
                        r -> !r.claimed());
        assertThat(later.heldBy("a", held.token())).isTrue();
    }

    @Test
    void withEveryPriorityZeroTheHashHasOnlyTheLeaseFields() throws Exception {
        RedisLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, LONG));
        get(store.acquireOrRenew(GROUP, "b", 0, LONG, 0));
        get(store.acquireOrRenew(GROUP, "a", held.token(), LONG, 0));

        assertThat(adminConnection.sync().hgetall(prefix + GROUP)).containsOnlyKeys("holder", "token", "expires");
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        assertThatThrownBy(() -> RedisLeaseStore.builder().uri("http://x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://");
        assertThatThrownBy(() -> RedisLeaseStore.builder().keyPrefix("has space"))
                .hasMessageContaining("key prefix")
                .hasMessageContaining("has space");
        assertThatThrownBy(() -> store().acquireOrRenew(GROUP, "a", 0, Duration.ZERO))
                .hasMessageContaining("duration");
    }
}
