package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bully.BullyConfig;
import io.bellwether.quorum.QuorumConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RehearsalTest {
    private static final Duration BUDGET = Duration.ofSeconds(20);
    private static final long JOIN_CEILING_MILLIS = 10_000;

    @Test
    void quorumRehearsalElectsHandsOverAndLeavesNoRehearsalThreadRunning() throws InterruptedException {
        assertThat(Rehearsal.run(QuorumConfig.defaults(), BUDGET)).isTrue();
        assertNoRehearsalThreadOutlivesIt();
    }

    @Test
    void bullyRehearsalElectsAndHandsOver() throws InterruptedException {
        assertThat(Rehearsal.run(BullyConfig.defaults(), BUDGET)).isTrue();
        assertNoRehearsalThreadOutlivesIt();
    }

    @Test
    void aBudgetTooShortToElectEndsTheRehearsalWithoutALeaderAndStillCleansUp() throws InterruptedException {
        assertThat(Rehearsal.run(QuorumConfig.defaults(), Duration.ZERO)).isFalse();
        assertNoRehearsalThreadOutlivesIt();
    }

    /** Every thread the rehearsal started has been told to stop: each ends (awaited, not slept on). */
    private static void assertNoRehearsalThreadOutlivesIt() throws InterruptedException {
        List<Thread> threads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().contains("rehearsal"))
                .toList();
        for (Thread t : threads) {
            t.join(JOIN_CEILING_MILLIS);
        }
        assertThat(threads).noneMatch(Thread::isAlive);
    }
}
