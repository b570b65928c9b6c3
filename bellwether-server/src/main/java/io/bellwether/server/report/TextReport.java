package io.bellwether.server.report;

import io.bellwether.sim.ExhaustiveExplorer;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.HistoryEntry;
import io.bellwether.sim.Violation;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/** Renders a {@link SimulationSummary} as the plain-text report of {@code bellwether simulate}. */
public final class TextReport {
    private TextReport() {}

    public static void render(SimulationSummary summary, PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "bellwether simulate: algorithm %s, %d nodes, seeds %d..%d (%d), faults %s%n%n",
                summary.algorithm(),
                summary.nodes(),
                summary.seedStart(),
                summary.seedStart() + summary.seeds() - 1,
                summary.seeds(),
                summary.faultsText());

        row(out, "runs", String.valueOf(summary.runs()));
        row(
                out,
                "violations",
                summary.violations().isEmpty()
                        ? "0"
                        : summary.violations().size() + " (in " + summary.violatingRuns() + " runs)");
        row(out, "elections", String.valueOf(summary.elections()));
        row(
                out,
                "messages per election",
                summary.messagesPerElection().isPresent()
                        ? String.format(
                                Locale.ROOT,
                                "%.1f",
                                summary.messagesPerElection().getAsDouble())
                        : "-");
        Distribution convergence = summary.convergence();
        row(
                out,
                "convergence after faults",
                convergence.isEmpty()
                        ? "- (no run converged)"
                        : String.format(
                                Locale.ROOT,
                                "median %s ms, max %s ms (%d runs did not converge)",
                                ms(convergence.percentileNanos(50)),
                                ms(convergence.maxNanos()),
                                summary.notConverged()));
        out.printf(
                Locale.ROOT,
                "  %-28s %s ms in %d periods (%.1f ms per run)%n",
                "two acting leaders",
                ms(summary.twoLeaderNanos()),
                summary.twoLeaderEpisodes(),
                summary.runs() == 0 ? 0.0 : summary.twoLeaderNanos() / 1e6 / summary.runs());
        out.println();

        out.printf(Locale.ROOT, "  %-16s %8s %10s %10s %10s%n", "failover (ms)", "count", "p50", "p99", "max");
        for (Map.Entry<FaultKind, Distribution> e : summary.failoverByFault().entrySet()) {
            failoverRow(out, e.getKey().cliName(), e.getValue());
        }
        failoverRow(out, "all", summary.failover());

        summary.exhaustive().ifPresent(result -> renderExhaustive(result, out));

        for (Violation violation : summary.violations()) {
            renderViolation(violation, out);
        }
        out.println();
        out.println(
                summary.totalViolations() == 0
                        ? "OK: no invariant was violated."
                        : "FAILED: " + summary.totalViolations() + " violation(s); replay commands above.");
    }

    private static void renderExhaustive(ExhaustiveExplorer.Result result, PrintWriter out) {
        out.println();
        out.printf(
                Locale.ROOT,
                "  exhaustive: %d nodes, depth %d: %d paths, %d distinct states, %d violations%n",
                result.nodes(),
                result.depth(),
                result.paths(),
                result.distinctStates(),
                result.violations().size());
        for (Violation violation : result.violations()) {
            renderViolation(violation, out);
        }
    }

    /** One line of the summary block: the label in a column of 28, then the value. */
    private static void row(PrintWriter out, String label, String value) {
        out.printf(Locale.ROOT, "  %-28s %s%n", label, value);
    }

    private static void failoverRow(PrintWriter out, String label, Distribution d) {
        if (d.isEmpty()) {
            out.printf(Locale.ROOT, "  %-16s %8d %10s %10s %10s%n", label, 0, "-", "-", "-");
        } else {
            out.printf(
                    Locale.ROOT,
                    "  %-16s %8d %10s %10s %10s%n",
                    label,
                    d.count(),
                    ms(d.percentileNanos(50)),
                    ms(d.percentileNanos(99)),
                    ms(d.maxNanos()));
        }
    }

    static void renderViolation(Violation violation, PrintWriter out) {
        out.println();
        out.printf(
                Locale.ROOT,
                "VIOLATION seed %d: %s: %s%n",
                violation.seed(),
                violation.invariant(),
                violation.message());
        if (!violation.excerpt().isEmpty()) {
            out.println("  history excerpt:");
            for (HistoryEntry entry : violation.excerpt()) {
                out.println("    " + entry);
            }
        }
        out.println("  replay: " + violation.replayCommand());
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f", Distribution.millis(nanos));
    }
}
