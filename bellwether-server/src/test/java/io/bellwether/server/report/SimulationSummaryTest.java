package io.bellwether.server.report;

import static io.bellwether.server.report.Runs.MS;
import static io.bellwether.server.report.Runs.failover;
import static io.bellwether.server.report.Runs.ok;
import static io.bellwether.server.report.Runs.violating;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.sim.ExhaustiveExplorer;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SimulationSummaryTest {
    @Test
    void timeWithTwoActingLeadersAddsUpOverRuns() {
        RunResult a =
                new RunResult(1, List.of(), 3, 30, 90, List.of(), 100, MS, List.of(), 0, 0, 250 * MS, 2, List.of());
        RunResult b =
                new RunResult(2, List.of(), 3, 30, 90, List.of(), 100, MS, List.of(), 0, 0, 50 * MS, 1, List.of());

        SimulationSummary s = SimulationSummary.of("bully", 5, FaultKind.all(), 1, 2, List.of(a, b));

        assertThat(s.twoLeaderNanos()).isEqualTo(300 * MS);
        assertThat(s.twoLeaderEpisodes()).isEqualTo(3);
    }

    @Test
    void percentilesUseNearestRankOverTheSortedSample() {
        Distribution d =
                Distribution.of(LongStream.rangeClosed(1, 100).map(i -> 101 - i).toArray());

        assertThat(d.count()).isEqualTo(100);
        assertThat(d.percentileNanos(50)).isEqualTo(50);
        assertThat(d.percentileNanos(99)).isEqualTo(99);
        assertThat(d.percentileNanos(100)).isEqualTo(100);
        assertThat(d.percentileNanos(0.1)).isEqualTo(1);
        assertThat(d.maxNanos()).isEqualTo(100);
    }

    @Test
    void percentilesOfASmallSampleAreObservedValues() {
        Distribution d = Distribution.of(30, 10, 20);

        assertThat(d.percentileNanos(50)).isEqualTo(20);
        assertThat(d.percentileNanos(99)).isEqualTo(30);
        assertThat(Distribution.of(7).percentileNanos(50)).isEqualTo(7);
    }

    @Test
    void anEmptyDistributionRefusesPercentilesAndBadPercentsAreNamed() {
        assertThat(Distribution.empty().isEmpty()).isTrue();
        assertThatThrownBy(() -> Distribution.empty().percentileNanos(50)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Distribution.of(1).percentileNanos(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("percent = 0.0");
    }

    @Test
    void failoversAreSplitByTheFaultThatHitTheLeaderAndPooledInAll() {
        List<RunResult> runs = List.of(
                ok(1, 3, 30, 100 * MS, failover(FaultKind.CRASH, 40, 8), failover(FaultKind.PAUSE, 450, 12)),
                ok(2, 2, 20, 300 * MS, failover(FaultKind.CRASH, 60, 9)),
                ok(3, 1, 10, 200 * MS, failover(FaultKind.SILENT_CRASH, 500, 10)));

        SimulationSummary s = SimulationSummary.of("quorum", 5, FaultKind.all(), 1, 3, runs);

        assertThat(s.failoverByFault()).containsOnlyKeys(FaultKind.CRASH, FaultKind.PAUSE, FaultKind.SILENT_CRASH);
        Distribution crash = s.failoverByFault().get(FaultKind.CRASH);
        assertThat(crash.count()).isEqualTo(2);
        assertThat(crash.percentileNanos(50)).isEqualTo(40 * MS);
        assertThat(crash.maxNanos()).isEqualTo(60 * MS);
        assertThat(s.failover().count()).isEqualTo(4);
        assertThat(s.failover().percentileNanos(50)).isEqualTo(60 * MS);
        assertThat(s.failover().percentileNanos(99)).isEqualTo(500 * MS);
    }

    @Test
    void messagesPerElectionDividesElectionMessagesByElectionsOverAllRuns() {
        SimulationSummary s = SimulationSummary.of(
                "quorum", 5, FaultKind.all(), 1, 3, List.of(ok(1, 3, 30, 0), ok(2, 1, 15, 0), ok(3, 0, 0, 0)));

        assertThat(s.elections()).isEqualTo(4);
        assertThat(s.electionMessages()).isEqualTo(45);
        assertThat(s.messagesPerElection()).hasValue(11.25);
    }

    @Test
    void messagesPerElectionIsAbsentWhenNoElectionWasWon() {
        SimulationSummary s = SimulationSummary.of("quorum", 1, FaultKind.all(), 1, 1, List.of(ok(1, 0, 0, 0)));

        assertThat(s.messagesPerElection()).isEmpty();
    }

    @Test
    void convergenceCountsOnlyRunsThatConvergedAndCountsTheOthers() {
        SimulationSummary s = SimulationSummary.of(
                "quorum",
                5,
                FaultKind.all(),
                1,
                4,
                List.of(ok(1, 1, 5, 100 * MS), ok(2, 1, 5, -1), ok(3, 1, 5, 300 * MS), ok(4, 1, 5, 200 * MS)));

        assertThat(s.convergence().count()).isEqualTo(3);
        assertThat(s.convergence().percentileNanos(50)).isEqualTo(200 * MS);
        assertThat(s.convergence().maxNanos()).isEqualTo(300 * MS);
        assertThat(s.notConverged()).isEqualTo(1);
    }

    @Test
    void violationsAreListedInSeedOrderWhateverTheRunOrder() {
        List<RunResult> runs = new ArrayList<>(List.of(
                violating(9, "one-leader-per-term", "n1 and n2 lead term 2"),
                ok(3, 1, 5, 0),
                violating(4, "terms-never-decrease", "n3 went from 5 to 4")));

        SimulationSummary s = SimulationSummary.of("quorum", 5, FaultKind.all(), 1, 10, runs);

        assertThat(s.violations()).extracting(v -> v.seed()).containsExactly(4L, 9L);
        assertThat(s.violatingRuns()).isEqualTo(2);
        assertThat(s.firstViolatingSeed()).hasValue(4L);
        assertThat(s.totalViolations()).isEqualTo(2);
    }

    @Test
    void exhaustiveViolationsCountTowardsTheTotal() {
        SimulationSummary s = SimulationSummary.of("quorum", 5, FaultKind.all(), 1, 1, List.of(ok(1, 1, 5, 0)))
                .withExhaustive(new ExhaustiveExplorer.Result(
                        3,
                        8,
                        1200,
                        300,
                        violating(0, "one-vote-per-term", "n1 voted twice").violations()));

        assertThat(s.totalViolations()).isEqualTo(1);
        assertThat(s.exhaustive()).isPresent();
        assertThat(s.elections()).isEqualTo(1);
    }
}
