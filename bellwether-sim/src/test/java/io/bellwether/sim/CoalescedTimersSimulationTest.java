package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.TimerKey;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The simulator fires coalesced timers (a quorum leader's heartbeat rounds) late by what the runtime's coalescing
 * grid may add ({@link TimerKey#coalescingNanos}), so every quorum simulation checks the invariants under that
 * lateness; here, in a fault-free run without drift, the rounds of one leader come one interval plus at most that
 * lateness apart, and not all exactly one interval apart.
 */
class CoalescedTimersSimulationTest {
    private static final long INTERVAL = TimeUnit.MILLISECONDS.toNanos(100); // the default heartbeat interval

    @Test
    void heartbeatRoundsFireLateWithinTheCoalescingBound() {
        SimulationConfig config = SimulationConfig.forAlgorithm("quorum", 3, EnumSet.noneOf(FaultKind.class));
        RunResult run = Simulator.run(config, 20261126, true);
        assertThat(run.violations()).isEmpty();

        Map<String, Long> last = new HashMap<>();
        List<Long> gaps = new ArrayList<>();
        for (HistoryEntry h : run.history()) {
            if (h.event().equals("timer") && h.detail().equals("HEARTBEAT")) {
                Long before = last.put(h.node() + "@" + h.epoch(), h.timeNanos());
                if (before != null) {
                    gaps.add(h.timeNanos() - before);
                }
            }
        }
        assertThat(gaps).hasSizeGreaterThan(100);
        long bound = TimerKey.coalescingNanos(INTERVAL);
        assertThat(bound).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
        assertThat(gaps).allSatisfy(g -> assertThat(g).isBetween(INTERVAL, INTERVAL + bound));
        assertThat(gaps).anySatisfy(g -> assertThat(g).isGreaterThan(INTERVAL));
    }
}
