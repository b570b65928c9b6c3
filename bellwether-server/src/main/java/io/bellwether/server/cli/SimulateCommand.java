package io.bellwether.server.cli;

import io.bellwether.server.config.Durations;
import io.bellwether.server.report.HtmlReport;
import io.bellwether.server.report.JsonReport;
import io.bellwether.server.report.SimulationSummary;
import io.bellwether.server.report.TextReport;
import io.bellwether.sim.ExhaustiveExplorer;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RandomExplorer;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.SimulationConfig;
import io.bellwether.sim.Simulator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code bellwether simulate}: runs many seeded simulations of an algorithm under faults and reports. */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        description = {
            "Runs seeded simulations of an election algorithm under injected faults, checks its invariants and"
                    + " reports failover times.",
            "Exit status: 0 no violation, 1 a violation, 2 bad arguments, 3 an unexpected error."
        })
final class SimulateCommand implements Callable<Integer> {
    /** The runs the simulator offers: every variant of every registered algorithm ({@link SimulationConfig#ALGORITHMS}). */
    static final List<String> ALGORITHMS = SimulationConfig.ALGORITHMS;

    static final int MAX_NODES = SimulationConfig.MAX_NODES;
    static final int MAX_SEEDS = 100_000_000;
    static final int MAX_THREADS = 1024;
    static final int MAX_EXHAUSTIVE_DEPTH = 40;
    /** The longest phase a run may have: one simulated hour. */
    static final Duration MAX_PHASE = Duration.ofHours(1);

    private static final String MAX_PHASE_TEXT = "1h";

