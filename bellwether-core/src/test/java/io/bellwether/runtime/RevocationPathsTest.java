package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.TaskOptions;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.Transport;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every way a leadership ends, on real elections: lost quorum, a network that hangs, a higher epoch, a lease that is
 * not renewed, a store that hangs, a resignation and an unhealthy task. In each, the leader's task (run with {@link
 * Election#runWhileLeader}) sees its interrupt strictly before the leadership's {@link Leadership#validUntilNanos()}
 * as it stood when the leadership was revoked: the task is cancelled while the leadership is still valid, so no other
 * member can lead yet. The comparison is of two instants of one clock, a safety property, not a timing target.
 */
class RevocationPathsTest {
    private static final long CEILING_SECONDS = 10;

    /**
     * An election timeout of 600 ms: a heartbeat round late by more than the revocation lead on a loaded machine does
     * not end a leadership before the test triggers its path.
     */
    private static final QuorumConfig QUORUM = QuorumConfig.builder()
            .heartbeatInterval(Duration.ofMillis(50))
            .missedHeartbeats(12)
            .build();

    /**
     * How long before validity ends the runtime revokes: it must cover the delay between the watchdog's deadline and
     * the task's thread seeing the interrupt. On a loaded 2-core test machine that delay has exceeded the default
     * (20 ms); this test checks that every path cancels the task ahead of validity, not the machine's scheduling, so
     * it leaves a wider lead, well within every algorithm's renewal period here.
     */
    private static final Duration REVOCATION_LEAD = Duration.ofMillis(100);

    private final InProcessNetwork network = new InProcessNetwork();
    private final List<Election> elections = new ArrayList<>();
    private final List<GatedTransport> gates = new ArrayList<>();
    private final List<TestLeaseStore> stores = new ArrayList<>();

    @AfterEach
    void closeAll() {
        gates.forEach(GatedTransport::release);
        stores.forEach(TestLeaseStore::release);
        elections.forEach(Election::close);
        network.close();
    }

    // ---------------------------------------------------------------- the paths

    @Test
    void lostQuorum() throws Exception {
        Map<NodeId, Probe> group = group("lost-quorum", 3, QUORUM, network::transport, TaskOptions.defaults());
        Probe leader = firstLeader(group);

        for (NodeId other : group.keySet()) {
            if (!other.equals(leader.id)) {
                network.disconnect(leader.id, other);
            }
        }

        // The elector sees its quorum gone (LOST_QUORUM) unless the watchdog's deadline comes first.
        assertCancelledBeforeValidityEnds(leader, RevocationReason.LOST_QUORUM, RevocationReason.VALIDITY_EXPIRED);

        // The others lead at a later epoch; by then the old leader has also finished giving up its leadership.
        nextLeadership(leader, await(leader.leadership, "the first leadership").epoch());
    }

    @Test
    void networkThatHangs() throws Exception {
        Map<NodeId, GatedTransport> gated = new LinkedHashMap<>();
        Map<NodeId, Probe> group = group(
                "hung-network",
                3,
                QUORUM,
                id -> {
                    GatedTransport g = new GatedTransport(network.transport(id), true);
                    gated.put(id, g);
                    gates.add(g);
                    return g;
                },
                TaskOptions.defaults());
        Probe leader = firstLeader(group);

        // Connections stay open; nothing the leader sends or should receive arrives until the end of the test.
        gated.get(leader.id).hold();

        assertCancelledBeforeValidityEnds(leader, RevocationReason.LOST_QUORUM, RevocationReason.VALIDITY_EXPIRED);

        // When the network recovers, the group leads again at a later epoch: what was held goes on in order.
        long revokedEpoch = await(leader.leadership, "the first leadership").epoch();
        gated.get(leader.id).release();
        nextLeadership(leader, revokedEpoch);
    }

