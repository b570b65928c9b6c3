package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.ElectionMdc;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.state.InMemoryStateStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * Many groups in one process share the runtime's loop, notifier and watchdog threads ({@link RuntimeThreads}): their
 * number does not grow with the number of groups, and each group's listeners still hear their own group's events
 * on a thread with that group in the MDC.
 */
class SharedThreadsTest {
    private static final int GROUPS = 40;

    private final InProcessNetwork network = new InProcessNetwork();
    private final List<Election> elections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        network.close();
    }

    @Test
    void manyGroupsElectLeadersWithoutAWatchdogOrNotifierThreadEach() throws Exception {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            members.put(NodeId.of("n" + i), new NodeAddress("localhost", 7200 + i));
        }
        CountDownLatch led = new CountDownLatch(GROUPS);
        Map<String, String> mdcGroupSeen = new ConcurrentHashMap<>();
        Map<String, Thread> notifiedOn = new ConcurrentHashMap<>();
        for (int g = 0; g < GROUPS; g++) {
            String group = "shard-" + g;
            for (NodeId id : members.keySet()) {
                Election election = Election.builder()
                        .group(group)
                        .self(id)
                        .members(members)
                        .stateStore(new InMemoryStateStore())
                        .transport(network.transport(id))
                        .seed(g * 31L + id.hashCode())
                        .build();
                election.addListener(new ElectionListener() {
                    @Override
                    public void elected(Leadership leadership) {
                        if (notifiedOn.putIfAbsent(group, Thread.currentThread()) == null) {
                            mdcGroupSeen.put(group, String.valueOf(MDC.get(ElectionMdc.GROUP)));
                            led.countDown();
                        }
                    }

                    @Override
                    public void leaderChanged(Optional<LeaderView> leader) {}
                });
                elections.add(election);
                election.start();
            }
        }

        assertThat(led.await(30, TimeUnit.SECONDS))
                .as("every group led within 30 s")
                .isTrue();

        List<String> names = Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .toList();
        assertThat(names).noneMatch(n -> n.startsWith("bellwether-watchdog"));
        assertThat(names.stream().filter(n -> n.startsWith("bellwether-timer"))).hasSize(1);
        assertThat(names.stream().filter(n -> n.startsWith("bellwether-events-")))
                .hasSizeLessThanOrEqualTo(RuntimeThreads.CALLBACK_THREADS);
        // the in-process network offers no loop to share: the elections' loops are queues on the loop pool
        assertThat(names.stream().filter(n -> n.startsWith("bellwether-loop-")))
                .hasSizeLessThanOrEqualTo(RuntimeThreads.LOOP_THREADS);
        assertThat(names).noneMatch(n -> n.contains("shard-"));
        assertThat(notifiedOn.values()).allMatch(t -> t.getName().startsWith("bellwether-events-"));
        // every group's listener ran with its own group in the MDC, though the threads are shared
        assertThat(mdcGroupSeen).hasSize(GROUPS).allSatisfy((group, mdc) -> assertThat(mdc)
                .isEqualTo(group));
    }
}
