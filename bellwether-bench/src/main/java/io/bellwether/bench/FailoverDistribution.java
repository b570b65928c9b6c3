package io.bellwether.bench;

import io.bellwether.server.report.Distribution;
import io.bellwether.server.report.SimulationSummary;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RandomExplorer;
import io.bellwether.sim.SimulationConfig;
import java.io.PrintStream;
import java.time.LocalDate;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * Failover time of the quorum elector by the kind of fault that hits the leader: for each fault kind alone,
 * K seeded 5-node runs, then p50/p90/p99/max of the time without a leader (virtual milliseconds) and the
 * messages per election, printed as a markdown table for {@code docs/benchmarks.md}.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.FailoverDistribution [K]}
 * with K seeds per fault kind (default 500). Exits 1 if any run violated an invariant, 2 on a bad argument.
 */
public final class FailoverDistribution {
    static final int DEFAULT_SEEDS = 500;
    static final int NODES = 5;
    /** The faults that take a leader out of action; the others need not hit the leader at all. */
    static final List<FaultKind> LEADER_FAULTS =
            List.of(FaultKind.CRASH, FaultKind.SILENT_CRASH, FaultKind.STOP, FaultKind.PAUSE, FaultKind.ISOLATE);

    private FailoverDistribution() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        OptionalInt seedsArg = Args.onlyCount(
                args,
                "SEEDS",
                DEFAULT_SEEDS,
                10_000_000,
                "FailoverDistribution [SEEDS]  (seeds per fault kind, default " + DEFAULT_SEEDS + ")",
                err);
        if (seedsArg.isEmpty()) {
            return 2;
        }
        int seeds = seedsArg.getAsInt();
        int threads = Runtime.getRuntime().availableProcessors();

        out.printf(
                Locale.ROOT,
                "Quorum elector, %d nodes, defaults; %d seeds per fault kind (seeds 1..%d); %s, %d cores, Java %s.%n%n",
                NODES,
                seeds,
                seeds,
                LocalDate.now(),
                threads,
                System.getProperty("java.version"));
        out.println("| fault hitting the leader | failovers | p50 ms | p90 ms | p99 ms | max ms | messages/election |"
                + " violations |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        long violations = 0;
        for (FaultKind kind : LEADER_FAULTS) {
            SimulationConfig config = SimulationConfig.forAlgorithm("quorum", NODES, EnumSet.of(kind));
            SimulationSummary summary =
                    SimulationSummary.of(RandomExplorer.explore(config, 1, seeds, threads, p -> {}));
            violations += summary.totalViolations();
            out.println(row(kind, summary));
        }
        out.println();
        out.println("Times are virtual (simulated) milliseconds from the fault to the next leader's election; for a"
                + " stop, from the stopped leader's revocation (it leads until then).");
        if (violations > 0) {
            err.println(violations + " invariant violation(s): replay them with `./bellwether simulate`.");
            return 1;
        }
        return 0;
    }

    static String row(FaultKind kind, SimulationSummary summary) {
        Distribution d = summary.failoverByFault().getOrDefault(kind, Distribution.empty());
        String perElection = summary.messagesPerElection().isPresent()
                ? String.format(
                        Locale.ROOT, "%.1f", summary.messagesPerElection().getAsDouble())
                : "-";
        if (d.isEmpty()) {
            return String.format(
                    Locale.ROOT,
                    "| %s | 0 | - | - | - | - | %s | %d |",
                    kind.cliName(),
                    perElection,
                    summary.totalViolations());
        }
        return String.format(
                Locale.ROOT,
                "| %s | %d | %s | %s | %s | %s | %s | %d |",
                kind.cliName(),
                d.count(),
                ms(d.percentileNanos(50)),
                ms(d.percentileNanos(90)),
                ms(d.percentileNanos(99)),
                ms(d.maxNanos()),
                perElection,
                summary.totalViolations());
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f", Distribution.millis(nanos));
    }
}
