package io.bellwether.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bench.chaos.FencedHistory.Attempt;
import io.bellwether.bench.chaos.FencedHistory.Start;
import io.bellwether.bench.chaos.FencedHistory.Write;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checks of {@link FencedHistory} over hand-made histories: each broken rule is found, a sound history passes. */
class FencedHistoryTest {
    private static final long S = 1_000_000_000L;

    /** Epoch 1 on n1 writes from 0 s to 1 s, epoch 2 on n2 from 2 s to 3 s; nothing else alive at either start. */
    private static FencedHistory sound() {
        FencedHistory h = new FencedHistory();
        h.starts.add(new Start(1, "n1", 101, 0, ""));
        h.attempts.add(new Attempt(1, "n1", 1, 101, 0, S / 10, "accepted"));
        h.writes.add(new Write(1, 1, "n1", 1, 101, S / 20, ""));
        h.attempts.add(new Attempt(1, "n1", 2, 101, S, S + S / 10, "accepted"));
        h.writes.add(new Write(2, 1, "n1", 2, 101, S + S / 20, null));
        h.starts.add(new Start(2, "n2", 202, 2 * S - S / 10, ""));
        h.attempts.add(new Attempt(2, "n2", 1, 202, 2 * S, 2 * S + S / 10, "accepted"));
        h.writes.add(new Write(3, 2, "n2", 1, 202, 2 * S + S / 20, ""));
        h.attempts.add(new Attempt(2, "n2", 2, 202, 3 * S, 3 * S + S / 10, "accepted"));
        h.writes.add(new Write(4, 2, "n2", 2, 202, 3 * S + S / 20, null));
        return h;
    }

    @Test
    void aSoundHistoryHasNoViolation() {
        assertThat(sound().violations(Set.of())).isEmpty();
    }

    @Test
    void aWriteOfALowerEpochAcceptedAfterAHigherOneIsAStaleWrite() {
        FencedHistory h = sound();
        h.attempts.add(new Attempt(1, "n1", 3, 101, 4 * S, 4 * S + S / 10, "accepted"));
        h.writes.add(new Write(5, 1, "n1", 3, 101, 4 * S + S / 20, null));

        assertThat(h.violations(Set.of(1L))).anyMatch(v -> v.startsWith("stale write accepted: Write[seq=5, epoch=1"));
    }

    @Test
    void anAttemptOfAnOldEpochDuringTheNextEpochsRunIsAnOverlapUnlessItsNodeWasPaused() {
        FencedHistory h = sound();
        h.attempts.add(new Attempt(1, "n1", 3, 101, 2 * S + S / 2, 2 * S + S / 2 + 1, "stale"));

        assertThat(h.violations(Set.of()))
                .containsExactly("runs overlap in real time: epoch 1 attempted [0.000 s,"
                        + " 2.500 s] and epoch 2 attempted [2.000 s, 3.100 s]");
        assertThat(h.violations(Set.of(1L))).isEmpty();
    }

    @Test
    void acceptedWritesOfTwoEpochsInterleavedInTimeOverlapEvenForAPausedNode() {
        FencedHistory h = sound();
        h.writes.set(1, new Write(2, 1, "n1", 2, 101, 2 * S + S / 2, null));

        assertThat(h.violations(Set.of(1L)))
                .containsExactly("runs overlap in real time: epoch 1 wrote [0.050 s, 2.500 s] and epoch 2 wrote"
                        + " [2.050 s, 3.050 s]");
    }

    @Test
    void aCommandOfAnotherEpochAliveAtAStartOrAFirstWriteIsFoundUnlessItsNodeWasPaused() {
        FencedHistory h = sound();
        h.starts.set(1, new Start(2, "n2", 202, 2 * S - S / 10, "101:1:S"));
        h.writes.set(2, new Write(3, 2, "n2", 1, 202, 2 * S + S / 20, "101:1:T"));

        assertThat(h.violations(Set.of()))
                .hasSize(2)
                .anyMatch(v -> v.startsWith("writer 101:1:S alive as Start[epoch=2"))
                .anyMatch(v -> v.startsWith("writer 101:1:T alive at the first accepted write of epoch 2"));
        assertThat(h.violations(Set.of(1L))).isEmpty();
    }
}
