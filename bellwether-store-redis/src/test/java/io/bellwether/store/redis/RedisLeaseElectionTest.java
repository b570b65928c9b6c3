package io.bellwether.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.lease.LeaseRecord;
import io.bellwether.lease.LeaseStore;
import io.bellwether.runtime.InProcessNetwork;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.testkit.Services;
import io.bellwether.testkit.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Whole lease elections ({@link Election} + {@link LeaseConfig}) on the real runtime against the real Redis on
 * 127.0.0.1:6379: each contender has its own {@link RedisLeaseStore} (its own connections, as separate processes
 * would), all under this test's own key prefix (random, deleted afterwards). Redis pushes releases over pub/sub.
 * The lease elector sends no peer messages, so each test's {@link InProcessNetwork} carries nothing.
 */
class RedisLeaseElectionTest {
    /**
     * Generous: these ceilings only bound a failing test, they measure nothing. CI machines can run ten times
     * slower than a workstation, and a cold JVM's first connection is the slowest step of all.
     */
    static final long CEILING_SECONDS = 60;

    static final String URI = "redis://127.0.0.1:6379";
    static final String LEASE = "jobs";
    static final NodeId A = NodeId.of("a");
    static final NodeId B = NodeId.of("b");
    static final NodeId C = NodeId.of("c");

    static RedisClient admin;
    static StatefulRedisConnection<String, String> adminConnection;

