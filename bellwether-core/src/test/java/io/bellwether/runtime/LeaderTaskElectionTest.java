package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.TaskEvent;
import io.bellwether.TaskHandle;
import io.bellwether.TaskOptions;
import io.bellwether.TaskPolicy;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.quorum.QuorumMessage;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leader tasks, waiting for leadership and listener executors on real quorum elections over an in-process network.
 */
class LeaderTaskElectionTest {
    private final InProcessNetwork network = new InProcessNetwork();
    private final List<Election> elections = new ArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        network.close();
        executors.forEach(ExecutorService::shutdownNow);
    }

    private Election single(String group, java.util.function.UnaryOperator<io.bellwether.ElectionBuilder> more) {
        NodeId self = NodeId.of("n1");
        Election election = more.apply(Election.builder()
                        .group(group)
                        .self(self)
                        .member(self, NodeAddress.parse("127.0.0.1:7101"))
                        .algorithm(QuorumConfig.defaults())
                        .stateStore(new InMemoryStateStore())
                        .transport(network.transport(self)))
                .build();
        elections.add(election);
        return election;
    }

    // ---------------------------------------------------------------- health

    @Test
    void aLeaderWhoseTaskStopsBeatingIsRevokedWithTaskUnhealthyAndListenersHearEveryStep() throws Exception {
        Election election = single("health", b -> b);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        election.addListener(new ElectionListener() {
            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                heard.add("revoked " + reason);
            }

            @Override
            public void taskEvent(TaskEvent event) {
                heard.add(event.kind() + event.reason().map(r -> " " + r).orElse(""));
            }
        });
        CountDownLatch interrupted = new CountDownLatch(1);
        CompletableFuture<Leadership> held = new CompletableFuture<>();
        TaskHandle handle = election.runWhileLeader(
                l -> {
                    held.complete(l);
                    l.heartbeat();
                    try {
                        new CountDownLatch(1).await(); // silent from here on
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                },
                TaskOptions.builder()
                        .name("silent")
                        .healthTimeout(Duration.ofMillis(50))
                        .build());

        election.start();

        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(held.get(10, TimeUnit.SECONDS)
                        .revoked()
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isEqualTo(RevocationReason.TASK_UNHEALTHY);
        List<String> steps = new ArrayList<>();
        while (steps.isEmpty() || !steps.get(steps.size() - 1).startsWith("STOPPED")) {
            String next = heard.poll(10, TimeUnit.SECONDS);
            assertThat(next).as("the event after %s", steps).isNotNull();
            steps.add(next);
        }
        assertThat(steps)
                .containsExactly(
                        "STARTED",
                        "UNHEALTHY",
                        "RESIGNED TASK_UNHEALTHY",
                        "revoked TASK_UNHEALTHY",
                        "STOPPED TASK_UNHEALTHY");
        assertThat(handle.count(TaskEvent.Kind.UNHEALTHY)).isEqualTo(1);
        assertThat(handle.count(TaskEvent.Kind.RESIGNED)).isEqualTo(1);
        assertThat(election.isLeader()).isFalse();
    }

    @Test
    void aLeaderWhoseTaskFailsTooOftenStepsDownAndAnotherMemberLeadsAndRunsTheTask() throws Exception {
        List<NodeId> ids = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            members.put(ids.get(i), NodeAddress.parse("127.0.0.1:" + (7101 + i)));
        }
        // The first member to lead has a task that fails at once, every time; every other member's task works.
        AtomicReference<NodeId> broken = new AtomicReference<>();
        BlockingQueue<String> runs = new LinkedBlockingQueue<>();
        Map<NodeId, Election> group = new LinkedHashMap<>();
        for (NodeId id : ids) {
            Election e = Election.builder()
                    .group("failing-task")
                    .self(id)
                    .members(members)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(network.transport(id))
                    .build();
            elections.add(e);
            group.put(id, e);
            e.runWhileLeader(
                    l -> {
                        broken.compareAndSet(null, id);
                        runs.add(id + "@" + l.epoch());
                        if (id.equals(broken.get())) {
                            throw new IllegalStateException("no connection to the payments service");
                        }
                        new CountDownLatch(1).await();
                    },
                    TaskOptions.builder()
                            .onFailure(TaskPolicy.RESTART)
                            .maxRestarts(1)
                            .backoff(Duration.ofMillis(1), Duration.ofMillis(1))
                            .resignHoldOff(Duration.ofMinutes(1))
                            .build());
        }
        group.values().forEach(Election::start);

        String first = runs.poll(10, TimeUnit.SECONDS);
        assertThat(first).as("the first leader's task ran").isNotNull();
        NodeId failing = broken.get();
        Leadership failed = group.get(failing).leadership().orElse(null);
        String next;
        do {
            next = runs.poll(10, TimeUnit.SECONDS);
            assertThat(next).as("a run after %s", first).isNotNull();
        } while (next.startsWith(failing + "@"));

        NodeId successor = NodeId.of(next.substring(0, next.indexOf('@')));
        assertThat(successor).isNotEqualTo(failing);
        Election stepped = group.get(failing);
        assertThat(stepped.isLeader()).isFalse();
        if (failed != null) {
            assertThat(failed.revoked().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isEqualTo(RevocationReason.TASK_UNHEALTHY);
        }
        assertThat(stepped.awaitLeader(Duration.ofSeconds(10)).map(LeaderView::leader))
                .as("the member that stepped down follows its successor")
                .contains(successor);
        assertThat(stepped.role()).isEqualTo(Role.FOLLOWER);
    }

    // ---------------------------------------------------------------- awaiting

    @Test
    void awaitLeadershipReturnsTheLeadershipOnceElectedAndAtOnceWhenAlreadyLeading() throws Exception {
        Election election = single("await", b -> b);
        CompletableFuture<Optional<Leadership>> waited = CompletableFuture.supplyAsync(() -> {
            try {
                return election.awaitLeadership(Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        election.start();

        Leadership l = waited.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(l.isValid()).isTrue();
        assertThat(election.awaitLeadership(Duration.ZERO)).contains(l);
        assertThat(election.awaitLeader(Duration.ofMinutes(1)).map(LeaderView::leader))
                .contains(NodeId.of("n1"));
    }

    @Test
    void awaitLeadershipAndAwaitLeaderAreEmptyOnTimeout() throws Exception {
        Election election = single("await-timeout", b -> b); // never started: nobody leads

        assertThat(election.awaitLeadership(Duration.ofMillis(20))).isEmpty();
        assertThat(election.awaitLeader(Duration.ofMillis(20))).isEmpty();
        assertThat(election.awaitLeadership(Duration.ZERO)).isEmpty();
    }

    @Test
    void awaitLeadershipIsInterruptible() throws Exception {
        Election election = single("await-interrupt", b -> b);
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                election.awaitLeadership(Duration.ofMinutes(1));
                ended.complete(null);
            } catch (Throwable e) {
                ended.complete(e);
            }
        });
        waiter.start();
        waiter.interrupt();

        assertThat(ended.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        try {
            election.awaitLeader(Duration.ofMinutes(1));
            assertThat(false)
                    .as("awaitLeader with the interrupt flag set throws")
                    .isTrue();
        } catch (InterruptedException e) {
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    @Test
    void awaitLeadershipEndsEmptyWhenTheElectionCloses() throws Exception {
        Election election = single("await-closed", b -> b);
        CompletableFuture<Optional<Leadership>> waited = CompletableFuture.supplyAsync(() -> {
            try {
                return election.awaitLeadership(Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        election.close();

        assertThat(waited.get(10, TimeUnit.SECONDS)).isEmpty();
    }

    // ---------------------------------------------------------------- listener executor

    @Test
    void listenersOnAnExecutorKeepTheirOrderAndABlockedOneDelaysOnlyItself() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "app-listeners"));
        executors.add(pool);
        Election election = single("executor", b -> b.listenerExecutor(pool));
        CountDownLatch release = new CountDownLatch(1);
        BlockingQueue<String> slow = new LinkedBlockingQueue<>();
        BlockingQueue<String> fast = new LinkedBlockingQueue<>();
        election.addListener(recorder(slow, release));
        election.addListener(recorder(fast, null));

        election.start();

        // The slow listener is stuck in its first callback; the other hears the whole election meanwhile.
        List<String> fastSeen = take(fast, "roleChanged CANDIDATE->LEADER");
        assertThat(fastSeen).contains("elected 1 app-listeners");
        assertThat(slow.poll(10, TimeUnit.SECONDS)).isEqualTo("roleChanged DORMANT->FOLLOWER app-listeners");
        assertThat(slow).isEmpty();
        release.countDown();
        List<String> slowSeen = new ArrayList<>(List.of("roleChanged DORMANT->FOLLOWER app-listeners"));
        slowSeen.addAll(take(slow, "roleChanged CANDIDATE->LEADER"));
        assertThat(slowSeen).isEqualTo(fastSeen);

        election.close();
        // Close waits for every listener's revoked() to return, on the executor too.
        assertThat(fast).contains("revoked RESIGNED app-listeners");
        assertThat(slow).contains("revoked RESIGNED app-listeners");
    }

    private static ElectionListener recorder(BlockingQueue<String> into, CountDownLatch gate) {
        return new ElectionListener() {
            private void add(String event) {
                into.add(event + " " + Thread.currentThread().getName());
                if (gate != null) {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void elected(Leadership leadership) {
                add("elected " + leadership.epoch());
            }

            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                add("revoked " + reason);
            }

            @Override
            public void roleChanged(Role previous, Role current, long epoch) {
                add("roleChanged " + previous + "->" + current);
            }
        };
    }

    private static List<String> take(BlockingQueue<String> from, String until) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        while (seen.isEmpty() || !seen.get(seen.size() - 1).startsWith(until)) {
            String next = from.poll(10, TimeUnit.SECONDS);
            assertThat(next).as("the event after %s", seen).isNotNull();
            seen.add(next);
        }
        return seen;
    }

    // ---------------------------------------------------------------- a task that ignores interrupts

    /**
     * A leader task that spins and ignores every interrupt runs beside an election that keeps working: its followers
     * go on receiving the same leader's heartbeats, counted, across many heartbeat intervals, and when the leader is
     * cut off its leadership is still revoked and the others elect a new leader while the task spins on.
     */
    @Test
    void aTaskThatSpinsIgnoringInterruptsDelaysNeitherHeartbeatsNorRevocation() throws Exception {
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            members.put(NodeId.of("node-" + i), new NodeAddress("localhost", 7100 + i));
        }
        Map<NodeId, Semaphore> heartbeats = new LinkedHashMap<>();
        Map<NodeId, Election> byId = new LinkedHashMap<>();
        AtomicLong interruptsIgnored = new AtomicLong();
        CountDownLatch spinning = new CountDownLatch(1);
        CompletableFuture<Leadership> spun = new CompletableFuture<>();
        AtomicInteger stopSpinning = new AtomicInteger();
        for (NodeId id : members.keySet()) {
            Semaphore beats = new Semaphore(0);
            heartbeats.put(id, beats);
            Election election = Election.builder()
                    .group("spin")
                    .self(id)
                    .members(members)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(new HeartbeatCounting(network.transport(id), beats))
                    .seed(id.hashCode())
                    .build();
            elections.add(election);
            byId.put(id, election);
            election.runWhileLeader(l -> {
                spun.complete(l);
                spinning.countDown();
                while (stopSpinning.get() == 0) {
                    if (Thread.interrupted()) {
                        interruptsIgnored.incrementAndGet();
                    }
                }
            });
        }
        try {
            byId.values().forEach(Election::start);
            spinUntilCutOff(byId, heartbeats, spinning, spun, stopSpinning, interruptsIgnored);
        } finally {
            stopSpinning.set(1);
        }
    }

    private void spinUntilCutOff(
            Map<NodeId, Election> byId,
            Map<NodeId, Semaphore> heartbeats,
            CountDownLatch spinning,
            CompletableFuture<Leadership> spun,
            AtomicInteger stopSpinning,
            AtomicLong interruptsIgnored)
            throws Exception {
        assertThat(spinning.await(10, TimeUnit.SECONDS)).isTrue();
        Leadership leadership = spun.get();
        Election leader = byId.values().stream()
                .filter(e -> e.leadership()
                        .filter(l -> l.epoch() == leadership.epoch())
                        .isPresent())
                .findFirst()
                .orElseThrow();
        List<Election> followers =
                byId.values().stream().filter(e -> e != leader).toList();
        followers.forEach(f -> heartbeats.get(f.self()).drainPermits());
        for (Election follower : followers) {
            // 20 heartbeat intervals, five election timeouts: a leader that missed four in a row would be replaced.
            assertThat(heartbeats.get(follower.self()).tryAcquire(20, 10, TimeUnit.SECONDS))
                    .as("%s receives 20 heartbeats while the task spins", follower.self())
                    .isTrue();
        }
        assertThat(leadership.revoked().toCompletableFuture().isDone()).isFalse();
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.epoch()).isEqualTo(leadership.epoch());
        for (Election follower : followers) {
            assertThat(follower.leader().map(v -> v.leader() + "@" + v.epoch()))
                    .contains(leader.self() + "@" + leadership.epoch());
        }

        CompletableFuture<LeaderView> next = new CompletableFuture<>();
        followers.get(0).addListener(new ElectionListener() {
            @Override
            public void leaderChanged(Optional<LeaderView> view) {
                view.filter(v -> v.epoch() > leadership.epoch()).ifPresent(next::complete);
            }
        });

        network.isolate(leader.self());

        assertThat(leadership.revoked().toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isIn(RevocationReason.LOST_QUORUM, RevocationReason.VALIDITY_EXPIRED);
        assertThat(next.get(10, TimeUnit.SECONDS).leader()).isNotEqualTo(leader.self());
        assertThat(stopSpinning.get()).as("the old task spins on throughout").isZero();
        assertThat(interruptsIgnored.get())
                .as("the revocation interrupted the task")
                .isPositive();
    }

    /** A transport that counts the quorum heartbeats its member receives. */
    private static final class HeartbeatCounting extends InterceptingTransport {
        private final Semaphore beats;

        HeartbeatCounting(Transport delegate, Semaphore beats) {
            super(delegate);
            this.beats = beats;
        }

        @Override
        void received(NodeId from, ElectorMessage message, Runnable delivery) {
            if (message instanceof QuorumMessage.Heartbeat) {
                beats.release();
            }
            delivery.run();
        }
    }
}
