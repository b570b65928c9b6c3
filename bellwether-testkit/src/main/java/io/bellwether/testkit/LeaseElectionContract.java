package io.bellwether.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.state.InMemoryStateStore;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Whole lease elections ({@link Election} + {@link LeaseConfig}) on the real runtime against a real store, the same
 * for every {@link LeaseStore}: each contender has its own store instance (its own connections, as separate
 * processes would), all in this test's own {@link #namespace} (random, its data deleted afterwards). The lease
 * elector sends no peer messages, so each test's {@link InProcessNetwork} carries nothing. Whether a contender
 * waits for a pushed release or polls follows from the store's {@link LeaseStore#canPush()}.
 *
 * <p>A store module's test extends this and says how to reach its service ({@link #newStore}), on which port the
 * service listens (the black-holing {@link TcpProxy} forwards there) and how to delete a namespace's data.
 */
public abstract class LeaseElectionContract {
    /**
     * Generous: these ceilings only bound a failing test, they measure nothing. CI machines can run ten times
     * slower than a workstation, and a cold JVM's first connection to a store is the slowest step of all.
     */
    protected static final long CEILING_SECONDS = 60;

    static final String LEASE = "jobs";
    static final NodeId A = NodeId.of("a");
    static final NodeId B = NodeId.of("b");
    static final NodeId C = NodeId.of("c");

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<TcpProxy> proxies = new ArrayList<>();
    private final InProcessNetwork network = new InProcessNetwork();

    /**
     * This test's own namespace, fresh for every test: {@code bw_election_} and 12 hex digits, usable as a table
     * name or a key prefix.
     */
    protected String namespace;

    /** Makes sure the service is up (skips or fails via {@link Services}). */
    protected abstract void requireService();

    /**
     * The port the service listens on, on 127.0.0.1.
     *
     * @return the service's port
     */
    protected abstract int servicePort();

    /**
     * A new store in {@link #namespace}, reaching the service at 127.0.0.1:{@code port} (the service's own port,
     * or a proxy's), whose requests time out after {@code requestTimeout}.
     *
     * @param port the port to reach the service at
     * @param requestTimeout how long one store request may take
     * @return the new store; the contract closes it after the test
     */
    protected abstract LeaseStore newStore(int port, Duration requestTimeout);

    /**
     * Deletes everything in {@code namespace}; runs after every test, once its stores are closed.
     *
     * @param namespace the test's namespace (table or key prefix)
     * @throws Exception if the service refuses; the test then fails
     */
    protected abstract void deleteNamespace(String namespace) throws Exception;