    final List<AutoCloseable> closeables = new ArrayList<>();
    final List<TcpProxy> proxies = new ArrayList<>();
    final InProcessNetwork network = new InProcessNetwork();
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
        prefix = "bw-election:" + UUID.randomUUID().toString().substring(0, 12) + ":";
    }

    @AfterEach
    void tearDown() throws Exception {
        // Proxies first, so that no store waits on a black-holed connection while closing; then elections (a
        // leader's release still goes out), then stores and the network.
        proxies.forEach(TcpProxy::close);
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        network.close();
        List<String> keys = adminConnection.sync().keys(prefix + "*");
        if (!keys.isEmpty()) {
            adminConnection.sync().del(keys.toArray(String[]::new));
        }
    }

    String url() {
        return URI;
    }

    String urlWithPort(int port) {
        return "redis://127.0.0.1:" + port;
    }

    /** Two-second leases so that expiry-driven tests finish quickly; everything else is derived. */
    LeaseConfig.Builder config(LeaseStore store) {
        return LeaseConfig.builder().store(store).name(LEASE).duration(Duration.ofSeconds(2));
    }

    /**
     * A store reaching Redis directly. Its requests may take up to 10 s, so that a slow machine's first connection
     * does not fail the request (a failed first request waits a whole {@code retry} to be tried again); the
     * elector still bounds each request by its own {@code request-timeout}.
     */
    ObservedStore store(String uri) {
        return store(uri, Duration.ofSeconds(10));
    }

    /** A store behind a {@link #proxy()}: a black-holed request must fail soon, not hold the connection 10 s. */
    ObservedStore proxiedStore(TcpProxy proxy) {
        return store(urlWithPort(proxy.port()), Duration.ofMillis(500));
    }

    private ObservedStore store(String uri, Duration requestTimeout) {
        RedisLeaseStore s = RedisLeaseStore.builder()
                .uri(uri)
                .keyPrefix(prefix)
                .requestTimeout(requestTimeout)
                .build();
        ObservedStore observed = new ObservedStore(s);
        closeables.add(observed);
        return observed;
    }

    TcpProxy proxy() throws Exception {
        TcpProxy p = new TcpProxy(6379);
        proxies.add(p);
        return p;
    }

    Contender contender(NodeId self, LeaseConfig config) {
        Election e = Election.builder()
                .group("jobs")
                .self(self)
                .member(self, NodeAddress.parse("127.0.0.1:7101"))
                .algorithm(config)
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(self))
                .seed(self.value().hashCode())
                .build();
        Contender c = new Contender(self, e, config);
        e.addListener(c);
        closeables.add(e);
        return c;
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------------------------------------------------

    @Test
    void ofThreeContendersExactlyOneLeadsWithTheStoresTokenAsItsEpoch() throws Exception {
        ObservedStore store = store(url());
        List<Contender> all = List.of(
                contender(A, config(store).build()),
                contender(B, config(store(url())).build()),
                contender(C, config(store(url())).build()));
        all.forEach(c -> c.election.start());

        Leadership first = (Leadership)
                await(CompletableFuture.anyOf(all.stream().map(c -> c.elected).toArray(CompletableFuture[]::new)));
        Contender leader = all.stream()
                .filter(c -> c.elected.getNow(null) == first)
                .findFirst()
                .orElseThrow();
        // Everyone else has seen the leader's lease (a poll that found it held), so each had its chance to take it.
        for (Contender c : all) {
            assertThat(await(c.follows(leader.self)).epoch()).isEqualTo(first.epoch());
        }

        assertThat(all.stream().filter(c -> c.election.isLeader())).containsExactly(leader);
        assertThat(all.stream().filter(c -> c.elected.isDone())).containsExactly(leader);
        LeaseRecord rec = await(store.read(LEASE)).orElseThrow();
        assertThat(rec.token()).isEqualTo(first.epoch());
        assertThat(rec.holder()).isEqualTo(leader.config.holderId(leader.self));
        assertThat(rec.expired()).isFalse();
    }

    @Test
    void leaderCutOffFromTheStoreIsRevokedBeforeItsValidityEndsAndAContenderTakesOverWithAHigherToken()
            throws Exception {
        TcpProxy proxy = proxy();
        Contender a = contender(A, config(proxiedStore(proxy)).build());
        a.election.start();
        Leadership la = await(a.elected);
        ObservedStore direct = store(url());
        Contender b = contender(B, config(direct).build());
        b.election.start();
        assertThat(await(b.follows(A)).epoch()).isEqualTo(la.epoch());

        long validUntilBeforeCut = la.validUntilNanos();
        proxy.blackhole();

        RevocationReason reason = await(a.revoked);
        // The validity may have moved forward after the capture (a renewal answered just before the cut), never
        // backward; revocation must come before the latest validity, which is what it was when revoked.
        assertThat(a.revokedAtNanos).isLessThan(a.validUntilAtRevocation);
        assertThat(a.validUntilAtRevocation).isGreaterThanOrEqualTo(validUntilBeforeCut);
        assertThat(reason).isNotNull();
        assertThat(a.election.isLeader()).isFalse();

        Leadership lb = await(b.elected);
        assertThat(lb.epoch()).isGreaterThan(la.epoch());
        LeaseRecord rec = await(direct.read(LEASE)).orElseThrow();
        assertThat(rec.token()).isEqualTo(lb.epoch());
        assertThat(rec.holder()).isEqualTo(b.config.holderId(B));
        assertThat(a.election.isLeader()).isFalse();
    }

    @Test
    void gracefulCloseOfTheLeaderHandsTheLeaseToAContenderByPush() throws Exception {
        // A lease far longer than the ceiling: the contender can only get it because the leader released it.
        Duration longLease = Duration.ofSeconds(CEILING_SECONDS * 3);
        Contender a = contender(A, config(store(url())).duration(longLease).build());
        a.election.start();
        Leadership la = await(a.elected);

        ObservedStore bStore = store(url());
        // Polls so rare that only the pushed release can wake the contender within the ceiling.
        LeaseConfig.Builder bConfig = config(bStore).duration(longLease).retry(Duration.ofSeconds(CEILING_SECONDS * 4));
        Contender b = contender(B, bConfig.build());
        b.election.start();
        assertThat(await(b.follows(A)).epoch()).isEqualTo(la.epoch());
        // The store wakes a new watch once it is in force; that wake makes the contender poll again, and every
        // such poll is preceded by the contender's next release long-poll. A second poll therefore means the
        // watch is armed for the release below.
        await(bStore.pollCount(2));

        a.election.close();

        Leadership lb = await(b.elected);
        assertThat(lb.epoch()).isGreaterThan(la.epoch());
        assertThat(a.revoked).isDone();
        assertThat(a.revokedAtNanos).isLessThan(b.electedAtNanos);
        LeaseRecord rec = await(bStore.read(LEASE)).orElseThrow();
        assertThat(rec.token()).isEqualTo(lb.epoch());
        assertThat(rec.holder()).isEqualTo(b.config.holderId(B));
    }

    // ---------------------------------------------------------------------------------------------------------

    /** One member and what it has been told. */
    static final class Contender implements ElectionListener {
        final NodeId self;
        final Election election;
        final LeaseConfig config;
        final CompletableFuture<Leadership> elected = new CompletableFuture<>();
        final CompletableFuture<RevocationReason> revoked = new CompletableFuture<>();
        final Map<NodeId, CompletableFuture<LeaderView>> followed = new ConcurrentHashMap<>();
        volatile long electedAtNanos;
        volatile long revokedAtNanos;
        volatile long validUntilAtRevocation;

        Contender(NodeId self, Election election, LeaseConfig config) {
            this.self = self;
            this.election = election;
            this.config = config;
        }

        CompletableFuture<LeaderView> follows(NodeId leader) {
            return followed.computeIfAbsent(leader, l -> new CompletableFuture<>());
        }

        @Override
        public void elected(Leadership leadership) {
            electedAtNanos = System.nanoTime();
            // Runs on the thread that revokes (the watchdog or the loop), at the moment of revocation.
            leadership.revoked().whenComplete((r, e) -> {
                revokedAtNanos = System.nanoTime();
                validUntilAtRevocation = leadership.validUntilNanos();
                revoked.complete(r);
            });
            elected.complete(leadership);
        }

        @Override
        public void leaderChanged(Optional<LeaderView> leader) {
            leader.ifPresent(v -> follows(v.leader()).complete(v));
        }

        @Override
        public String toString() {
            return self.toString();
        }
    }

    /** A store that counts the contender's polls (acquire-or-renew calls) and lets a test await a count. */
    static final class ObservedStore implements LeaseStore {
        private final LeaseStore delegate;
        private final AtomicInteger polls = new AtomicInteger();
        private final Map<Integer, CompletableFuture<Void>> pollWaits = new ConcurrentHashMap<>();

        ObservedStore(LeaseStore delegate) {
            this.delegate = delegate;
        }

        CompletableFuture<Void> pollCount(int n) {
            CompletableFuture<Void> f = pollWaits.computeIfAbsent(n, k -> new CompletableFuture<>());
            if (polls.get() >= n) {
                f.complete(null);
            }
            return f;
        }

        @Override
        public String describe() {
            return delegate.describe();
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            int n = polls.incrementAndGet();
            pollWaits.forEach((k, f) -> {
                if (k <= n) {
                    f.complete(null);
                }
            });
            return delegate.acquireOrRenew(group, holder, token, d);
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return delegate.release(group, holder, token);
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            return delegate.read(group);
        }

        @Override
        public boolean canPush() {
            return delegate.canPush();
        }

        @Override
        public AutoCloseable watchReleases(String group, Runnable onRelease) {
            return delegate.watchReleases(group, onRelease);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
