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
 * runs; the text, JSON and HTML renderers only format it.
 */
public final class SimulationSummary {
    private final String algorithm;
    private final int nodes;
    private final Set<FaultKind> faults;
    private final long seedStart;
    private final int seeds;
    private final int runs;
    private final List<Violation> violations;
    private final long violatingRuns;
    private final long elections;
    private final long electionMessages;
    private final long totalMessages;
    private final long events;
    private final Distribution failover;
    private final Map<FaultKind, Distribution> failoverByFault;
    private final Distribution convergence;
    private final long twoLeaderNanos;
    private final long twoLeaderEpisodes;
    private final int notConverged;
    private final ExhaustiveExplorer.Result exhaustive;

    private SimulationSummary(
            String algorithm,
            int nodes,
            Set<FaultKind> faults,
            long seedStart,
            int seeds,
            List<RunResult> runResults,
            ExhaustiveExplorer.Result exhaustive) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.nodes = nodes;
        // An EnumSet keeps the kinds in declaration order, so the printed list does not vary from run to run.
        this.faults = faults.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(faults));
        this.seedStart = seedStart;
        this.seeds = seeds;
        this.exhaustive = exhaustive;
        this.runs = runResults.size();

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
        this.violations = Collections.unmodifiableList(allViolations);
        this.violatingRuns = violating;
        this.elections = electionCount;
        this.electionMessages = electionMessageCount;
        this.totalMessages = messageCount;
        this.events = eventCount;
        this.failover = toDistribution(all);
        Map<FaultKind, Distribution> split = new EnumMap<>(FaultKind.class);
        byFault.forEach((kind, values) -> split.put(kind, toDistribution(values)));
        this.failoverByFault = Collections.unmodifiableMap(split);
        this.convergence = toDistribution(converged);
        this.notConverged = notConvergedCount;
        this.twoLeaderNanos = splitNanos;
        this.twoLeaderEpisodes = splitEpisodes;
    }

    /** Summarises runs of {@code seeds} seeds starting at {@code seedStart}. */
    public static SimulationSummary of(
            String algorithm, int nodes, Set<FaultKind> faults, long seedStart, int seeds, List<RunResult> runs) {
        return new SimulationSummary(algorithm, nodes, faults, seedStart, seeds, runs, null);
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
        return new SimulationSummary(this, Objects.requireNonNull(result, "result"));
    }

    private SimulationSummary(SimulationSummary source, ExhaustiveExplorer.Result exhaustive) {
        this.algorithm = source.algorithm;
        this.nodes = source.nodes;
        this.faults = source.faults;
        this.seedStart = source.seedStart;
        this.seeds = source.seeds;
        this.runs = source.runs;
        this.violations = source.violations;
        this.violatingRuns = source.violatingRuns;
        this.elections = source.elections;
        this.electionMessages = source.electionMessages;
        this.totalMessages = source.totalMessages;
        this.events = source.events;
        this.failover = source.failover;
        this.failoverByFault = source.failoverByFault;
        this.convergence = source.convergence;
        this.notConverged = source.notConverged;
        this.twoLeaderNanos = source.twoLeaderNanos;
        this.twoLeaderEpisodes = source.twoLeaderEpisodes;
        this.exhaustive = exhaustive;
    }

    private static Distribution toDistribution(List<Long> values) {
        return Distribution.of(values.stream().mapToLong(Long::longValue).toArray());
    }

    public String algorithm() {
        return algorithm;
    }

    public int nodes() {
        return nodes;
    }

    public Set<FaultKind> faults() {
        return faults;
    }

    /** The faults as written on the command line: {@code all}, {@code none} or a comma-separated list. */
    public String faultsText() {
        return FaultKind.toList(faults);
    }

    public long seedStart() {
        return seedStart;
    }

    public int seeds() {
        return seeds;
    }

    /** Runs summarised (equal to {@link #seeds()} for a complete exploration). */
    public int runs() {
        return runs;
    }

    /** Every violation of every run, in seed order. */
    public List<Violation> violations() {
        return violations;
    }

    /** Runs with at least one violation. */
    public long violatingRuns() {
        return violatingRuns;
    }

    /** Violations found by the random and, when it ran, the exhaustive exploration. */
    public long totalViolations() {
        return violations.size()
                + (exhaustive == null ? 0 : exhaustive.violations().size());
    }

    public long elections() {
        return elections;
    }

    public long electionMessages() {
        return electionMessages;
    }

    public long totalMessages() {
        return totalMessages;
    }

    public long events() {
        return events;
    }

    /** Election messages divided by elections won, or empty when no election was won. */
    public OptionalDouble messagesPerElection() {
        return elections == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) electionMessages / elections);
    }

    /** Failover times of all faults that hit a leader. */
    public Distribution failover() {
        return failover;
    }

    /** Failover times by the kind of fault that hit the leader; only kinds with at least one sample. */
    public Map<FaultKind, Distribution> failoverByFault() {
        return failoverByFault;
    }

    /** Convergence times of the runs that converged after the fault phase. */
    public Distribution convergence() {
        return convergence;
    }

    /**
     * Total simulated time, over all runs, during which two or more running nodes acted as leader: by design
     * possible for bully, ring and invitation without its gate under partitions, measured rather than failed;
     * always 0 for the algorithms that forbid it (a violation there).
     */
    public long twoLeaderNanos() {
        return twoLeaderNanos;
    }

    /** How many separate periods with two or more acting leaders the runs had. */
    public long twoLeaderEpisodes() {
        return twoLeaderEpisodes;
    }

    /** Runs that had not converged to a single leader by the end of the quiet phase. */
    public int notConverged() {
        return notConverged;
    }

    public Optional<ExhaustiveExplorer.Result> exhaustive() {
        return Optional.ofNullable(exhaustive);
    }

    /** The seed of the first run with a violation, if any. */
    public Optional<Long> firstViolatingSeed() {
        return violations.isEmpty()
                ? Optional.empty()
                : Optional.of(violations.get(0).seed());
    }
}
