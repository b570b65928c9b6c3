package io.bellwether.server.report;

import io.bellwether.sim.ExhaustiveExplorer;
import io.bellwether.sim.FailoverSample;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RandomExplorer;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.Violation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The figures reported for one random exploration: counts, failover times overall and by the kind of fault
 * that hit the leader, messages per election and convergence after the fault phase. Computed once from the
 * runs by {@link #of}; the text, JSON and HTML renderers only format it.
 *
 * @param faults the fault kinds injected, in declaration order
 * @param runs runs summarised (equal to {@link #seeds()} for a complete exploration)
 * @param violations every violation of every run, in seed order
 * @param violatingRuns runs with at least one violation
 * @param failover failover times of all faults that hit a leader
 * @param failoverByFault failover times by the kind of fault that hit the leader; only kinds with at least one
 *     sample
 * @param convergence convergence times of the runs that converged after the fault phase
 * @param twoLeaderNanos total simulated time, over all runs, during which two or more running nodes acted as
 *     leader: by design possible for bully, ring and invitation without its gate under partitions, measured
 *     rather than failed; always 0 for the algorithms that forbid it (a violation there)
 * @param twoLeaderEpisodes how many separate periods with two or more acting leaders the runs had
 * @param notConverged runs that had not converged to a single leader by the end of the quiet phase
 * @param exhaustive the result of the exhaustive exploration, when one ran ({@link #withExhaustive})
 */
public record SimulationSummary(
        String algorithm,
        int nodes,
        Set<FaultKind> faults,
        long seedStart,
        int seeds,
        int runs,
        List<Violation> violations,
        long violatingRuns,
        long elections,
        long electionMessages,
        long totalMessages,
        long events,
        Distribution failover,
        Map<FaultKind, Distribution> failoverByFault,
        Distribution convergence,
        long twoLeaderNanos,
        long twoLeaderEpisodes,
        int notConverged,
        Optional<ExhaustiveExplorer.Result> exhaustive) {

    /** Keeps unmodifiable copies of the collections, the fault kinds and the failovers by fault in declaration order. */
    public SimulationSummary {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(exhaustive, "exhaustive");
        // An EnumSet keeps the kinds in declaration order, so the printed list does not vary from run to run.
        faults = faults.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(faults));
        violations = Collections.unmodifiableList(new ArrayList<>(violations));
        Map<FaultKind, Distribution> byKind = new EnumMap<>(FaultKind.class);
        byKind.putAll(failoverByFault);
        failoverByFault = Collections.unmodifiableMap(byKind);
    }

    /** Summarises runs of {@code seeds} seeds starting at {@code seedStart}. */
    public static SimulationSummary of(
            String algorithm, int nodes, Set<FaultKind> faults, long seedStart, int seeds, List<RunResult> runResults) {
        List<Violation> allViolations = new ArrayList<>();
        long violating = 0;
        long electionCount = 0;
        long electionMessageCount = 0;
        long messageCount = 0;
        long eventCount = 0;
        List<Long> all = new ArrayList<>();
        Map<FaultKind, List<Long>> byFault = new EnumMap<>(FaultKind.class);
        List<Long> converged = new ArrayList<>();
        int notConvergedCount = 0;
        long splitNanos = 0;
        long splitEpisodes = 0;
        for (RunResult run : runResults) {
            if (!run.ok()) {
                violating++;
                allViolations.addAll(run.violations());
            }
            electionCount += run.elections();
            electionMessageCount += run.electionMessages();
            messageCount += run.totalMessages();
            eventCount += run.events();
            for (FailoverSample sample : run.failovers()) {
                all.add(sample.nanos());
                byFault.computeIfAbsent(sample.cause(), k -> new ArrayList<>()).add(sample.nanos());
            }
            splitNanos += run.twoLeaderNanos();
            splitEpisodes += run.twoLeaderEpisodes();
            if (run.convergenceNanos() >= 0) {
                converged.add(run.convergenceNanos());
            } else {
                notConvergedCount++;
            }
        }
        // Seed order, so that output is stable whatever order the explorer's threads finished in.
        allViolations.sort(Comparator.comparingLong(Violation::seed));
        Map<FaultKind, Distribution> split = new EnumMap<>(FaultKind.class);
        byFault.forEach((kind, values) -> split.put(kind, toDistribution(values)));
        return new SimulationSummary(
                algorithm,
                nodes,
                faults,
                seedStart,
                seeds,
                runResults.size(),
                allViolations,
                violating,
                electionCount,
                electionMessageCount,
                messageCount,
                eventCount,
                toDistribution(all),
                split,
                toDistribution(converged),
                splitNanos,
                splitEpisodes,
                notConvergedCount,
                Optional.empty());
    }

    /** Summarises a random exploration. */
    public static SimulationSummary of(RandomExplorer.Exploration exploration) {
        return of(
                exploration.config().algorithm(),
                exploration.config().nodes(),
                exploration.config().faults(),
                exploration.seedStart(),
                exploration.seeds(),
                exploration.runs());
    }

    /** This summary together with the result of an exhaustive exploration. */
    public SimulationSummary withExhaustive(ExhaustiveExplorer.Result result) {
        return new SimulationSummary(
                algorithm,
                nodes,
                faults,
                seedStart,
                seeds,
                runs,
                violations,
                violatingRuns,
                elections,
                electionMessages,
                totalMessages,
                events,
                failover,
                failoverByFault,
                convergence,
                twoLeaderNanos,
                twoLeaderEpisodes,
                notConverged,
                Optional.of(Objects.requireNonNull(result, "result")));
    }

    private static Distribution toDistribution(List<Long> values) {
        return Distribution.of(values.stream().mapToLong(Long::longValue).toArray());
    }

    /** The faults as written on the command line: {@code all}, {@code none} or a comma-separated list. */
    public String faultsText() {
        return FaultKind.toList(faults);
    }

    /** Violations found by the random and, when it ran, the exhaustive exploration. */
    public long totalViolations() {
        return violations.size() + exhaustive.map(r -> r.violations().size()).orElse(0);
    }

    /** Election messages divided by elections won, or empty when no election was won. */
    public OptionalDouble messagesPerElection() {
        return elections == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) electionMessages / elections);
    }

    /** The seed of the first run with a violation, if any. */
    public Optional<Long> firstViolatingSeed() {
        return violations.isEmpty()
                ? Optional.empty()
                : Optional.of(violations.get(0).seed());
    }
}
