package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.TimerKey;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ElectorTimersTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aCoalescedDeadlineIsNeverEarlyAndLateByLessThanATwentiethOfTheDelayAndAtMostFiveMilliseconds() {
        SplittableRandom random = new SplittableRandom(20261126);
        for (int i = 0; i < 100_000; i++) {
            long deadline = random.nextLong(); // nanoTime may be anywhere, negative included
            long delay = random.nextLong(0, 2_000 * MS);
            long coalesced = ElectorTimers.coalescedDeadline(deadline, delay);
            long late = coalesced - deadline;
            assertThat(late).as("deadline %d, delay %d", deadline, delay).isNotNegative();
            assertThat(late).isLessThan(Math.max(1, TimerKey.coalescingNanos(delay)));
            assertThat(TimerKey.coalescingNanos(delay)).isLessThanOrEqualTo(Math.min(5 * MS, delay / 20));
        }
    }

    @Test
    void theSameTimersOfManyGroupsFallDueTogetherWhateverTheirPhase() {
        SplittableRandom random = new SplittableRandom(7);
        long heartbeat = 100 * MS;
        long base = random.nextLong(-1L << 50, 1L << 50);
        java.util.Set<Long> due = new java.util.HashSet<>();
        for (int group = 0; group < 1_000; group++) {
            long phase = random.nextLong(0, heartbeat);
            due.add(ElectorTimers.coalescedDeadline(base + phase + heartbeat, heartbeat));
        }
        // a 5 ms grid over a 100 ms spread of phases: at most 21 distinct wake-ups instead of 1 000
        assertThat(due).hasSizeLessThanOrEqualTo(21);
    }

    @Test
    void aShortDelayIsNotCoalesced() {
        long deadline = 123_456_789L;
        assertThat(ElectorTimers.coalescedDeadline(deadline, 9 * MS)).isEqualTo(deadline);
        assertThat(ElectorTimers.coalescedDeadline(deadline, 0)).isEqualTo(deadline);
        assertThat(ElectorTimers.coalescedDeadline(deadline, 10 * MS)).isNotEqualTo(deadline);
    }
}