    /**
     * Quorum: the leader is cut off (its traffic silently dropped), the others elect a leader at a higher term, and
     * when the partition heals that term reaches the old leader. Its leadership ended before any of that: the
     * quorum's old leader is revoked when its validity runs out, before the others can elect (so its reason is
     * LOST_QUORUM or VALIDITY_EXPIRED, not HIGHER_EPOCH_SEEN; {@link #higherEpoch} meets a higher epoch while
     * valid), and its task saw the interrupt before its validity ended and before the new leader's task started.
     */
    @Test
    void higherEpochAfterAPartition() throws Exception {
        Map<NodeId, Election> byId = new LinkedHashMap<>();
        Map<NodeId, Probe> group = group("partition", 3, QUORUM, network::transport, TaskOptions.defaults(), byId);
        Probe leader = firstLeader(group);
        long oldEpoch = await(leader.leadership, "the first leadership").epoch();
        CompletableFuture<LeaderView> follows = new CompletableFuture<>();
        byId.get(leader.id).addListener(new ElectionListener() {
            @Override
            public void leaderChanged(Optional<LeaderView> view) {
                view.filter(v -> v.epoch() > oldEpoch).ifPresent(follows::complete);
            }
        });

        network.isolate(leader.id);
        Started next = nextLeadership(leader, oldEpoch);
        network.heal(leader.id);

        assertThat(next.id()).isNotEqualTo(leader.id);
        assertCancelledBeforeValidityEnds(leader, RevocationReason.LOST_QUORUM, RevocationReason.VALIDITY_EXPIRED);
        assertThat(next.atNanos() - await(leader.interruptedAt, "the interrupt"))
                .as("the new leader's task started after the old one saw its interrupt")
                .isPositive();
        LeaderView view = await(follows, "the old leader following a later epoch");
        assertThat(view.epoch()).isGreaterThanOrEqualTo(next.leadership().epoch());
    }

    /** The first leadership of {@code probe}'s group at an epoch after {@code epoch}. */
    private static Started nextLeadership(Probe probe, long epoch) throws InterruptedException {
        Started next;
        do {
            next = probe.runs.poll(CEILING_SECONDS, TimeUnit.SECONDS);
            assertThat(next).as("a leadership after epoch %d", epoch).isNotNull();
        } while (next.leadership().epoch() <= epoch);
        return next;
    }

    /**
     * Bully: a member of higher rank that starts late announces itself coordinator at a higher epoch, which reaches
     * the leader while its leadership is valid. (A quorum leader cannot meet a higher epoch while valid: the others
     * elect only after its validity has ended, which {@link #higherEpochAfterAPartition} covers.)
     */
    @Test
    void higherEpoch() throws Exception {
        BullyConfig bully = BullyConfig.defaults().toBuilder()
                .missedHeartbeats(8)
                .preemptionHoldDown(Duration.ofMillis(100))
                .build();
        Map<NodeId, NodeAddress> members = members(3);
        Map<NodeId, Probe> group = new LinkedHashMap<>();
        Map<NodeId, Election> byId = new LinkedHashMap<>();
        for (NodeId id : members.keySet()) {
            Probe probe = new Probe(id);
            group.put(id, probe);
            byId.put(id, member("higher-epoch", id, members, bully, network.transport(id), probe, null));
        }
        NodeId highest = NodeId.of("n3");
        byId.get(NodeId.of("n1")).start();
        byId.get(NodeId.of("n2")).start();
        Probe leader = group.get(NodeId.of("n2"));
        Leadership first = await(leader.leadership, "n2's leadership");

        byId.get(highest).start();

        assertCancelledBeforeValidityEnds(leader, RevocationReason.HIGHER_EPOCH_SEEN);
        assertThat(await(group.get(highest).leadership, "n3's leadership").epoch())
                .isGreaterThan(first.epoch());
    }

    @Test
    void leaseNotRenewed() throws Exception {
        TestLeaseStore store = new TestLeaseStore();
        Probe leader = leaseHolder("lease-refused", store);

        store.mode = TestLeaseStore.Mode.FAIL;

        assertCancelledBeforeValidityEnds(leader, RevocationReason.LEASE_NOT_RENEWED);
    }

    /** The store's calls block their caller (the election's store thread) until the end of the test. */
    @Test
    void storeThatHangs() throws Exception {
        TestLeaseStore store = new TestLeaseStore();
        Probe leader = leaseHolder("lease-hung", store);

        store.mode = TestLeaseStore.Mode.BLOCK;

        assertCancelledBeforeValidityEnds(
                leader, RevocationReason.LEASE_NOT_RENEWED, RevocationReason.VALIDITY_EXPIRED);
    }

    @Test
    void resign() throws Exception {
        Map<NodeId, Election> byId = new LinkedHashMap<>();
        Map<NodeId, Probe> group = group("resign", 3, QUORUM, network::transport, TaskOptions.defaults(), byId);
        Probe leader = firstLeader(group);

        byId.get(leader.id).resign();

        assertCancelledBeforeValidityEnds(leader, RevocationReason.RESIGNED);
    }

