package io.bellwether.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionBuilder;
import io.bellwether.ElectionListener;
import io.bellwether.ElectionMdc;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.TaskOptions;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoreClient;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.StoreRequest;
import io.bellwether.elector.TimerKey;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * Group and node in the SLF4J MDC, read with {@link MDC#get} from inside the election's own code paths: the elector
 * (loop), the store caller, a listener (notifier or the application's executor), the revocation (watchdog) and a
 * leader task; and the application's own MDC values back on threads the election only borrows.
 */
class ElectionMdcTest {
    private static final long CEILING_SECONDS = 10;
    private static final NodeId A = NodeId.of("a");
    private static final String APP_VALUE = "app's own";

    private final FakeLeaseStore store = new FakeLeaseStore();
    /** Where each code path ran: "group/node" as the MDC said there. */
    private final Map<String, String> seen = new ConcurrentHashMap<>();

    private ExecutorService appExecutor;
    private ScheduledExecutorService appLoop;

    @AfterEach
    void shutdown() {
        store.shutdown();
        if (appExecutor != null) {
            appExecutor.shutdownNow();
        }
        if (appLoop != null) {
            appLoop.shutdownNow();
        }
    }

    private static String mdc() {
        return MDC.get(ElectionMdc.GROUP) + "/" + MDC.get(ElectionMdc.NODE);
    }

    /** Threads of the application, with a value of their own under one of the election's keys. */
    private static Thread appThread(Runnable r) {
        Thread t = new Thread(() -> {
            MDC.put(ElectionMdc.GROUP, APP_VALUE);
            r.run();
        });
        t.setDaemon(true);
        return t;
    }

    @org.junit.jupiter.api.BeforeEach
    void mdcKeepsValues() {
        assertThat(MDC.getMDCAdapter())
                .as("an MDC that keeps values: run with -Dslf4j.provider=io.bellwether.testlog.MdcSimpleProvider")
                .isNotInstanceOf(org.slf4j.helpers.NOPMDCAdapter.class);
    }

    private ElectionBuilder builder(String group) {
        LeaseConfig lease = LeaseConfig.builder()
                .store(store.view(false))
                .duration(Duration.ofMillis(1500))
                .build();
        return Election.builder()
                .group(group)
                .self(A)
                .algorithm(new Recording(lease))
                .stateStore(new InMemoryStateStore());
    }

    /** Runs a listener and a leader task, then closes the election; returns once the revocation was heard. */
    private void electRunAndClose(Election election) throws Exception {
        CompletableFuture<Void> revoked = new CompletableFuture<>();
        election.addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                seen.put("listener", mdc());
                leadership.revoked().whenComplete((why, e) -> {
                    seen.put("revocation", mdc());
                    revoked.complete(null);
                });
            }
        });
        CompletableFuture<Void> taskRan = new CompletableFuture<>();
        election.runWhileLeader(
                leadership -> {
                    seen.put("task", mdc());
                    taskRan.complete(null);
                },
                TaskOptions.builder().name("job").build());
        election.start();
        taskRan.get(CEILING_SECONDS, TimeUnit.SECONDS);
        election.close();
        revoked.get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void theElectionsOwnThreadsCarryGroupAndNode() throws Exception {
        electRunAndClose(builder("orders").build());

        assertThat(seen)
                .containsEntry("elector", "orders/a")
                .containsEntry("store", "orders/a")
                .containsEntry("listener", "orders/a")
                .containsEntry("revocation", "orders/a")
                .containsEntry("task", "orders/a");
    }

    @Test
    void onTheApplicationsListenerExecutorTheKeysAreSetForTheCallbackAndRestoredAfter() throws Exception {
        appExecutor = Executors.newSingleThreadExecutor(ElectionMdcTest::appThread);

        electRunAndClose(builder("orders").listenerExecutor(appExecutor).build());

        assertThat(seen).containsEntry("listener", "orders/a");
        assertThat(appExecutor.submit(ElectionMdcTest::mdc).get(CEILING_SECONDS, TimeUnit.SECONDS))
                .isEqualTo(APP_VALUE + "/null");
    }

    @Test
    void onATransportsSharedLoopTheKeysAreSetForEachTaskAndRestoredAfter() throws Exception {
        appLoop = Executors.newSingleThreadScheduledExecutor(ElectionMdcTest::appThread);

        electRunAndClose(
                builder("orders").transport(new SharedLoopOnly(appLoop)).build());

        assertThat(seen).containsEntry("elector", "orders/a");
        assertThat(appLoop.submit(ElectionMdcTest::mdc).get(CEILING_SECONDS, TimeUnit.SECONDS))
                .isEqualTo(APP_VALUE + "/null");
    }

    /** The lease elector, recording the MDC where its start runs (the loop) and where its store is called. */
    private final class Recording implements ElectorSpec {
        private final LeaseConfig lease;

        Recording(LeaseConfig lease) {
            this.lease = lease;
        }

        @Override
        public String algorithm() {
            return lease.algorithm();
        }

        @Override
        public Elector create(ElectorContext context) {
            Elector elector = lease.create(context);
            return new Elector() {
                @Override
                public void start() {
                    seen.put("elector", mdc());
                    elector.start();
                }

                @Override
                public void onMessage(NodeId from, ElectorMessage message) {
                    elector.onMessage(from, message);
                }

                @Override
                public void onTimer(TimerKey key) {
                    elector.onTimer(key);
                }

                @Override
                public void onStoreReply(StoreReply reply) {
                    elector.onStoreReply(reply);
                }

                @Override
                public boolean beginStop() {
                    return elector.beginStop();
                }

                @Override
                public void stop() {
                    elector.stop();
                }

                @Override
                public ElectorState state() {
                    return elector.state();
                }
            };
        }

        @Override
        public StoreClient storeClient(String group) {
            StoreClient client = lease.storeClient(group);
            return new StoreClient() {
                @Override
                public CompletionStage<StoreReply> execute(StoreRequest request) {
                    seen.putIfAbsent("store", mdc());
                    return client.execute(request);
                }

                @Override
                public void close() {
                    client.close();
                }
            };
        }
    }

    /** A transport that carries nothing and lends the election its I/O thread, as the TCP transport does. */
    private record SharedLoopOnly(ScheduledExecutorService loop) implements Transport {
        @Override
        public void register(String group, NodeId self, TransportListener listener) {}

        @Override
        public void send(String group, NodeId to, ElectorMessage message) {}

        @Override
        public void unregister(String group, NodeId self) {}

        @Override
        public Optional<ScheduledExecutorService> sharedLoop() {
            return Optional.of(loop);
        }
    }
}
