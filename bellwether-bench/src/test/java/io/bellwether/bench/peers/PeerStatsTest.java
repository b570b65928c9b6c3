package io.bellwether.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class PeerStatsTest {
    private static PeerStats millis(long... ms) {
        PeerStats s = new PeerStats();
        for (long m : ms) {
            s.add(m * 1_000_000);
        }
        return s;
    }

    @Test
    void percentilesAreNearestRankOfObservedValues() {
        PeerStats s = millis(40, 10, 30, 20);
        assertEquals(20.0, s.percentileMillis(50).getAsDouble());
        assertEquals(40.0, s.percentileMillis(99).getAsDouble());
        assertEquals(40.0, s.maxMillis().getAsDouble());
        assertEquals(4, s.trials());
    }

    @Test
    void timeoutsCountAsLongerThanEveryTrialThatEnded() {
        PeerStats s = millis(10, 20, 30);
        s.addTimeout();
        assertEquals(4, s.trials());
        assertEquals(1, s.timeouts());
        assertEquals(20.0, s.percentileMillis(50).getAsDouble());
        // The 99th percentile of 4 trials is the 4th, a timeout: no figure, and no maximum either.
        assertTrue(s.percentileMillis(99).isEmpty());
        assertTrue(s.maxMillis().isEmpty());
        assertEquals("timeout", PeerStats.formatMillis(s.percentileMillis(99)));
    }

    @Test
    void ratioIsMineOverTheirs() {
        OptionalDouble r = PeerStats.ratio(OptionalDouble.of(30), OptionalDouble.of(250));
        assertEquals(0.12, r.getAsDouble(), 1e-12);
        assertEquals("0.12×", PeerStats.formatRatio(r));
        assertEquals("4.00×", PeerStats.formatRatio(PeerStats.ratio(OptionalDouble.of(2), OptionalDouble.of(0.5))));
        assertEquals("0.0010×", PeerStats.formatRatio(OptionalDouble.of(0.001)));
        assertEquals("100×", PeerStats.formatRatio(OptionalDouble.of(100)));
    }

    @Test
    void ratioIsMissingWhenEitherSideIsOrTheDivisorIsZero() {
        assertTrue(PeerStats.ratio(OptionalDouble.empty(), OptionalDouble.of(1)).isEmpty());
        assertTrue(PeerStats.ratio(OptionalDouble.of(1), OptionalDouble.empty()).isEmpty());
        assertTrue(PeerStats.ratio(OptionalDouble.of(1), OptionalDouble.of(0)).isEmpty());
        assertEquals("–", PeerStats.formatRatio(OptionalDouble.empty()));
    }

    @Test
    void statementRateUsesTheReportsInsideTheWindow() {
        long s = 1_000_000_000L;
        List<long[]> samples =
                List.of(new long[] {0, 0}, new long[] {1 * s, 100}, new long[] {3 * s, 120}, new long[] {5 * s, 1000});
        // Inside [1 s, 4 s]: 100 at 1 s, 120 at 3 s: 10 statements per second.
        assertEquals(10.0, PeerComparison.statementRate(samples, 1 * s, 4 * s).getAsDouble(), 1e-9);
        assertTrue(PeerComparison.statementRate(samples, 2 * s, 4 * s).isEmpty());
    }
}