    /** The exhaustive exploration covers the smallest cluster where a majority is not everyone. */
    static final int EXHAUSTIVE_NODES = 3;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--algorithm",
            paramLabel = "NAME",
            defaultValue = "quorum",
            description = "Algorithm to simulate: ${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}.",
            completionCandidates = Algorithms.class)
    String algorithm;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            defaultValue = "5",
            description = "Nodes in the group, 1 to " + MAX_NODES + ". Default: ${DEFAULT-VALUE}.")
    int nodes;

    @Option(
            names = "--seeds",
            paramLabel = "K",
            defaultValue = "100",
            description = "Number of seeds (runs). Default: ${DEFAULT-VALUE}.")
    int seeds;

    @Option(
            names = "--seed-start",
            paramLabel = "S",
            defaultValue = "1",
            description = "First seed. Default: ${DEFAULT-VALUE}.")
    long seedStart;

    @Option(
            names = "--faults",
            paramLabel = "LIST",
            defaultValue = "all",
            description = "Comma-separated fault kinds, or all or none. Kinds: crash, silent-crash, partition,"
                    + " one-way, isolate, loss, duplicate, reorder, reset, pause, pause-all (every node paused at"
                    + " once, up to 3 s, then resumed together), starve (CPU starvation: every node, or one, serves"
                    + " each event up to 100 ms late and falls up to 1 s behind), drift, stop, store-outage,"
                    + " store-slow, lost-reply, byzantine-lite (a member also sends well-formed frames whose term,"
                    + " epoch or counter is extreme: 2^63-1, 2^63-2, the counter bound 2^47, 2^47+1, negative),"
                    + " resign (a member, often the leader, resigns and stays a member, holding off for up to 2 s)."
                    + " Kinds that do not apply to the algorithm are skipped. Default: ${DEFAULT-VALUE}.")
    String faultsText;

    private Set<FaultKind> faults;

    @Option(
            names = "--fault-phase",
            paramLabel = "DURATION",
            description = "How long faults are injected, e.g. 30s; 0ms to " + MAX_PHASE_TEXT + ". Default: 30s.")
    String faultPhaseText;

    @Option(
            names = "--quiet-phase",
            paramLabel = "DURATION",
            description = "How long the run goes on after the last fault, for the group to converge; 0ms to "
                    + MAX_PHASE_TEXT + ". Default: 10s.")
    String quietPhaseText;

    private Duration faultPhase = SimulationConfig.DEFAULT_FAULT_PHASE;
    private Duration quietPhase = SimulationConfig.DEFAULT_QUIET_PHASE;

    @Option(
            names = "--priorities",
            description = "Give every node a priority of its own (0 to 2, drawn from the seed) and check that after the"
                    + " faults a member of the highest live priority leads (quorum, bully, lease); ring and"
                    + " invitation refuse it. On odd seeds each quorum or lease member knows only its own"
                    + " priority (as a configuration file gives it), on even seeds every member's (as"
                    + " spread leaders give them).")
    boolean priorities;

    @Option(names = "--threads", paramLabel = "T", description = "Worker threads. Default: the number of processors.")
    Integer threads;

    @Option(names = "--json", description = "Print one JSON object on stdout instead of the text report.")
    boolean json;

    @Option(
            names = "--report",
            paramLabel = "FILE.html",
            description =
                    "Also write a self-contained HTML report with a leadership timeline and a failover" + " histogram.")
    Path report;

    @Option(
            names = "--report-seed",
            paramLabel = "S",
            description = "Seed whose timeline the HTML report shows when no run failed. Default: the first seed.")
    Long reportSeed;

    @Option(
            names = "--exhaustive-depth",
            paramLabel = "D",
            description = "Also explore every interleaving of a " + EXHAUSTIVE_NODES
                    + "-node group up to D steps, 1 to " + MAX_EXHAUSTIVE_DEPTH + ".")
    Integer exhaustiveDepth;

    /** Whether stderr is a terminal worth drawing progress on; replaced in tests. */
    BooleanSupplier terminal = () -> System.console() != null;

    @Override
    public Integer call() {
        validate();
        int threadCount = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();

        SimulationConfig config;
        try {
            config = SimulationConfig.forAlgorithm(algorithm, nodes, faults)
                    .withPhases(faultPhase, quietPhase)
                    .withPriorities(priorities);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e, null, null);
        }

        ProgressLine progressLine = !json && terminal.getAsBoolean() ? new ProgressLine(err) : null;
        Consumer<RandomExplorer.Progress> progress = progressLine != null ? progressLine : p -> {};
        RandomExplorer.Exploration exploration;
        try {
            exploration = RandomExplorer.explore(config, seedStart, seeds, threadCount, progress);
        } finally {
            if (progressLine != null) {
                progressLine.clear();
            }
        }
        SimulationSummary summary = SimulationSummary.of(exploration);
        if (exhaustiveDepth != null) {
            summary = summary.withExhaustive(
                    ExhaustiveExplorer.explore(algorithm, config.spec(), EXHAUSTIVE_NODES, exhaustiveDepth));
        }

        if (report != null) {
            writeReport(config, summary);
        }
        if (json) {
            out.println(JsonReport.render(summary));
        } else {
            TextReport.render(summary, out);
            if (report != null) {
                out.println("HTML report: " + report.toAbsolutePath());
            }
        }
        out.flush();
        return summary.totalViolations() == 0 ? Main.EXIT_OK : Main.EXIT_VIOLATION;
    }

    private void validate() {
        CommandLine cl = spec.commandLine();
        if (!ALGORITHMS.contains(algorithm)) {
            throw new ParameterException(
                    cl, "--algorithm must be one of " + String.join(", ", ALGORITHMS) + ", was '" + algorithm + "'");
        }
        try {
            faults = FaultKind.parseList(faultsText);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, "--faults: " + e.getMessage());
        }
        faultPhase = phase(cl, "--fault-phase", faultPhaseText, SimulationConfig.DEFAULT_FAULT_PHASE);
        quietPhase = phase(cl, "--quiet-phase", quietPhaseText, SimulationConfig.DEFAULT_QUIET_PHASE);
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new ParameterException(cl, "--nodes must be 1 to " + MAX_NODES + ", was " + nodes);
        }
        if (seeds < 1 || seeds > MAX_SEEDS) {
            throw new ParameterException(cl, "--seeds must be 1 to " + MAX_SEEDS + ", was " + seeds);
        }
        if (seedStart < 0 || seedStart > Long.MAX_VALUE - seeds) {
            throw new ParameterException(
                    cl, "--seed-start must be 0 to " + (Long.MAX_VALUE - seeds) + ", was " + seedStart);
        }
        if (threads != null && (threads < 1 || threads > MAX_THREADS)) {
            throw new ParameterException(cl, "--threads must be 1 to " + MAX_THREADS + ", was " + threads);
        }
        if (exhaustiveDepth != null && (exhaustiveDepth < 1 || exhaustiveDepth > MAX_EXHAUSTIVE_DEPTH)) {
            throw new ParameterException(
                    cl, "--exhaustive-depth must be 1 to " + MAX_EXHAUSTIVE_DEPTH + ", was " + exhaustiveDepth);
        }
        if (reportSeed != null && report == null) {
            throw new ParameterException(cl, "--report-seed needs --report FILE.html");
        }
        if (report != null) {
            Path parent = report.toAbsolutePath().getParent();
            if (!report.getFileName().toString().endsWith(".html")) {
                throw new ParameterException(cl, "--report must name an .html file, was '" + report + "'");
            }
            if (parent == null || !Files.isDirectory(parent)) {
                throw new ParameterException(
                        cl, "--report '" + report + "' is not writable: directory " + parent + " does not exist");
            }
            if (Files.isDirectory(report)) {
                throw new ParameterException(cl, "--report '" + report + "' is a directory");
            }
        }
    }

    /** A phase length from the command line: a {@link Durations} text from 0 to {@link #MAX_PHASE}. */
    private static Duration phase(CommandLine cl, String option, String text, Duration fallback) {
        if (text == null) {
            return fallback;
        }
        Duration d;
        try {
            d = Durations.parse(option, text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, e.getMessage());
        }
        if (d.compareTo(MAX_PHASE) > 0) {
            throw new ParameterException(cl, option + " = '" + text + "' is invalid: allowed 0ms to " + MAX_PHASE_TEXT);
        }
        return d;
    }

    private void writeReport(SimulationConfig config, SimulationSummary summary) {
        long seed;
        String why;
        if (summary.firstViolatingSeed().isPresent()) {
            seed = summary.firstViolatingSeed().get();
            why = "The first seed that violated an invariant.";
        } else if (reportSeed != null) {
            seed = reportSeed;
            why = "No run violated an invariant; this is the seed chosen with --report-seed.";
        } else {
            seed = seedStart;
            why = "No run violated an invariant; this is the first seed (choose another with --report-seed).";
        }
        RunResult run = Simulator.run(config, seed, true);
        String html = HtmlReport.render(summary, run, why);
        try {
            Files.writeString(report, html, StandardCharsets.UTF_8);
        } catch (IOException | InvalidPathException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--report '" + report + "' could not be written: " + e.getMessage(),
                    e,
                    null,
                    null);
        }
    }

    static final class Algorithms implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return ALGORITHMS.iterator();
        }
    }
}
