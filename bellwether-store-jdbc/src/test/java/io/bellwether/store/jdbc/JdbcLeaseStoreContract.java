package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStoreException.Problem;
import io.bellwether.testkit.Ports;
import io.bellwether.testkit.TcpProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every JDBC dialect must show, run against a real database. Each test works on its own table
 * (random suffix), dropped afterwards.
 */
abstract class JdbcLeaseStoreContract {
    static final Duration LONG = Duration.ofSeconds(30);
    static final String GROUP = "orders";

    final List<AutoCloseable> closeables = new ArrayList<>();
    final List<String> tables = new ArrayList<>();
    String table;

    /** Makes sure the database is up (skips or fails via {@link Services}). */
    abstract void requireService();

    /** A JDBC URL for the database, with working credentials. */
    abstract String url();

    /** The same database through a local port (for the proxy), or null where there is no network. */
    abstract String urlWithPort(int port);

    /** The database's real port, or -1 where there is no network. */
    abstract int port();

    /** A URL whose credentials the database rejects (the database may need preparing for it). */
    abstract String urlWithWrongCredentials() throws Exception;

    abstract boolean pushes();

    /** SQL creating a table with the right columns but no primary key. */
    String tableWithoutKey(String name) {
        return "CREATE TABLE " + name + " (grp VARCHAR(200) NOT NULL, holder VARCHAR(200) NOT NULL,"
                + " token BIGINT NOT NULL, expires_at BIGINT NOT NULL)";
    }

    @BeforeEach
    void setUp() {
        requireService();
        table = newTableName();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (tables.isEmpty()) {
            return;
        }
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            for (String t : tables) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }

    String newTableName() {
        String name = "bw_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        tables.add(name);
        return name;
    }

    /**
     * A store with a 10 s request timeout: the tests that use it assert what a request does, not how long it may
     * take, and a throttled machine took more than the default 2 s to open the first connection to H2.
     */
    JdbcLeaseStore store() {
        return store(JdbcLeaseStore.builder()
                .url(url())
                .table(table)
                .createSchema(true)
                .requestTimeout(Duration.ofSeconds(10)));
    }

    JdbcLeaseStore store(JdbcLeaseStore.Builder builder) {
        JdbcLeaseStore s = builder.build();
        closeables.add(s);
        return s;
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(LONG.toSeconds(), TimeUnit.SECONDS);
    }

