package io.bellwether.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease elections have no transport loop to share: their event loops and store callers are queues on the process's
 * shared pools, so many lease groups in one process need no thread each.
 */
class LeaseSharedThreadsTest {
    private static final int GROUPS = 30;
    /** The shared pools' bound (RuntimeThreads.LOOP_THREADS). */
    private static final int POOL_BOUND =
            Math.min(16, Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    private final FakeLeaseStore store = new FakeLeaseStore();
    private final List<Election> elections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        store.shutdown();
    }

    @Test
    void manyLeaseGroupsHoldTheirLeasesWithoutALoopOrStoreThreadEach() throws Exception {
        CountDownLatch held = new CountDownLatch(GROUPS);
        for (int g = 0; g < GROUPS; g++) {
            LeaseConfig lease = LeaseConfig.builder()
                    .store(store.view(false))
                    .duration(Duration.ofMillis(1500))
                    .build();
            Election election = Election.builder()
                    .group("tenant-" + g)
                    .self(NodeId.of("a"))
                    .algorithm(lease)
                    .stateStore(new InMemoryStateStore())
                    .build();
            election.addListener(new ElectionListener() {
                @Override
                public void elected(Leadership leadership) {
                    held.countDown();
                }
            });
            elections.add(election);
            election.start();
        }

        assertThat(held.await(30, TimeUnit.SECONDS))
                .as("every group holds its lease")
                .isTrue();

        List<String> names = Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .toList();
        assertThat(names.stream().filter(n -> n.startsWith("bellwether-loop-"))).hasSizeLessThanOrEqualTo(POOL_BOUND);
        assertThat(names.stream().filter(n -> n.startsWith("bellwether-store-")))
                .hasSizeLessThanOrEqualTo(POOL_BOUND);
        assertThat(names).noneMatch(n -> n.contains("tenant-"));
    }
}
