package io.bellwether.bench.scale;

import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many election groups per process: {@code G} quorum groups in each of {@code N} member processes on loopback,
 * every member with one {@link io.bellwether.transport.tcp.TcpTransport} shared by its groups, default timings and
 * in-memory state ({@link ScaleNode}). For each {@code G} it measures the time from starting the processes until
 * every group has one leader all members agree on, each member's threads, resident memory and CPU while idle, how
 * many groups each member leads after the idle period, the re-agreement after every member is paused at once, and
 * then, after a kill -9 of the member leading the most groups, how soon each of its groups is led by another
 * member (p50 / p99 / max). It prints a markdown table whose first line names the command, the machine and the date.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.scale.ScaleGroups --groups
 * 10,100,1000 [--nodes 3] [--idle-seconds 30] [--ceiling-seconds 120] [--trials 1] [--xmx 512m] [--pause-ms 2000]
 * [--spread false]}. Each wait is
 * bounded by the ceiling: a group count whose groups do not all agree within it is reported as {@code never: K of G
 * led after S s}, without a kill. Every member process is killed at the end of its group count, and by a shutdown
 * hook if the driver is stopped; a member also ends by itself when the driver's end closes its standard input.
 */
public final class ScaleGroups {
    private ScaleGroups() {}

    /**
     * Runs the measurements and prints the table on standard output, progress on standard error.
     *
     * @param args the options; see the class comment
     * @throws Exception if the measurement cannot run at all
     */
    public static void main(String[] args) throws Exception {
        ScaleOptions options;
        try {
            options = ScaleOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("ScaleGroups: " + e.getMessage());
            System.exit(2);
            return;
        }
        String command = ProcessHandle.current()
                .info()
                .commandLine()
                .orElse(ScaleGroups.class.getName() + " " + String.join(" ", args));
        AtomicReference<ScaleTrial> current = new AtomicReference<>();
        Thread hook = new Thread(
                () -> {
                    ScaleTrial t = current.get();
                    if (t != null) {
                        t.close();
                    }
                },
                "scale-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        run(options, command, current, System.out, System.err);
    }

    /**
     * Measures every group count of {@code options}, {@code options.trials()} times each, printing the table to
     * {@code out} as the rows come in.
     *
     * @param command the command line, for the table's first line
     * @param current holds the running trial, so that a shutdown hook can kill its processes
     * @return the results, in the order of the rows
     */
    static List<ScaleResult> run(
            ScaleOptions options, String command, AtomicReference<ScaleTrial> current, PrintStream out, PrintStream err)
            throws Exception {
        out.println(firstLine(command));
        out.println();
        out.println(ScaleTable.header());
        List<ScaleResult> results = new ArrayList<>();
        for (int groups : options.groups()) {
            for (int trial = 1; trial <= options.trials(); trial++) {
                err.printf(
                        Locale.ROOT,
                        "scale: %d groups x %d members, trial %d of %d%n",
                        groups,
                        options.nodes(),
                        trial,
                        options.trials());
                ScaleTrial t = new ScaleTrial(
                        groups,
                        options.nodes(),
                        options.ceiling(),
                        options.maxHeap(),
                        options.pause(),
                        options.spread());
                current.set(t);
                boolean failed = true;
                try {
                    ScaleResult r = t.run(options.idle(), err);
                    results.add(r);
                    out.println(ScaleTable.row(r));
                    out.flush();
                    r.failover()
                            .ifPresent(f -> err.printf(
                                    Locale.ROOT,
                                    "scale: killed %s, which led %d groups%n",
                                    f.victim(),
                                    f.reledNanos().size() + f.notReled()));
                    failed = false;
                } catch (IllegalStateException e) {
                    out.println("| " + ScaleTable.grouped(groups) + " | failed: "
                            + e.getMessage().lines().findFirst().orElse("") + " |"
                            + " |".repeat(ScaleTable.COLUMNS.size() - 2));
                    err.println("scale: " + e.getMessage());
                } finally {
                    t.close();
                    current.set(null);
                    if (!failed) {
                        t.deleteLogs();
                    } else {
                        err.println("scale: the members' logs are in " + t.logDirectory());
                    }
                }
            }
        }
        return results;
    }

    /** The machine, the date and the command, as the table's first line. */
    static String firstLine(String command) {
        return String.format(
                Locale.ROOT,
                "`%s` — %d cores, %s %s, Java %s (%s), %s",
                command,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("java.version"),
                System.getProperty("java.vm.name"),
                Instant.now().truncatedTo(ChronoUnit.SECONDS));
    }
}
