package io.bellwether.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.spi.LeaseStore;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease elections on the real runtime over an in-memory store whose members' connections can hang, fail or
 * lag: acquisition, renewal, takeover after expiry, revocation before validity ends when the store hangs, and
 * hand-over on release by push.
 */
class LeaseElectionTest {
    private static final long CEILING_SECONDS = 10;
    private static final long LEASE_MILLIS = 1800;
    private static final long MARGIN_MILLIS = 150;
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private final FakeLeaseStore store = new FakeLeaseStore();
    private final InProcessNetwork network = new InProcessNetwork();
    private final List<Election> elections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        network.close();
        store.shutdown();
    }

    /**
     * Short leases so that expiry-driven tests finish in a second or two, long enough that a holder whose renewals
     * stall for a few hundred milliseconds (a busy 2-core machine) does not lose its lease in a test that expects
     * it to keep it.
     */
    private static LeaseConfig.Builder config(LeaseStore view) {
        return LeaseConfig.builder()
                .store(view)
                .duration(Duration.ofMillis(LEASE_MILLIS))
                .renewInterval(Duration.ofMillis(150))
                .renewDeadline(Duration.ofMillis(900))
                .retry(Duration.ofMillis(150))
                .requestTimeout(Duration.ofMillis(600))
                .validityMargin(Duration.ofMillis(MARGIN_MILLIS));
    }

    private Election election(NodeId self, LeaseConfig config) {
        return election("jobs", self, config);
    }

    private Election election(String group, NodeId self, LeaseConfig config) {
        Election e = Election.builder()
                .group(group)
                .self(self)
                .member(self, NodeAddress.parse("localhost:7101"))
                .algorithm(config)
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(self))
                .seed(self.hashCode())
                .build();
        elections.add(e);
        return e;
    }

    /** Completes with each leadership as it is won. */
    private static final class Watch implements ElectionListener {
        final CompletableFuture<Leadership> elected = new CompletableFuture<>();
        final CompletableFuture<RevocationReason> revoked = new CompletableFuture<>();
        volatile long revokedAtNanos;
        final java.util.Map<NodeId, CompletableFuture<LeaderView>> followed =
                new java.util.concurrent.ConcurrentHashMap<>();

        CompletableFuture<LeaderView> follows(NodeId leader) {
            return followed.computeIfAbsent(leader, l -> new CompletableFuture<>());
        }

        @Override
        public void elected(Leadership leadership) {
            elected.complete(leadership);
            leadership.revoked().whenComplete((r, e) -> {
                revokedAtNanos = System.nanoTime();
                revoked.complete(r);
            });
        }

        @Override
        public void leaderChanged(Optional<LeaderView> leader) {
            leader.ifPresent(v -> follows(v.leader()).complete(v));
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void aSingleContenderAcquiresTheLeaseWithTokenOne() throws Exception {
        Election a = election(A, config(store.view(false)).build());
        Watch w = new Watch();
        a.addListener(w);
        a.start();
        Leadership l = await(w.elected);
        assertThat(l.epoch()).isEqualTo(1);
        assertThat(store.readNow("jobs"))
                .hasValueSatisfying(r -> assertThat(r.holder()).startsWith("a-"));
        assertThat(a.leader()).hasValueSatisfying(v -> assertThat(v.leader()).isEqualTo(A));
    }

    /**
     * A new holder's listeners are told while the election's event is still running; what they read from the
     * election then must already name the holder. Several elections, each a fresh race between the loop that
     * publishes and the notifier that delivers.
     */
    @Test
    void aNewHoldersElectedListenerFindsTheElectionAlreadyNamingIt() throws Exception {
        for (int i = 0; i < 20; i++) {
            Election a = election("jobs-" + i, A, config(store.view(false)).build());
            CompletableFuture<String> seen = new CompletableFuture<>();
            a.addListener(new ElectionListener() {
                @Override
                public void elected(Leadership leadership) {
                    seen.complete(a.role() + " " + a.epoch() + " " + a.leader().map(v -> v.leader() + "@" + v.epoch()));
                }
            });
            a.start();
            assertThat(await(seen)).as("election %d", i).isEqualTo("LEADER 1 Optional[a@1]");
            a.close();
        }
    }

    @Test
    void theHolderKeepsRenewingAndStaysLeader() throws Exception {
        Election a = election(A, config(store.view(false)).build());
        Watch w = new Watch();
        a.addListener(w);
        a.start();
        Leadership l = await(w.elected);
        // Several renewal periods, each extending the validity measured from its own send time.
        long firstValidity = l.validUntilNanos();
        CountDownLatch renewals = new CountDownLatch(5);
        store.renewalLatch = renewals;
        assertThat(renewals.await(CEILING_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(l.validUntilNanos()).isGreaterThan(firstValidity);
        assertThat(l.revoked().toCompletableFuture()).isNotDone();
        assertThat(store.acquisitions.get()).isEqualTo(1);
    }

    @Test
    void whenTheHoldersStoreHangsItIsRevokedBeforeItsValidityEndsAndAnotherTakesOverAfterExpiry() throws Exception {
        FakeLeaseStore.View aView = store.view(false);
        Election a = election(A, config(aView).build());
        Watch wa = new Watch();
        a.addListener(wa);
        a.start();
        Leadership la = await(wa.elected);

        Election b = election(B, config(store.view(false)).build());
        Watch wb = new Watch();
        b.addListener(wb);
        b.start();
        // b follows a first: it learns the holder from its polls.
        assertThat(await(wb.follows(A)).epoch()).isEqualTo(1);

        aView.mode = FakeLeaseStore.Mode.HANG;
        RevocationReason reason = await(wa.revoked);
        assertThat(reason).isEqualTo(RevocationReason.LEASE_NOT_RENEWED);
        assertThat(wa.revokedAtNanos).isLessThan(la.validUntilNanos());

        Leadership lb = await(wb.elected);
        assertThat(lb.epoch()).isEqualTo(2);
        assertThat(store.readNow("jobs"))
                .hasValueSatisfying(r -> assertThat(r.holder()).startsWith("b-"));
    }

    @Test
    void aFailingStoreRevokesTheHolderInTime() throws Exception {
        FakeLeaseStore.View aView = store.view(false);
        Election a = election(A, config(aView).build());
        Watch wa = new Watch();
        a.addListener(wa);
        a.start();
        Leadership la = await(wa.elected);
        aView.mode = FakeLeaseStore.Mode.FAIL;
        assertThat(await(wa.revoked)).isEqualTo(RevocationReason.LEASE_NOT_RENEWED);
        assertThat(wa.revokedAtNanos).isLessThan(la.validUntilNanos());
        assertThat(a.isLeader()).isFalse();
    }

    @Test
    void aGracefulStopHandsTheLeaseOverAtOnceWhereTheStorePushes() throws Exception {
        // Polls every 30 s: only the pushed release can wake b within the test's ceiling.
        Election a = election(
                A, config(store.view(true)).retry(Duration.ofSeconds(30)).build());
        Watch wa = new Watch();
        a.addListener(wa);
        a.start();
        await(wa.elected);
        Election b = election(
                B, config(store.view(true)).retry(Duration.ofSeconds(30)).build());
        Watch wb = new Watch();
        b.addListener(wb);
        b.start();
        assertThat(await(wb.follows(A)).epoch()).isEqualTo(1);

        a.close();
        assertThat(await(wa.revoked)).isEqualTo(RevocationReason.RESIGNED);
        Leadership lb = await(wb.elected);
        assertThat(lb.epoch()).isEqualTo(2);
        assertThat(store.releases.get()).isEqualTo(1);
    }

    @Test
    void aResigningHolderReleasesTheLeaseOnlyAfterItsListenersHeardOfTheRevocation() throws Exception {
        Election a = election(A, config(store.view(true)).build());
        Watch wa = new Watch();
        a.addListener(wa);
        List<Integer> releasesDuringRevoked = new ArrayList<>();
        a.addListener(new ElectionListener() {
            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                synchronized (releasesDuringRevoked) {
                    releasesDuringRevoked.add(store.releases.get());
                }
            }
        });
        a.start();
        await(wa.elected);

        a.close();

        synchronized (releasesDuringRevoked) {
            assertThat(releasesDuringRevoked)
                    .as("releases made while revoked() ran")
                    .containsExactly(0);
        }
        assertThat(store.released.await(CEILING_SECONDS, TimeUnit.SECONDS))
                .as("released")
                .isTrue();
        assertThat(store.releases.get()).isEqualTo(1);
    }

    @Test
    void aLaggingStoreStillElectsWithValidityFromTheSendTime() throws Exception {
        FakeLeaseStore.View view = store.view(false);
        view.delayMillis = 60;
        Election a = election(A, config(view).build());
        Watch w = new Watch();
        a.addListener(w);
        a.start();
        Leadership l = await(w.elected);
        long learned = System.nanoTime();
        // validity = send + lease × 0.99 − margin, and the acquisition was sent at least 60 ms before it was
        // learned: a validity counted from the reply would be later than this bound.
        long bound = LEASE_MILLIS * 99 / 100 - MARGIN_MILLIS - 60;
        assertThat(l.validUntilNanos()).isLessThanOrEqualTo(learned + TimeUnit.MILLISECONDS.toNanos(bound));
    }

    @Test
    void aResigningHolderReleasesTheLeaseByPushToTheWaitingContenderAndFollowsIt() throws Exception {
        // b polls every 30 s: only the pushed release can wake it within the test's ceiling. a polls (reads, while it
        // holds off) every 150 ms, so it learns the new holder within the test.
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        Election a = election(A, config(store.view(true)).build());
        Watch wa = new Watch();
        a.addListener(wa);
        a.addListener(new ElectionListener() {
            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                events.add("a revoked " + reason + " releases=" + store.releases.get());
            }
        });
        a.start();
        Leadership la = await(wa.elected);
        la.revoked()
                .whenComplete((r, e) -> events.add("a leadership revoked " + r + " releases=" + store.releases.get()));
        Election b = election(
                B, config(store.view(true)).retry(Duration.ofSeconds(30)).build());
        // Added before the Watch: b's listeners are called in order, so "b elected" is recorded before wb.elected
        // completes and lets the test go on to check the events.
        b.addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                events.add("b elected " + leadership.epoch());
            }
        });
        Watch wb = new Watch();
        b.addListener(wb);
        b.start();
        assertThat(await(wb.follows(A)).epoch()).isEqualTo(1);

        a.resign(Duration.ofSeconds(20));

        Leadership lb = await(wb.elected);
        assertThat(lb.epoch()).isEqualTo(2);
        assertThat(await(wa.follows(B)).epoch())
                .as("a stays a member and knows the new holder")
                .isEqualTo(2);
        assertThat(a.role()).isEqualTo(Role.FOLLOWER);
        assertThat(a.isLeader()).isFalse();
        // The leadership's own callbacks (on the watchdog thread) and the listeners (on the notifier) run in either
        // order, but both before the release leaves; b is elected after it.
        assertThat(events).as("events").hasSize(3);
        assertThat(events.subList(0, 2))
                .as("a's leadership revoked, and its listeners told, before the release")
                .containsExactlyInAnyOrder("a leadership revoked RESIGNED releases=0", "a revoked RESIGNED releases=0");
        assertThat(events.get(2)).as("then b elected").isEqualTo("b elected 2");
        assertThat(store.releases.get()).isEqualTo(1);
    }
}
