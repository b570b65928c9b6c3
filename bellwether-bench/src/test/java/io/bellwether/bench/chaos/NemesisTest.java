package io.bellwether.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bench.chaos.Nemesis.Kind;
import io.bellwether.bench.chaos.Nemesis.Step;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NemesisTest {
    private static final Duration QUORUM_TIMEOUT = Duration.ofMillis(400);
    private static final Duration LEASE = Duration.ofSeconds(3);

    @Test
    void theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
        List<Step> a = Nemesis.schedule(42, false, QUORUM_TIMEOUT, Duration.ofMinutes(10));
        assertThat(Nemesis.schedule(42, false, QUORUM_TIMEOUT, Duration.ofMinutes(10)))
                .isEqualTo(a);
        assertThat(Nemesis.schedule(43, false, QUORUM_TIMEOUT, Duration.ofMinutes(10)))
                .isNotEqualTo(a);
    }

    @Test
    void aTenMinuteScheduleFillsTheRunWithEveryKindOfFault() {
        List<Step> steps = Nemesis.schedule(7, false, QUORUM_TIMEOUT, Duration.ofMinutes(10));
        long planned = steps.stream()
                .mapToLong(s -> s.hold().toMillis() + s.calm().toMillis())
                .sum();
        // Every step lasts at least its hold and calm: the steps outlast the run.
        assertThat(planned).isGreaterThanOrEqualTo(Duration.ofMinutes(10).toMillis());
        Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        steps.forEach(s -> kinds.add(s.kind()));
        assertThat(kinds)
                .containsExactlyInAnyOrder(
                        EnumSet.complementOf(EnumSet.of(Kind.STORE_OUTAGE)).toArray(Kind[]::new));
    }

    @Test
    void leaseSchedulesUseTheStoreFaultsAndNoPeerLinkFaults() {
        List<Step> steps = Nemesis.schedule(7, true, LEASE, Duration.ofMinutes(10));
        Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        steps.forEach(s -> kinds.add(s.kind()));
        assertThat(kinds).contains(Kind.STORE_OUTAGE, Kind.KILL, Kind.PAUSE, Kind.ISOLATE);
        assertThat(kinds).doesNotContain(Kind.PARTITION, Kind.ONE_WAY, Kind.THROTTLE);
    }

    @Test
    void pausesAreDrawnBothShorterThanTheTimeoutAndWellPastIt() {
        List<Step> pauses = Nemesis.schedule(11, false, QUORUM_TIMEOUT, Duration.ofMinutes(30)).stream()
                .filter(s -> s.kind() == Kind.PAUSE)
                .toList();
        assertThat(pauses).anySatisfy(s -> assertThat(s.hold()).isLessThan(QUORUM_TIMEOUT));
        assertThat(pauses).anySatisfy(s -> assertThat(s.hold()).isGreaterThanOrEqualTo(QUORUM_TIMEOUT.multipliedBy(2)));
        // A long pause always hits the leader: pausing a follower for long proves little.
        assertThat(pauses)
                .filteredOn(s -> s.hold().compareTo(QUORUM_TIMEOUT.multipliedBy(2)) >= 0)
                .allSatisfy(s -> assertThat(s.atLeader()).isTrue());
    }
}