    @Test
    void taskUnhealthy() throws Exception {
        TaskOptions silent = TaskOptions.builder()
                .name("silent")
                .healthTimeout(Duration.ofMillis(100))
                .build();
        Map<NodeId, Probe> group = group("unhealthy", 3, QUORUM, network::transport, silent);
        Probe leader = firstLeader(group); // its task never calls heartbeat()

        assertCancelledBeforeValidityEnds(leader, RevocationReason.TASK_UNHEALTHY);
    }

    // ---------------------------------------------------------------- the check

    private static void assertCancelledBeforeValidityEnds(Probe leader, RevocationReason... expected) throws Exception {
        Revocation revocation = await(leader.revocation, leader.id + "'s revocation");
        assertThat(revocation.reason())
                .as("why %s's leadership ended", leader.id)
                .isIn((Object[]) expected);
        long interruptedAt = await(leader.interruptedAt, leader.id + "'s task seeing its interrupt");
        long validUntil = Math.min(revocation.validUntilNanos(), leader.validUntilWhenInterrupted);
        assertThat(validUntil - interruptedAt)
                .as(
                        "%s's task saw its interrupt %d µs before its leadership's validity ended (negative: after;"
                                + " revoked %s %d µs before it)",
                        leader.id,
                        TimeUnit.NANOSECONDS.toMicros(validUntil - interruptedAt),
                        revocation.reason(),
                        TimeUnit.NANOSECONDS.toMicros(validUntil - revocation.atNanos()))
                .isPositive();
    }

    // ---------------------------------------------------------------- groups