    static JdbcLeaseStoreException failure(CompletionStage<?> stage) {
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> stage.toCompletableFuture().get(LONG.toSeconds(), TimeUnit.SECONDS));
        assertThat(e.getCause()).isInstanceOf(JdbcLeaseStoreException.class);
        // Shown in the test output: this is what an operator reads.
        System.out.println("store error: " + e.getCause().getMessage()
                + (e.getCause().getCause() == null ? "" : " <- " + e.getCause().getCause()));
        return (JdbcLeaseStoreException) e.getCause();
    }

    void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    LeaseRecord awaitExpiry(JdbcLeaseStore store, String group) {
        return await().atMost(LONG).until(() -> get(store.read(group)).orElseThrow(), LeaseRecord::expired);
    }

    /**
     * The lease runs for its duration from the database's now. MariaDB reads the row back in a second statement,
     * whose clock reading may be a little later, so its remaining time may be a little less.
     */
    static void assertFresh(LeaseRecord r, long durationMillis) {
        assertThat(r.remainingMillis()).isLessThanOrEqualTo(durationMillis).isGreaterThan(durationMillis / 2);
    }

    @Test
    void firstAcquisitionGrantsTheLeaseWithTokenOneOnTheDatabaseClock() throws Exception {
        JdbcLeaseStore store = store();

        LeaseRecord r = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        assertThat(r.holder()).isEqualTo("a");
        assertThat(r.token()).isEqualTo(1);
        assertFresh(r, 10_000);
        assertThat(r.heldBy("a", 1)).isTrue();
    }

    @Test
    void holderRenewsWithItsTokenAndKeepsTheToken() throws Exception {
        JdbcLeaseStore store = store();
        LeaseRecord first = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord renewed = get(store.acquireOrRenew(GROUP, "a", first.token(), Duration.ofSeconds(20)));

        assertThat(renewed.heldBy("a", first.token())).isTrue();
        assertFresh(renewed, 20_000);
        assertThat(renewed.expiresAtMillis()).isGreaterThan(first.expiresAtMillis());
    }

    @Test
    void contenderCannotTakeALeaseBeforeItExpires() throws Exception {
        JdbcLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord seen = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));

        assertThat(seen.holder()).isEqualTo("a");
        assertThat(seen.token()).isEqualTo(held.token());
        assertThat(seen.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(seen.expired()).isFalse();
    }

    @Test
    void contenderTakesAnExpiredLeaseWithTheNextToken() throws Exception {
        JdbcLeaseStore store = store();
        get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofMillis(200)));
        awaitExpiry(store, GROUP);

        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));

        assertThat(taken.heldBy("b", 2)).isTrue();
    }

    @Test
    void formerHolderRenewingAfterExpiryGetsANewToken() throws Exception {
        JdbcLeaseStore store = store();
        get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofMillis(200)));
        awaitExpiry(store, GROUP);

        LeaseRecord again = get(store.acquireOrRenew(GROUP, "a", 1, Duration.ofSeconds(10)));

        assertThat(again.heldBy("a", 2)).isTrue();
    }

    @Test
    void renewalNeedsBothHolderAndToken() throws Exception {
        JdbcLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        LeaseRecord wrongToken = get(store.acquireOrRenew(GROUP, "a", 7, Duration.ofSeconds(60)));
        LeaseRecord wrongHolder = get(store.acquireOrRenew(GROUP, "b", 1, Duration.ofSeconds(60)));

        assertThat(wrongToken.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(wrongHolder.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(wrongHolder.holder()).isEqualTo("a");
        assertThat(wrongHolder.token()).isEqualTo(1);
    }

    @Test
    void releaseNeedsHolderAndTokenAndKeepsTheToken() throws Exception {
        JdbcLeaseStore store = store();
        get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));

        assertThat(get(store.release(GROUP, "a", 2))).isFalse();
        assertThat(get(store.release(GROUP, "b", 1))).isFalse();
        assertThat(get(store.read(GROUP)).orElseThrow().expired()).isFalse();

        assertThat(get(store.release(GROUP, "a", 1))).isTrue();
        LeaseRecord released = get(store.read(GROUP)).orElseThrow();
        assertThat(released.expired()).isTrue();
        assertThat(released.token()).isEqualTo(1);
        assertThat(get(store.release(GROUP, "a", 1))).isFalse();

        LeaseRecord next = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));
        assertThat(next.heldBy("b", 2)).isTrue();
    }

    @Test
    void readShowsTheLeaseWithoutContending() throws Exception {
        JdbcLeaseStore store = store();
        assertThat(get(store.read(GROUP))).isEmpty();

        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(10)));
        Optional<LeaseRecord> seen = get(store.read(GROUP));

        assertThat(seen).hasValueSatisfying(r -> {
            assertThat(r.heldBy("a", 1)).isTrue();
            assertThat(r.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        });
        assertThat(get(store.read(GROUP)).orElseThrow().token()).isEqualTo(1);
    }

    @Test
    void groupsInOneTableAreIndependent() throws Exception {
        JdbcLeaseStore store = store();

        LeaseRecord orders = get(store.acquireOrRenew("orders", "a", 0, Duration.ofSeconds(10)));
        LeaseRecord billing = get(store.acquireOrRenew("billing", "b", 0, Duration.ofSeconds(10)));

        assertThat(orders.heldBy("a", 1)).isTrue();
        assertThat(billing.heldBy("b", 1)).isTrue();
        assertThat(get(store.release("orders", "a", 1))).isTrue();
        assertThat(get(store.read("billing")).orElseThrow().expired()).isFalse();
    }

    @Test
    void tokensStayUniqueAndIncreasingUnderConcurrentContenders() throws Exception {
        long seed = Long.getLong("bellwether.test.seed", System.nanoTime());
        System.out.println("tokensStayUniqueAndIncreasingUnderConcurrentContenders seed=" + seed);
        JdbcLeaseStore store = store(JdbcLeaseStore.builder()
                .url(url())
                .table(table)
                .createSchema(true)
                .poolSize(4)
                .requestTimeout(LONG));
        get(store.read(GROUP)); // creates the table before the race starts
        int threads = 8;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        ConcurrentLinkedQueue<Long> acquired = new ConcurrentLinkedQueue<>();
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
                for (int n = 0; n < 5_000 && System.nanoTime() < deadline; n++) {
                    LeaseRecord r = get(store.acquireOrRenew(GROUP, me, renewWith, Duration.ofMillis(15)));
                    assertThat(r.token())
                            .as("tokens seen by %s never go back", me)
                            .isGreaterThanOrEqualTo(observed);
                    observed = r.token();
                    renewWith = 0;
                    if (!r.holder().equals(me)) {
                        continue;
                    }
                    if (r.token() != myToken) {
                        // Granted to this contender by this call, even if the 15 ms lease had already run out
                        // by the time the store read its clock for the answer (MariaDB and H2 read back in a
                        // second statement; under load that can be later than 15 ms).
                        myToken = r.token();
                        mine.add(myToken);
                        acquired.add(myToken);
                        renewals = random.nextInt(3);
                    }
                    if (r.expired()) {
                        continue;
                    }
                    // Renew a few times, then either release or walk away and let it expire.
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
        assertThat(all).as("acquisitions").hasSizeGreaterThan(threads);
        assertThat(new TreeSet<>(all)).as("every token granted once").hasSize(all.size());
        // Every takeover added exactly one to the token and was reported to exactly one contender.
        assertThat(all.get(0)).isEqualTo(1);
        assertThat(all.get(all.size() - 1)).isEqualTo(all.size());
        assertThat(get(store.read(GROUP)).orElseThrow().token()).isEqualTo(all.size());
    }

    @Test
    void releaseWakesAWatcherAtOnceWhereTheStoreCanPush() throws Exception {
        JdbcLeaseStore store = store();
        assertThat(store.canPush()).isEqualTo(pushes());
        Assumptions.assumeTrue(pushes(), "this database cannot push releases; its contenders poll");
        get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(60)));
        Semaphore wakes = new Semaphore(0);
        Semaphore otherGroupWakes = new Semaphore(0);
        closeables.add(store.watchReleases(GROUP, wakes::release));
        closeables.add(store.watchReleases("other", otherGroupWakes::release));
        // The first wake says the watch is in force.
        assertThat(wakes.tryAcquire(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(otherGroupWakes.tryAcquire(LONG.toSeconds(), TimeUnit.SECONDS))
                .isTrue();

        assertThat(get(store.release(GROUP, "a", 1))).isTrue();

        assertThat(wakes.tryAcquire(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        LeaseRecord next = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofSeconds(10)));
        assertThat(next.heldBy("b", 2)).isTrue();
        assertThat(otherGroupWakes.availablePermits()).isZero();
    }

    @Test
    void operationsFailWithinTheRequestTimeoutWhenTheDatabaseStopsAnswering() throws Exception {
        Assumptions.assumeTrue(port() > 0, "no network between this store and its database");
        TcpProxy proxy = new TcpProxy(port());
        closeables.add(proxy);
        JdbcLeaseStore store = store(JdbcLeaseStore.builder()
                .url(urlWithPort(proxy.port()))
                .table(table)
                .createSchema(true)
                .requestTimeout(Duration.ofSeconds(1)));
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(60)));

        proxy.blackhole();

        JdbcLeaseStoreException renew = failure(store.acquireOrRenew(GROUP, "a", held.token(), Duration.ofSeconds(60)));
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
    void unreachableDatabaseIsAClearError() throws Exception {
        Assumptions.assumeTrue(port() > 0, "no network between this store and its database");
        int closedPort = Ports.free();
        JdbcLeaseStore store = store(JdbcLeaseStore.builder()
                .url(urlWithPort(closedPort))
                .table(table)
                .requestTimeout(Duration.ofSeconds(1)));

        JdbcLeaseStoreException e = failure(store.read(GROUP));

        assertThat(e.problem()).isIn(Problem.UNREACHABLE, Problem.TIMEOUT);
        assertThat(e).hasMessageContaining("127.0.0.1:" + closedPort);
    }

    @Test
    void wrongCredentialsAreAClearErrorWithoutThePassword() throws Exception {
        String bad = urlWithWrongCredentials();
        JdbcLeaseStore store = store(JdbcLeaseStore.builder()
                .url(bad)
                .table(table)
                .createSchema(true)
                .requestTimeout(Duration.ofSeconds(2)));

        JdbcLeaseStoreException e = failure(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(1)));

        assertThat(e.problem()).isEqualTo(Problem.CREDENTIALS);
        assertThat(e).hasMessageContaining(store.describe()).hasMessageContaining("user and password");
        assertThat(e.getMessage()).doesNotContain("wrong-password");
        assertThat(store.describe()).doesNotContain("wrong-password");
    }

    @Test
    void missingTableWithoutSchemaCreationIsAClearError() throws Exception {
        JdbcLeaseStore store = store(JdbcLeaseStore.builder().url(url()).table(table));

        JdbcLeaseStoreException e = failure(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(1)));

        assertThat(e.problem()).isEqualTo(Problem.SCHEMA);
        assertThat(e)
                .hasMessageContaining(table)
                .hasMessageContaining("does not exist")
                .hasMessageContaining("create-schema");
    }

    @Test
    void tableWithMissingColumnsIsAClearError() throws Exception {
        execute("CREATE TABLE " + table + " (grp VARCHAR(200) NOT NULL PRIMARY KEY, owner VARCHAR(200))");
        JdbcLeaseStore store = store();

        JdbcLeaseStoreException e = failure(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(1)));

        assertThat(e.problem()).isEqualTo(Problem.SCHEMA);
        assertThat(e).hasMessageContaining(table).hasMessageContaining("wrong shape");
    }

    @Test
    void tableWithWrongTypesOrWithoutKeyIsAClearError() throws Exception {
        execute("CREATE TABLE " + table + " (grp VARCHAR(200) NOT NULL PRIMARY KEY, holder VARCHAR(200) NOT NULL,"
                + " token VARCHAR(20) NOT NULL, expires_at BIGINT NOT NULL)");
        JdbcLeaseStoreException types = failure(store().read(GROUP));
        assertThat(types).hasMessageContaining("token is not BIGINT");

        String keyless = newTableName();
        execute(tableWithoutKey(keyless));
        JdbcLeaseStore store = store(JdbcLeaseStore.builder().url(url()).table(keyless));
        JdbcLeaseStoreException key = failure(store.read(GROUP));
        assertThat(key.problem()).isEqualTo(Problem.SCHEMA);
        assertThat(key).hasMessageContaining("grp is not its primary key");
    }

    /** A lease table as versions before priorities made it. */
    String tableWithoutPriorities(String name) {
        return "CREATE TABLE " + name + " (grp VARCHAR(200) NOT NULL PRIMARY KEY, holder VARCHAR(200) NOT NULL,"
                + " token BIGINT NOT NULL, expires_at BIGINT NOT NULL)";
    }

    @Test
    void onlyAContenderOfHigherPriorityClaimsAndTheHolderSeesTheClaimAtItsRenewal() throws Exception {
        JdbcLeaseStore store = store();
        Duration d = Duration.ofSeconds(10);
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, d, 1));

        LeaseRecord equal = get(store.acquireOrRenew(GROUP, "b", 0, d, 1));
        LeaseRecord lower = get(store.acquireOrRenew(GROUP, "c", 0, d, 0));
        assertThat(equal.claimed()).isFalse();
        assertThat(lower.claimed()).isFalse();

        LeaseRecord claimed = get(store.acquireOrRenew(GROUP, "d", 0, d, 3));
        // A claim changes nothing of the lease itself.
        assertThat(claimed.heldBy("a", held.token())).isTrue();
        assertThat(claimed.expiresAtMillis()).isEqualTo(held.expiresAtMillis());
        assertThat(claimed.claimPriority()).isEqualTo(3);
        assertThat(claimed.claimUntilMillis() - claimed.storeNowMillis()).isBetween(5_000L, 10_000L);

        LeaseRecord weaker = get(store.acquireOrRenew(GROUP, "e", 0, d, 2));
        assertThat(weaker.claimPriority())
                .as("a live claim of higher priority stays")
                .isEqualTo(3);

        LeaseRecord renewed = get(store.acquireOrRenew(GROUP, "a", held.token(), d, 1));
        assertThat(renewed.heldBy("a", held.token())).isTrue();
        assertThat(renewed.claimedAbove(1)).isTrue();
        assertThat(renewed.claimedAbove(3)).isFalse();

        assertThat(get(store.release(GROUP, "a", held.token()))).isTrue();
        LeaseRecord taken = get(store.acquireOrRenew(GROUP, "d", 0, d, 3));
        assertThat(taken.heldBy("d", held.token() + 1)).isTrue();
        assertThat(taken.claimedAbove(3))
                .as("the claimant's own claim does not displace it")
                .isFalse();

        LeaseRecord formerHolder = get(store.acquireOrRenew(GROUP, "a", 0, d, 1));
        assertThat(formerHolder.heldBy("d", held.token() + 1)).isTrue();
        assertThat(get(store.acquireOrRenew(GROUP, "d", taken.token(), d, 3)).claimedAbove(3))
                .isFalse();
    }

    @Test
    void aFreeLeaseGoesToNobodyBelowALiveClaimUntilTheClaimRunsOut() throws Exception {
        JdbcLeaseStore store = store();
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
        assertThat(taken.heldBy("c", held.token() + 1)).as("taken: %s", taken).isTrue();

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
        assertThat(late.heldBy("b", brief.token() + 1)).as("late: %s", late).isTrue();
        assertThat(late.claimed()).isFalse();
    }

    @Test
    void aClaimRunsOutOneDurationAfterTheClaimantsLastPoll() throws Exception {
        JdbcLeaseStore store = store();
        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, Duration.ofSeconds(30), -1));

        LeaseRecord claimed = get(store.acquireOrRenew(GROUP, "b", 0, Duration.ofMillis(300), 0));
        assertThat(claimed.claimedAbove(-1)).isTrue();

        LeaseRecord later = await().atMost(LONG)
                .until(
                        () -> get(store.acquireOrRenew(GROUP, "a", held.token(), Duration.ofSeconds(30), -1)),
                        r -> !r.claimed());
        assertThat(later.heldBy("a", held.token())).isTrue();
        assertThat(later.claimedAbove(-1)).isFalse();
    }

    @Test
    void aTableMadeBeforePrioritiesGetsTheirColumnsWithSchemaCreation() throws Exception {
        execute(tableWithoutPriorities(table));
        get(store(JdbcLeaseStore.builder().url(url()).table(table)).acquireOrRenew(GROUP, "a", 0, LONG));
        JdbcLeaseStore store = store();

        LeaseRecord claimed = get(store.acquireOrRenew(GROUP, "b", 0, LONG, 5));

        assertThat(claimed.heldBy("a", 1)).isTrue();
        assertThat(claimed.claimedAbove(0)).isTrue();
        assertThat(get(store.acquireOrRenew(GROUP, "a", 1, LONG, 0)).claimedAbove(0))
                .isTrue();
    }

    @Test
    void aTableMadeBeforePrioritiesServesPriorityZeroAndRefusesOthersNamingTheColumns() throws Exception {
        execute(tableWithoutPriorities(table));
        JdbcLeaseStore store = store(JdbcLeaseStore.builder().url(url()).table(table));

        LeaseRecord held = get(store.acquireOrRenew(GROUP, "a", 0, LONG, 0));
        assertThat(held.heldBy("a", 1)).isTrue();
        assertThat(get(store.acquireOrRenew(GROUP, "a", 1, LONG)).heldBy("a", 1))
                .isTrue();

        JdbcLeaseStoreException e = failure(store.acquireOrRenew(GROUP, "b", 0, LONG, 2));
        assertThat(e.problem()).isEqualTo(Problem.SCHEMA);
        assertThat(e)
                .hasMessageContaining(table)
                .hasMessageContaining("holder_priority, wanted_priority, wanted_until")
                .hasMessageContaining("ALTER TABLE " + table + " ADD COLUMN holder_priority")
                .hasMessageContaining("create-schema");
        assertThat(get(store.read(GROUP)).orElseThrow().heldBy("a", 1)).isTrue();
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        assertThatThrownBy(() -> JdbcLeaseStore.builder().table("leases; drop table x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table")
                .hasMessageContaining("leases; drop table x");
        assertThatThrownBy(() -> JdbcLeaseStore.builder().url("jdbc:oracle:thin:@h:1521/x"))
                .hasMessageContaining("jdbc:oracle");
        assertThatThrownBy(() -> JdbcLeaseStore.builder().poolSize(0)).hasMessageContaining("pool size");
        assertThatThrownBy(() -> store().acquireOrRenew("", "a", 0, Duration.ofSeconds(1)))
                .hasMessageContaining("group");
    }
}