    /** Checks the service and draws this test's {@link #namespace}. */
    @BeforeEach
    protected void setUpNamespace() {
        requireService();
        namespace =
                "bw_election_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /**
     * Closes what the test opened (proxies, elections, stores, the network) and deletes its namespace.
     *
     * @throws Exception if closing or deleting fails
     */
    @AfterEach
    protected void tearDownNamespace() throws Exception {
        // Proxies first, so that no store waits on a black-holed connection while closing; then elections (a
        // leader's release still goes out), then stores and the network.
        proxies.forEach(TcpProxy::close);
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        network.close();
        deleteNamespace(namespace);
    }

    /** Two-second leases so that expiry-driven tests finish quickly; everything else is derived. */
    LeaseConfig.Builder config(LeaseStore store) {
        return LeaseConfig.builder().store(store).duration(Duration.ofSeconds(2));
    }

    /**
     * A store reaching the service directly. Its requests may take up to 10 s, so that a slow machine's first
     * connection does not fail the request (a failed first request waits a whole {@code retry} to be tried
     * again); the elector still bounds each request by its own {@code request-timeout}.
     */
    ObservedStore store() {
        return observed(newStore(servicePort(), Duration.ofSeconds(10)));
    }

    /** A store behind a {@link #proxy()}: a black-holed request must fail soon, not hold a connection 10 s. */
    ObservedStore proxiedStore(TcpProxy proxy) {
        return observed(newStore(proxy.port(), Duration.ofMillis(500)));
    }

    private ObservedStore observed(LeaseStore store) {
        ObservedStore observed = new ObservedStore(store);
        closeables.add(observed);
        return observed;
    }

    TcpProxy proxy() throws Exception {
        TcpProxy p = new TcpProxy(servicePort());
        proxies.add(p);
        return p;
    }

    Contender contender(NodeId self, LeaseConfig config) {
        Election e = Election.builder()
                .group(LEASE)
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

    /**
     * Three contenders, each with its own store: one leads, the others follow it, and its epoch is the token the
     * store holds.
     *
     * @throws Exception on a store or election failure
     */
    @Test
    public void ofThreeContendersExactlyOneLeadsWithTheStoresTokenAsItsEpoch() throws Exception {
        ObservedStore store = store();
        List<Contender> all = List.of(
                contender(A, config(store).build()),
                contender(B, config(store()).build()),
                contender(C, config(store()).build()));
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

    /**
     * A leader whose store connection is black-holed loses its leadership before its validity ends, and a
     * contender takes over with a higher token.
     *
     * @throws Exception on a store or election failure
     */
    @Test
    public void leaderCutOffFromTheStoreIsRevokedBeforeItsValidityEndsAndAContenderTakesOverWithAHigherToken()
            throws Exception {
        TcpProxy proxy = proxy();
        Contender a = contender(A, config(proxiedStore(proxy)).build());
        a.election.start();
        Leadership la = await(a.elected);
        ObservedStore direct = store();
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

    /**
     * Closing the leader releases the lease, so a contender takes over long before the lease would have expired.
     *
     * @throws Exception on a store or election failure
     */
    @Test
    public void gracefulCloseOfTheLeaderHandsTheLeaseToAContender() throws Exception {
        // A lease far longer than the ceiling: the contender can only get it because the leader released it.
        Duration longLease = Duration.ofSeconds(CEILING_SECONDS * 3);
        Contender a = contender(A, config(store()).duration(longLease).build());
        a.election.start();
        Leadership la = await(a.elected);

        ObservedStore bStore = store();
        LeaseConfig.Builder bConfig = config(bStore).duration(longLease);
        if (bStore.canPush()) {
            // Polls so rare that only the pushed release can wake the contender within the ceiling.
            bConfig.retry(Duration.ofSeconds(CEILING_SECONDS * 4));
        } else {
            bConfig.retry(Duration.ofMillis(200));
        }
        Contender b = contender(B, bConfig.build());
        b.election.start();
        assertThat(await(b.follows(A)).epoch()).isEqualTo(la.epoch());
        if (bStore.canPush()) {
            // The store wakes a new watch once it is in force; that wake makes the contender poll again, and
            // every such poll is preceded by the contender's next release long-poll. A second poll therefore
            // means the watch is armed for the release below.
            await(bStore.pollCount(2));
        }

        a.election.close();

        Leadership lb = await(b.elected);
        assertThat(lb.epoch()).isGreaterThan(la.epoch());
        assertThat(a.revoked).isDone();
        assertThat(a.revokedAtNanos).isLessThan(b.electedAtNanos);
        LeaseRecord rec = await(bStore.read(LEASE)).orElseThrow();
        assertThat(rec.token()).isEqualTo(lb.epoch());
        assertThat(rec.holder()).isEqualTo(b.config.holderId(B));
    }

    /**
     * A contender of higher priority that joins while another member leads becomes holder once: the leader sees its
     * claim at a renewal, is revoked before it releases, and the contender takes the lease with the next token. The
     * lease then stays with it: the former leader, back from its hold-off, polls again and finds it held.
     *
     * @throws Exception on a store or election failure
     */
    @Test
    public void aContenderOfHigherPriorityThatJoinsLateTakesTheLeaseOnceAndKeepsIt() throws Exception {
        ObservedStore aStore = store();
        Contender a = contender(A, config(aStore).build());
        a.election.start();
        Leadership la = await(a.elected);

        Contender c = contender(C, config(store()).priority(5).build());
        c.election.start();
        Leadership lc = await(c.elected);

        assertThat(await(a.revoked)).isEqualTo(RevocationReason.RESIGNED);
        // Never two leaders: the former one was revoked before the new one was elected.
        assertThat(a.revokedAtNanos).isLessThan(c.electedAtNanos);
        assertThat(lc.epoch()).isGreaterThan(la.epoch());

        // Past its hold-off the former leader polls again (finding the lease held by a higher priority, it
        // claims nothing); the lease has not moved since: any takeover would have raised the token.
        await(aStore.pollCount(aStore.polls() + 3));
        assertThat(c.election.isLeader()).isTrue();
        assertThat(c.revoked).isNotDone();
        assertThat(a.election.isLeader()).isFalse();
        LeaseRecord rec = await(aStore.read(LEASE)).orElseThrow();
        assertThat(rec.token()).isEqualTo(lc.epoch());
        assertThat(rec.holder()).isEqualTo(c.config.holderId(C));
    }

    /**
     * The lease moves once, to the highest priority: when the leader releases to a late claimant, a waiting
     * contender of lower priority than the claim does not take the free lease first, though it polls several times
     * before the claimant does (and, where the store pushes, is woken by the release while the claimant is not). The
     * leader (priority 2) is above the waiting contender (priority 1), so only the late one (priority 5) claims.
     *
     * @throws Exception on a store or election failure
     */
    @Test
    public void aWaitingContenderBelowTheClaimDoesNotTakeTheLeaseReleasedToTheClaimant() throws Exception {
        Contender a = contender(A, config(store()).priority(2).build());
        a.election.start();
        Leadership la = await(a.elected);

        ObservedStore bStore = store();
        Contender b = contender(
                B, config(bStore).priority(1).retry(Duration.ofMillis(50)).build());
        b.election.start();
        assertThat(await(b.follows(A)).epoch()).isEqualTo(la.epoch());

        // The claimant comes late: it hears of no release (as after a lost push), and its polls from the former
        // leader's resignation on reach the store only once the waiting contender has polled five more times, each
        // of which the store must refuse.
        CompletableFuture<Void> bPolledAfterRelease = a.revoked.thenCompose(r -> bStore.pollCount(bStore.polls() + 5));
        LeaseStore deaf = new ForwardingLeaseStore(store()) {
            @Override
            public CompletionStage<LeaseRecord> acquireOrRenew(
                    String group, String holder, long token, Duration d, int priority) {
                if (!a.revoked.isDone()) {
                    return super.acquireOrRenew(group, holder, token, d, priority);
                }
                return bPolledAfterRelease.thenCompose(v -> super.acquireOrRenew(group, holder, token, d, priority));
            }

            @Override
            public boolean canPush() {
                return false;
            }

            @Override
            public AutoCloseable watchReleases(String group, Runnable onRelease) {
                return () -> {};
            }
        };
        Contender c = contender(C, config(deaf).priority(5).build());
        c.election.start();
        Leadership lc = await(c.elected);

        assertThat(await(a.revoked)).isEqualTo(RevocationReason.RESIGNED);
        assertThat(a.revokedAtNanos).isLessThan(c.electedAtNanos);
        assertThat(await(b.follows(C)).epoch()).isEqualTo(lc.epoch());
        // The waiting contender keeps polling, and never holds the lease (not even for the instant it would take to
        // see the claim on it and yield).
        await(bStore.pollCount(bStore.polls() + 5));
        assertThat(bStore.everHeld()).isFalse();
        assertThat(b.elected).isNotDone();
        assertThat(c.election.isLeader()).isTrue();
        LeaseRecord rec = await(bStore.read(LEASE)).orElseThrow();
        assertThat(rec.token()).isEqualTo(lc.epoch());
        assertThat(rec.holder()).isEqualTo(c.config.holderId(C));
    }

    // ---------------------------------------------------------------------------------------------------------

    /** One member and what it has been told. */
    protected static final class Contender implements ElectionListener {
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
    protected static final class ObservedStore extends ForwardingLeaseStore {
        private final AtomicInteger polls = new AtomicInteger();
        private final AtomicBoolean held = new AtomicBoolean();
        private final Map<Integer, CompletableFuture<Void>> pollWaits = new ConcurrentHashMap<>();

        ObservedStore(LeaseStore delegate) {
            super(delegate);
        }

        private void count() {
            int n = polls.incrementAndGet();
            pollWaits.forEach((k, f) -> {
                if (k <= n) {
                    f.complete(null);
                }
            });
        }

        int polls() {
            return polls.get();
        }

        CompletableFuture<Void> pollCount(int n) {
            CompletableFuture<Void> f = pollWaits.computeIfAbsent(n, k -> new CompletableFuture<>());
            if (polls.get() >= n) {
                f.complete(null);
            }
            return f;
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            count();
            return delegate.acquireOrRenew(group, holder, token, d);
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(
                String group, String holder, long token, Duration d, int priority) {
            if (priority == 0) {
                return acquireOrRenew(group, holder, token, d);
            }
            count();
            return delegate.acquireOrRenew(group, holder, token, d, priority).thenApply(r -> {
                if (!r.expired() && r.holder().equals(holder)) {
                    held.set(true);
                }
                return r;
            });
        }

        /**
         * Whether a poll with a priority other than 0 ever came back with the lease held by the caller: a member
         * that takes a lease with a live claim above it on it yields at once, before it leads, so only the store
         * tells that the lease passed through it.
         */
        boolean everHeld() {
            return held.get();
        }
    }
}