    private static Map<NodeId, NodeAddress> members(int n) {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= n; i++) {
            members.put(NodeId.of("n" + i), NodeAddress.parse("127.0.0.1:" + (7100 + i)));
        }
        return members;
    }

    private Map<NodeId, Probe> group(
            String name, int n, ElectorSpec algorithm, Function<NodeId, Transport> transport, TaskOptions options) {
        return group(name, n, algorithm, transport, options, new LinkedHashMap<>());
    }

    /** Starts a group whose members all run a {@link Probe}; the first to lead completes {@link #firstLeader}. */
    private Map<NodeId, Probe> group(
            String name,
            int n,
            ElectorSpec algorithm,
            Function<NodeId, Transport> transport,
            TaskOptions options,
            Map<NodeId, Election> byId) {
        Map<NodeId, NodeAddress> members = members(n);
        Map<NodeId, Probe> probes = new LinkedHashMap<>();
        CompletableFuture<Probe> first = new CompletableFuture<>();
        BlockingQueue<Started> runs = new LinkedBlockingQueue<>();
        for (NodeId id : members.keySet()) {
            Probe probe = new Probe(id, first, runs);
            probes.put(id, probe);
            byId.put(id, member(name, id, members, algorithm, transport.apply(id), probe, options));
        }
        byId.values().forEach(Election::start);
        return probes;
    }

    private Election member(
            String group,
            NodeId id,
            Map<NodeId, NodeAddress> members,
            ElectorSpec algorithm,
            Transport transport,
            Probe probe,
            TaskOptions options) {
        Election e = Election.builder()
                .group(group)
                .self(id)
                .members(members)
                .algorithm(algorithm)
                .stateStore(new InMemoryStateStore())
                .transport(transport)
                .seed(id.hashCode())
                .revocationLead(REVOCATION_LEAD)
                .build();
        elections.add(e);
        e.runWhileLeader(probe, options == null ? TaskOptions.defaults() : options);
        return e;
    }

    private static Probe firstLeader(Map<NodeId, Probe> group) throws Exception {
        return await(group.values().iterator().next().firstOfGroup, "a leader");
    }

    /** A single lease contender whose task is a probe; returns once it holds the lease. */
    private Probe leaseHolder(String group, TestLeaseStore store) throws Exception {
        stores.add(store);
        NodeId self = NodeId.of("n1");
        LeaseConfig config = LeaseConfig.builder()
                .store(store)
                .duration(Duration.ofMillis(1800))
                .renewInterval(Duration.ofMillis(150))
                .renewDeadline(Duration.ofMillis(900))
                .retry(Duration.ofMillis(150))
                .requestTimeout(Duration.ofMillis(600))
                .validityMargin(Duration.ofMillis(150))
                .build();
        Probe probe = new Probe(self);
        member(
                        group,
                        self,
                        Map.of(self, NodeAddress.parse("127.0.0.1:7101")),
                        config,
                        network.transport(self),
                        probe,
                        null)
                .start();
        await(probe.leadership, "the lease");
        return probe;
    }

    private static <T> T await(CompletableFuture<T> f, String what) throws Exception {
        try {
            return f.get(CEILING_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no " + what + " within " + CEILING_SECONDS + " s", e);
        }
    }

    // ---------------------------------------------------------------- the task

    record Revocation(RevocationReason reason, long atNanos, long validUntilNanos) {}

    /** A task run that started, on which member, with which leadership, when. */
    record Started(NodeId id, Leadership leadership, long atNanos) {}

    /**
     * A leader task that waits until interrupted and records, for its member's first leadership, when it saw the
     * interrupt and how that leadership was revoked (its reason, and its validity as it stood then).
     */
    private static final class Probe implements LeaderTask {
        final NodeId id;
        final CompletableFuture<Probe> firstOfGroup;
        /** Every leadership a task of this probe's group has started with, in order. */
        final BlockingQueue<Started> runs;

        final CompletableFuture<Leadership> leadership = new CompletableFuture<>();
        final CompletableFuture<Revocation> revocation = new CompletableFuture<>();
        final CompletableFuture<Long> interruptedAt = new CompletableFuture<>();
        volatile long validUntilWhenInterrupted = Long.MAX_VALUE;

        Probe(NodeId id) {
            this(id, new CompletableFuture<>(), new LinkedBlockingQueue<>());
        }

        Probe(NodeId id, CompletableFuture<Probe> firstOfGroup, BlockingQueue<Started> runs) {
            this.id = id;
            this.firstOfGroup = firstOfGroup;
            this.runs = runs;
        }

        @Override
        public void run(Leadership l) throws Exception {
            runs.add(new Started(id, l, System.nanoTime()));
            boolean first = leadership.complete(l);
            if (first) {
                l.revoked()
                        .whenComplete((r, e) ->
                                revocation.complete(new Revocation(r, System.nanoTime(), l.validUntilNanos())));
                firstOfGroup.complete(this);
            }
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                long now = System.nanoTime();
                if (first) {
                    validUntilWhenInterrupted = l.validUntilNanos();
                    interruptedAt.complete(now);
                }
                throw e;
            }
        }
    }

    // ---------------------------------------------------------------- a network that hangs

    // ---------------------------------------------------------------- a store that fails or hangs

    /**
     * One in-memory lease row per group, answered at once while {@link Mode#NORMAL}; {@link Mode#FAIL} refuses every
     * call, {@link Mode#BLOCK} blocks every caller until {@link #release()} (against the store contract, which is
     * the point: a driver stuck in a socket read). Its clock is {@link System#nanoTime()} in milliseconds.
     */
    private static final class TestLeaseStore implements LeaseStore {
        enum Mode {
            NORMAL,
            FAIL,
            BLOCK
        }

        private record Row(String holder, long token, long expiresAtMillis) {}

        private final Map<String, Row> rows = new LinkedHashMap<>();
        private final CountDownLatch released = new CountDownLatch(1);
        volatile Mode mode = Mode.NORMAL;

        void release() {
            released.countDown();
        }

        private <T> CompletionStage<T> answer(java.util.function.Supplier<T> op) {
            Mode m = mode;
            if (m == Mode.BLOCK) {
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return CompletableFuture.failedFuture(new IllegalStateException("test store: hung"));
            }
            if (m == Mode.FAIL) {
                return CompletableFuture.failedFuture(new IllegalStateException("test store: connection refused"));
            }
            synchronized (this) {
                return CompletableFuture.completedFuture(op.get());
            }
        }

        private static long nowMillis() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        }

        @Override
        public String describe() {
            return "test store";
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration duration) {
            return answer(() -> {
                long now = nowMillis();
                Row row = rows.get(group);
                if (row == null || row.expiresAtMillis() <= now) {
                    row = new Row(holder, row == null ? 1 : row.token() + 1, now + duration.toMillis());
                    rows.put(group, row);
                } else if (row.holder().equals(holder) && row.token() == token) {
                    row = new Row(holder, token, now + duration.toMillis());
                    rows.put(group, row);
                }
                return new LeaseRecord(row.holder(), row.token(), row.expiresAtMillis(), now);
            });
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return answer(() -> {
                long now = nowMillis();
                Row row = rows.get(group);
                boolean mine = row != null
                        && row.expiresAtMillis() > now
                        && row.holder().equals(holder)
                        && row.token() == token;
                if (mine) {
                    rows.put(group, new Row(holder, token, now));
                }
                return mine;
            });
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            return answer(() -> Optional.ofNullable(rows.get(group))
                    .map(r -> new LeaseRecord(r.holder(), r.token(), r.expiresAtMillis(), nowMillis())));
        }

        @Override
        public void close() {
            release();
        }
    }
}
