package io.bellwether.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseStore;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lease election as an application embeds it: no transport, no member list, the lease named after the group
 * alone, and what the election opened on the application's store ended when it closes.
 */
class LeaseWithoutTransportTest {
    private static final long CEILING_SECONDS = 10;
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private final FakeLeaseStore store = new FakeLeaseStore();
    private final List<Election> elections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        store.shutdown();
    }

    private static LeaseConfig config(LeaseStore view) {
        return LeaseConfig.builder()
                .store(view)
                .duration(Duration.ofMillis(1500))
                .build();
    }

    private Election started(Election e) {
        elections.add(e);
        e.start();
        return e;
    }

    private static CompletableFuture<Leadership> elected(Election e) {
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
    void aLeaseElectionNeedsNeitherTransportNorMembersAndNamesItsLeaseAfterTheGroup() throws Exception {
        Election a = Election.builder()
                .group("orders")
                .self(A)
                .algorithm(config(store.view(false)))
                .stateStore(new InMemoryStateStore())
                .build();
        CompletableFuture<Leadership> won = elected(a);
        started(a);

        assertThat(won.get(CEILING_SECONDS, TimeUnit.SECONDS).epoch()).isEqualTo(1);
        assertThat(store.readNow("orders"))
                .hasValueSatisfying(r -> assertThat(r.holder()).startsWith("a-"));
        assertThat(a.leader()).hasValueSatisfying(v -> {
            assertThat(v.leader()).isEqualTo(A);
            assertThat(v.address()).isEmpty();
        });
    }

    @Test
    void oneLeaseConfigurationServesTwoGroupsWithALeaseEach() throws Exception {
        LeaseConfig shared = config(store.view(false));
        List<CompletableFuture<Leadership>> won = new ArrayList<>();
        for (String group : List.of("orders", "invoices")) {
            Election e = Election.builder()
                    .group(group)
                    .self(A)
                    .algorithm(shared)
                    .stateStore(new InMemoryStateStore())
                    .build();
            won.add(elected(e));
            started(e);
        }
        for (CompletableFuture<Leadership> f : won) {
            assertThat(f.get(CEILING_SECONDS, TimeUnit.SECONDS).epoch()).isEqualTo(1);
        }
        assertThat(store.readNow("orders")).isPresent();
        assertThat(store.readNow("invoices")).isPresent();
    }

    @Test
    void memberAddressesGivenWithoutATransportReachTheLeaderView() throws Exception {
        NodeAddress address = NodeAddress.parse("10.0.0.1:8080");
        Election a = Election.builder()
                .group("orders")
                .self(A)
                .member(A, address)
                .member(B)
                .algorithm(config(store.view(false)))
                .stateStore(new InMemoryStateStore())
                .build();
        CompletableFuture<Leadership> won = elected(a);
        started(a);

        won.get(CEILING_SECONDS, TimeUnit.SECONDS);
        assertThat(a.leader()).hasValueSatisfying(v -> assertThat(v.address()).contains(address));
    }

    @Test
    void closingAContendersElectionEndsItsReleaseWatchOnTheStore() throws Exception {
        Election a = Election.builder()
                .group("jobs")
                .self(A)
                .algorithm(config(store.view(true)))
                .stateStore(new InMemoryStateStore())
                .build();
        CompletableFuture<Leadership> aWon = elected(a);
        started(a);
        aWon.get(CEILING_SECONDS, TimeUnit.SECONDS);

        WatchCounting bStore = new WatchCounting(store.view(true));
        Election b = started(Election.builder()
                .group("jobs")
                .self(B)
                .algorithm(config(bStore))
                .stateStore(new InMemoryStateStore())
                .build());
        assertThat(bStore.watched.get(CEILING_SECONDS, TimeUnit.SECONDS)).isEqualTo("jobs");
        assertThat(bStore.unwatched).isNotDone();

        b.close();

        assertThat(bStore.unwatched.get(CEILING_SECONDS, TimeUnit.SECONDS)).isEqualTo("jobs");
    }

    /** Tells when a release watch is opened and when it is closed. */
    private static final class WatchCounting extends ForwardingLeaseStore {
        final CompletableFuture<String> watched = new CompletableFuture<>();
        final CompletableFuture<String> unwatched = new CompletableFuture<>();

        WatchCounting(LeaseStore delegate) {
            super(delegate);
        }

        @Override
        public AutoCloseable watchReleases(String group, Runnable onRelease) {
            AutoCloseable watch = delegate.watchReleases(group, onRelease);
            watched.complete(group);
            return () -> {
                watch.close();
                unwatched.complete(group);
            };
        }
    }
}
