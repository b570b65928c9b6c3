package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.LeaderTask;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.TaskEvent;
import io.bellwether.TaskEvent.Kind;
import io.bellwether.TaskOptions;
import io.bellwether.TaskPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The task runner's policies, driven with a leadership of its own and a recording {@link TaskRunner.Resigner}: the
 * events in order, what was asked of the resigner, and the counts. The recording resigner does not revoke, so every
 * step down here is the runner's decision alone.
 */
class TaskRunnerTest {
    private static final long FAR_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final Duration HOLD_OFF = Duration.ofSeconds(7);

    /** Counts the health checks it has run, so a test can wait for some to pass without sleeping. */
    private final AtomicInteger monitorRuns = new AtomicInteger();

    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1) {
        @Override
        protected void afterExecute(Runnable r, Throwable t) {
            super.afterExecute(r, t);
            monitorRuns.incrementAndGet();
        }
    };

    private final ElectionTimer watchdog = new ElectionTimer(timer, "g", NodeId.of("n1"));
    private final ExecutorService revocations = Executors.newSingleThreadExecutor();

    private final BlockingQueue<TaskEvent> events = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> resignations = new LinkedBlockingQueue<>();
    private final List<TaskRunner> runners = new ArrayList<>();

    @AfterEach
    void stop() {
        runners.forEach(TaskRunner::close);
        timer.shutdownNow();
        revocations.shutdownNow();
    }

    private RuntimeLeadership leadership(long epoch) {
        return new RuntimeLeadership(epoch, System.nanoTime() + FAR_NANOS, 0, watchdog, revocations, (l, why) -> {});
    }

    private TaskRunner runner(LeaderTask task, TaskOptions options) {
        TaskRunner runner = new TaskRunner(
                "g",
                NodeId.of("n1"),
                task,
                options,
                events::add,
                (holdOff, why) -> resignations.add(why + " " + holdOff.toMillis() + "ms"),
                watchdog,
                l -> {});
        runners.add(runner);
        return runner;
    }

    private static TaskOptions.Builder options() {
        return TaskOptions.builder().name("job").resignHoldOff(HOLD_OFF);
    }

    /** The events up to and including the first of {@code last}, each as "KIND run [detail]". */
    private List<String> eventsUntil(Kind last) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        while (true) {
            TaskEvent e = events.poll(10, TimeUnit.SECONDS);
            assertThat(e).as("an event after %s", seen).isNotNull();
            assertThat(e.task()).isEqualTo("job");
            String detail =
                    switch (e.kind()) {
                        case RESTARTING -> " " + e.backoff().toMillis() + "ms";
                        case FAILED -> " "
                                + e.failure().map(Throwable::getMessage).orElse("?");
                        case RESIGNED, STOPPED -> " "
                                + e.reason().map(Enum::name).orElse("-");
                        default -> "";
                    };
            seen.add(e.kind() + " " + e.run() + detail);
            if (e.kind() == last) {
                return seen;
            }
            assertThat(seen).as("events before %s", last).hasSizeLessThan(200);
        }
    }

    @Test
    void restartRestartsAFailingTaskWithADoublingCappedBackoffThenStepsDownOnceTheBudgetIsSpent() throws Exception {
        TaskRunner runner = runner(
                l -> {
                    throw new IllegalStateException("boom");
                },
                options()
                        .onFailure(TaskPolicy.RESTART)
                        .maxRestarts(3)
                        .backoff(Duration.ofMillis(1), Duration.ofMillis(2))
                        .build());

        runner.elected(leadership(5));

        assertThat(eventsUntil(Kind.RESIGNED))
                .containsExactly(
                        "STARTED 1",
                        "FAILED 1 boom",
                        "RESTARTING 1 1ms",
                        "STARTED 2",
                        "FAILED 2 boom",
                        "RESTARTING 2 2ms",
                        "STARTED 3",
                        "FAILED 3 boom",
                        "RESTARTING 3 2ms",
                        "STARTED 4",
                        "FAILED 4 boom",
                        "RESIGNED 4 TASK_UNHEALTHY");
        assertThat(resignations.poll(10, TimeUnit.SECONDS)).isEqualTo("TASK_UNHEALTHY 7000ms");
        assertThat(runner.count(Kind.STARTED)).isEqualTo(4);
        assertThat(runner.count(Kind.FAILED)).isEqualTo(4);
        assertThat(runner.count(Kind.RESTARTING)).isEqualTo(3);
        assertThat(runner.count(Kind.RESIGNED)).isEqualTo(1);
    }

    @Test
    void aNewLeadershipStartsWithAFreshBudget() throws Exception {
        TaskRunner runner = runner(
                l -> {
                    throw new IllegalStateException("boom");
                },
                options()
                        .onFailure(TaskPolicy.RESTART)
                        .maxRestarts(1)
                        .backoff(Duration.ZERO, Duration.ZERO)
                        .build());

        runner.elected(leadership(1));
        assertThat(eventsUntil(Kind.RESIGNED)).hasSize(6);
        runner.elected(leadership(2));

        assertThat(eventsUntil(Kind.RESIGNED))
                .containsExactly(
                        "STARTED 1",
                        "FAILED 1 boom",
                        "RESTARTING 1 0ms",
                        "STARTED 2",
                        "FAILED 2 boom",
                        "RESIGNED 2 TASK_UNHEALTHY");
    }

    @Test
    void resignStepsDownAtTheFirstFailure() throws Exception {
        TaskRunner runner = runner(
                l -> {
                    throw new IllegalStateException("boom");
                },
                options().onFailure(TaskPolicy.RESIGN).build());

        runner.elected(leadership(1));

        assertThat(eventsUntil(Kind.RESIGNED))
                .containsExactly("STARTED 1", "FAILED 1 boom", "RESIGNED 1 TASK_UNHEALTHY");
        assertThat(resignations.poll(10, TimeUnit.SECONDS)).isEqualTo("TASK_UNHEALTHY 7000ms");
    }

    @Test
    void aTaskThatReturnsUnderResignStepsDownAsResigned() throws Exception {
        TaskRunner runner =
                runner(l -> {}, options().onReturn(TaskPolicy.RESIGN).build());

        runner.elected(leadership(1));

        assertThat(eventsUntil(Kind.RESIGNED)).containsExactly("STARTED 1", "RETURNED 1", "RESIGNED 1 RESIGNED");
        assertThat(resignations.poll(10, TimeUnit.SECONDS)).isEqualTo("RESIGNED 7000ms");
    }

    @Test
    void stayKeepsLeadingIdleAfterAFailureAndNeverStepsDown() throws Exception {
        RuntimeLeadership l = leadership(1);
        TaskRunner runner = runner(
                x -> {
                    throw new IllegalStateException("boom");
                },
                options().onFailure(TaskPolicy.STAY).build());

        runner.elected(l);

        assertThat(eventsUntil(Kind.IDLE)).containsExactly("STARTED 1", "FAILED 1 boom", "IDLE 1");
        assertThat(resignations).isEmpty(); // decided before IDLE was emitted
        assertThat(l.isValid()).isTrue();
        assertThat(runner.count(Kind.IDLE)).isEqualTo(1);
    }

    @Test
    void theDefaultsLeadOnIdleAfterAReturn() throws Exception {
        TaskRunner runner = runner(l -> {}, TaskOptions.builder().name("job").build());

        runner.elected(leadership(1));

        assertThat(eventsUntil(Kind.IDLE)).containsExactly("STARTED 1", "RETURNED 1", "IDLE 1");
        assertThat(resignations).isEmpty();
    }

    @Test
    void restartAfterAReturnIsNotBudgetedAndEndsWithTheLeadership() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        RuntimeLeadership l = leadership(1);
        TaskRunner runner = runner(
                x -> {
                    if (runs.incrementAndGet() == 5) {
                        new CountDownLatch(1).await(); // until interrupted by the revocation
                    }
                },
                options()
                        .onReturn(TaskPolicy.RESTART)
                        .maxRestarts(0)
                        .backoff(Duration.ZERO, Duration.ZERO)
                        .build());

        runner.elected(l);
        List<String> upToFifth = new ArrayList<>();
        while (upToFifth.size() < 13) {
            upToFifth.addAll(eventsUntil(Kind.STARTED));
        }
        l.revoke(RevocationReason.HIGHER_EPOCH_SEEN);

        assertThat(upToFifth).filteredOn(s -> s.startsWith("RETURNED")).hasSize(4);
        assertThat(upToFifth).last().isEqualTo("STARTED 5");
        assertThat(eventsUntil(Kind.STOPPED)).containsExactly("STOPPED 5 HIGHER_EPOCH_SEEN");
        assertThat(resignations).isEmpty();
        assertThat(runner.count(Kind.RESIGNED)).isZero();
    }

    @Test
    void aRevocationDuringTheBackoffStopsTheTaskWithoutARestart() throws Exception {
        RuntimeLeadership l = leadership(1);
        TaskRunner runner = runner(
                x -> {
                    throw new IllegalStateException("boom");
                },
                options()
                        .onFailure(TaskPolicy.RESTART)
                        .backoff(Duration.ofHours(1), Duration.ofHours(1))
                        .build());

        runner.elected(l);
        assertThat(eventsUntil(Kind.RESTARTING))
                .containsExactly("STARTED 1", "FAILED 1 boom", "RESTARTING 1 3600000ms");
        l.revoke(RevocationReason.LOST_QUORUM);

        assertThat(eventsUntil(Kind.STOPPED)).containsExactly("STOPPED 1 LOST_QUORUM");
        assertThat(runner.count(Kind.STARTED)).isEqualTo(1);
    }

    @Test
    void aTaskSilentForTheHealthTimeoutIsUnhealthyStepsDownAndIsInterrupted() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        TaskRunner runner = runner(
                l -> {
                    l.heartbeat();
                    try {
                        new CountDownLatch(1).await(); // silent from here on
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                },
                options().healthTimeout(Duration.ofMillis(20)).build());

        runner.elected(leadership(3));

        assertThat(eventsUntil(Kind.RESIGNED)).containsExactly("STARTED 1", "UNHEALTHY 1", "RESIGNED 1 TASK_UNHEALTHY");
        assertThat(resignations.poll(10, TimeUnit.SECONDS)).isEqualTo("TASK_UNHEALTHY 7000ms");
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        // The recording resigner revoked nothing: the run ends as stepped down, with no policy and no restart.
        assertThat(eventsUntil(Kind.STOPPED)).containsExactly("STOPPED 1 -");
        assertThat(runner.count(Kind.UNHEALTHY)).isEqualTo(1);
        assertThat(runner.count(Kind.STARTED)).isEqualTo(1);
    }

    @Test
    void aTaskThatKeepsBeatingStaysHealthyAcrossManyHealthChecks() throws Exception {
        TaskRunner runner = runner(
                l -> {
                    int start = monitorRuns.get();
                    while (monitorRuns.get() < start + 5) { // five checks, each a health timeout after a beat
                        l.heartbeat();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                },
                // Beats every millisecond against a timeout 250 times as long, so that only a stall of the whole
                // machine (not a loaded CI runner's scheduling) could make the task look silent.
                options().healthTimeout(Duration.ofMillis(250)).build());

        runner.elected(leadership(1));

        assertThat(eventsUntil(Kind.IDLE)).containsExactly("STARTED 1", "RETURNED 1", "IDLE 1");
        assertThat(resignations).isEmpty();
        assertThat(runner.count(Kind.UNHEALTHY)).isZero();
    }

    @Test
    void aClosedHandleRunsNothingOnLaterLeaderships() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TaskRunner runner = runner(l -> runs.incrementAndGet(), options().build());
        runner.close();

        runner.elected(leadership(1));

        assertThat(runs.get()).isZero();
        assertThat(runner.count(Kind.STARTED)).isZero();
    }
}
