package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import io.bellwether.Leadership;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.actuate.info.Info;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * One application with nothing but an embedded H2 database (Spring Boot's default DataSource): lease mode works with
 * no external service, and the starter's pieces can be looked at one by one.
 */
class EmbeddedLeaseTest {
    private static final TestApps.Recorder recorder = new TestApps.Recorder();
    private static ConfigurableApplicationContext context;
    private static Election election;

    @BeforeAll
    static void start() {
        context = TestApps.start(
                recorder,
                Map.of("spring.application.name", "embedded-app", "bellwether.lease.duration", "1s"),
                Extras.class);
        election = context.getBean(Election.class);
    }

    @AfterAll
    static void close() {
        context.close();
    }

    @BeforeEach
    void leading() {
        await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
    }

    @Configuration(proxyBeanMethods = false)
    static class Extras {
        @Bean
        Probe probe(Inner inner) {
            return new Probe(inner);
        }

        @Bean
        Inner inner() {
            return new Inner();
        }

        @Bean
        Events events() {
            return new Events();
        }
    }

    /**
     * Leader-only methods called by the tests. Its state is read through methods: the tests hold the proxy, whose
     * own fields are never set.
     */
    static class Probe {
        private final Inner inner;
        private final AtomicBoolean interruptedAfterInner = new AtomicBoolean();
        private final CountDownLatch blockStarted = new CountDownLatch(1);

        Probe(Inner inner) {
            this.inner = inner;
        }

        /** Runs a leader-only method of another bean, then notes whether its own thread is still interrupted. */
        @LeaderOnly
        public void outer() {
            inner.block();
            interruptedAfterInner.set(Thread.currentThread().isInterrupted());
        }

        public boolean interruptedAfterInner() {
            return interruptedAfterInner.get();
        }

        public Inner inner() {
            return inner;
        }

        private final AtomicBoolean sawInterrupt = new AtomicBoolean();
        private final AtomicReference<Leadership> blockLeadership = new AtomicReference<>();

        public CountDownLatch blockStarted() {
            return blockStarted;
        }

        public boolean sawInterrupt() {
            return sawInterrupt.get();
        }

        public Leadership blockLeadership() {
            return blockLeadership.get();
        }

        @LeaderOnly
        public Leadership withLeadership(Leadership leadership) {
            return leadership;
        }

        @LeaderOnly
        public int answer() {
            return 42;
        }

        @LeaderOnly(group = "side-jobs")
        public String sideJob() {
            return "ran";
        }

        @LeaderOnly
        public void block() {
            blockLeadership.set(CurrentLeadership.require());
            blockStarted.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                sawInterrupt.set(true);
            }
        }
    }

    /** A leader-only method called from one of {@link Probe}. */
    static class Inner {
        private final CountDownLatch started = new CountDownLatch(1);

        public CountDownLatch started() {
            return started;
        }

        @LeaderOnly
        public void block() {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // as a well-behaved method does, for its caller to see
            }
        }
    }

    /** Every Bellwether application event, in order. */
    static class Events {
        final List<ApplicationEvent> seen = new CopyOnWriteArrayList<>();

        @EventListener({LeaderElectedEvent.class, LeadershipRevokedEvent.class, LeaderChangedEvent.class})
        void on(ApplicationEvent event) {
            seen.add(event);
        }
    }

    @Test
    void electsOnTheApplicationsEmbeddedDatabaseWithTheApplicationNameAsGroupAndHostPidAsNode() {
        assertThat(election.group()).isEqualTo("embedded-app");
        assertThat(election.self().value())
                .endsWith("-" + ProcessHandle.current().pid());
        await().atMost(Duration.ofSeconds(10)).until(() -> recorder.runs.size() >= 3);
        assertThat(recorder.runs).allSatisfy(run -> assertThat(run.node())
                .isEqualTo(election.self().value()));
    }

    @Test
    void publishesElectedAndLeaderChangedEventsWithTheEpoch() {
        Events events = context.getBean(Events.class);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> events.seen.stream().anyMatch(LeaderChangedEvent.class::isInstance));
        LeaderElectedEvent elected = events.seen.stream()
                .filter(LeaderElectedEvent.class::isInstance)
                .map(LeaderElectedEvent.class::cast)
                .findFirst()
                .orElseThrow();
        assertThat(elected.getElection()).isSameAs(election);
        assertThat(elected.getLeadership().epoch()).isPositive();
        LeaderChangedEvent changed = events.seen.stream()
                .filter(LeaderChangedEvent.class::isInstance)
                .map(LeaderChangedEvent.class::cast)
                .filter(e -> e.getLeader().isPresent())
                .findFirst()
                .orElseThrow();
        assertThat(changed.getLeader().get().leader()).isEqualTo(election.self());
    }

    @Test
    void healthIsUpWithRoleLeaderEpochAndGroup() {
        Health health = context.getBean(BellwetherHealthIndicator.class).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsEntry("group", "embedded-app")
                .containsEntry("node", election.self().value())
                .containsEntry("algorithm", "lease")
                .containsEntry("role", "LEADER")
                .containsEntry("leader", election.self().value())
                .containsEntry("store", "reachable")
                .containsKey("epoch");
        Info.Builder info = new Info.Builder();
        context.getBean(BellwetherInfoContributor.class).contribute(info);
        assertThat(info.build().getDetails().get("bellwether").toString()).contains("role=LEADER");
    }

    @Test
    void electionMetersAreBoundToTheApplicationsRegistry() {
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.find("bellwether.role").tag("group", "embedded-app").meters())
                .isNotEmpty();
    }

    @Test
    void aLeadershipParameterIsGivenTheCurrentLeadership() {
        Leadership leadership = context.getBean(Probe.class).withLeadership(null);
        assertThat(leadership).isNotNull();
        assertThat(leadership.epoch())
                .isEqualTo(election.leadership().orElseThrow().epoch());
        assertThat(context.getBean(Probe.class).answer()).isEqualTo(42);
    }

    @Test
    void aNestedRunLeavesTheInterruptToTheOuterRunWhichClearsItForItsCaller() throws Exception {
        Probe probe = context.getBean(Probe.class);
        AtomicBoolean interruptedAfter = new AtomicBoolean(true);
        Thread caller = new Thread(() -> {
            probe.outer();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        assertThat(probe.inner().started().await(10, TimeUnit.SECONDS)).isTrue();
        election.resign(Duration.ofMillis(100));
        caller.join(10_000);
        assertThat(caller.isAlive()).isFalse();
        assertThat(probe.interruptedAfterInner()).isTrue();
        assertThat(interruptedAfter).isFalse();
    }

    @Test
    void runIfLeaderRunsWorkUnderTheLeadershipAndSaysWhetherItRan() {
        LeaderOnlyRegistry registry = context.getBean(LeaderOnlyRegistry.class);
        AtomicReference<Leadership> seen = new AtomicReference<>();
        assertThat(registry.runIfLeader("", seen::set)).isTrue();
        assertThat(seen.get().epoch()).isEqualTo(election.epoch());
        assertThat(CurrentLeadership.get()).isEmpty();
        // A group of its own runs work only under its own election's leadership. That election is created by the
        // first call and takes the lease on its own time: the first call may or may not find it taken already (the
        // store answers within microseconds here), but whenever work runs it runs under that election's leadership.
        AtomicReference<Leadership> helper = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.runIfLeader("helper-jobs", helper::set));
        Election helperElection = registry.election("helper-jobs");
        assertThat(helperElection.group()).isEqualTo("helper-jobs");
        assertThat(helper.get().epoch()).isEqualTo(helperElection.epoch());
    }

    @Test
    void aMethodOfAnotherGroupIsSkippedAndCountedUntilItsOwnElectionLeads() {
        Probe probe = context.getBean(Probe.class);
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        // The first call creates the group's election, which takes the lease on its own time: a call before that is
        // skipped and counted, a call after it runs.
        if (probe.sideJob() == null) {
            assertThat(registry.find(LeaderOnlyMeters.SKIPPED)
                            .tag("group", "side-jobs")
                            .counter())
                    .isNotNull()
                    .satisfies(c -> assertThat(c.count()).isGreaterThanOrEqualTo(1));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> "ran".equals(probe.sideJob()));
        assertThat(context.getBean(LeaderOnlyRegistry.class)
                        .election("side-jobs")
                        .group())
                .isEqualTo("side-jobs");
    }

    @Test
    void aRunIsInterruptedWhenItsLeadershipIsRevokedAndTheCallersInterruptFlagIsCleared() throws Exception {
        Probe probe = context.getBean(Probe.class);
        AtomicBoolean interruptedAfter = new AtomicBoolean(true);
        Thread caller = new Thread(() -> {
            probe.block();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        assertThat(probe.blockStarted().await(10, TimeUnit.SECONDS)).isTrue();
        election.resign(Duration.ofMillis(100));
        caller.join(10_000);
        assertThat(caller.isAlive()).isFalse();
        assertThat(probe.sawInterrupt()).isTrue();
        assertThat(interruptedAfter).isFalse();
        assertThat(probe.blockLeadership().revoked().toCompletableFuture().getNow(null))
                .isEqualTo(RevocationReason.RESIGNED);
        Events events = context.getBean(Events.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.seen.stream()
                .anyMatch(e -> e instanceof LeadershipRevokedEvent r && r.getReason() == RevocationReason.RESIGNED));
        assertThat(election.role()).isNotEqualTo(Role.DORMANT);
    }
}
