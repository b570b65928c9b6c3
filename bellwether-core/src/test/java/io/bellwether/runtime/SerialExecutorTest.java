package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SerialExecutorTest {
    private static final NodeId SELF = NodeId.of("n1");
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private SerialExecutor serial(String group) {
        return new SerialExecutor(pool, group, SELF, "test");
    }

    @Test
    void runsTasksOneAtATimeInTheOrderQueuedThoughThePoolHasManyThreads() throws Exception {
        SerialExecutor serial = serial("g");
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int tasks = 5 * SerialExecutor.BATCH + 7; // several turns
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            int n = i;
            serial.execute(() -> {
                if (running.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                seen.add(n);
                Thread.yield();
                running.decrementAndGet();
                done.countDown();
            });
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(overlaps).hasValue(0);
        assertThat(seen).hasSize(tasks).isSorted();
    }

    @Test
    void aQueueThatStaysBusyYieldsItsThreadToAnotherQueueAfterABatch() throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            SerialExecutor busy = new SerialExecutor(one, "busy", SELF, "test");
            SerialExecutor other = new SerialExecutor(one, "other", SELF, "test");
            CountDownLatch gate = new CountDownLatch(1);
            List<String> order = Collections.synchronizedList(new ArrayList<>());
            busy.execute(() -> await(gate)); // holds the only thread while the rest is queued
            for (int i = 0; i < 2 * SerialExecutor.BATCH; i++) {
                int n = i;
                busy.execute(() -> order.add("busy " + n));
            }
            other.execute(() -> order.add("other"));
            CountDownLatch done = new CountDownLatch(1);
            busy.execute(done::countDown);
            gate.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            // The first turn ran the gate and BATCH - 1 tasks; "other" ran before the busy queue's second turn.
            assertThat(order.indexOf("other")).isEqualTo(SerialExecutor.BATCH - 1);
        } finally {
            one.shutdownNow();
        }
    }

    @Test
    void knowsWhenTheCallerIsRunningOneOfItsTasks() throws Exception {
        SerialExecutor serial = serial("g");
        SerialExecutor other = serial("h");
        CountDownLatch done = new CountDownLatch(1);
        boolean[] seen = new boolean[2];
        serial.execute(() -> {
            seen[0] = serial.onThread();
            seen[1] = other.onThread();
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen[0]).isTrue();
        assertThat(seen[1]).isFalse();
        assertThat(serial.onThread()).isFalse();
    }

    @Test
    void afterShutdownItRefusesNewTasksAndStillRunsTheQueuedOnes() throws Exception {
        SerialExecutor serial = serial("g");
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(1);
        serial.execute(() -> await(gate));
        serial.execute(ran::countDown);
        serial.shutdown();

        assertThat(serial.isShutdown()).isTrue();
        assertThatThrownBy(() -> serial.execute(() -> {}))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("g");
        gate.countDown();
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheNext() throws Exception {
        SerialExecutor serial = serial("g");
        CountDownLatch ran = new CountDownLatch(1);
        serial.execute(() -> {
            throw new IllegalStateException("a listener's bug");
        });
        serial.execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void anErrorGoesToThePoolThreadAndTheRestOfTheQueueStillRuns() throws Exception {
        List<Throwable> uncaught = Collections.synchronizedList(new ArrayList<>());
        ExecutorService reporting = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r);
            t.setUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
            return t;
        });
        try {
            SerialExecutor serial = new SerialExecutor(reporting, "g", SELF, "test");
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch ran = new CountDownLatch(1);
            serial.execute(() -> await(gate));
            serial.execute(() -> {
                throw new AssertionError("fatal");
            });
            serial.execute(ran::countDown);
            gate.countDown();
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            reporting.shutdown();
            assertThat(reporting.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(uncaught).singleElement().isInstanceOf(AssertionError.class);
        } finally {
            reporting.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
