package io.bellwether.bench.chaos;

import io.bellwether.server.config.Durations;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bellwether chaos}: a chaos run with real node processes, fault-injecting proxies and fenced writes into
 * PostgreSQL ({@link ChaosHarness}); prints a summary and, with {@code --report}, writes the HTML report.
 */
@Command(
        name = "bellwether chaos",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Starts a cluster of node processes on loopback with every peer link (and, for lease, every store"
                    + " connection) through fault-injecting proxies, has each leader write (epoch, node, counter)"
                    + " through the fencing guard into PostgreSQL on 127.0.0.1:5432 (database test), injects a"
                    + " seeded schedule of faults (kill -9, SIGSTOP, partitions, one-way loss, leader isolation,"
                    + " flapping, delayed and throttled links, store outages), then checks the whole history.",
            "Exit status: 0 no violation, 1 a violation, 2 bad arguments, 3 an unexpected error."
        })
public final class ChaosCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--algorithm",
            paramLabel = "NAME",
            defaultValue = "quorum",
            description = "quorum, lease, bully, ring or invitation. Default: ${DEFAULT-VALUE}.")
    String algorithm;

    @Option(
            names = "--store",
            paramLabel = "STORE",
            defaultValue = "postgres",
            description = "For lease: postgres (127.0.0.1:5432) or redis (127.0.0.1:6379). Default: ${DEFAULT-VALUE}.")
    String store;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            defaultValue = "task",
            description = "How the leader's work runs: task (runWhileLeader in the node) or command (bellwether run)."
                    + " Default: ${DEFAULT-VALUE}.")
    String mode;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            defaultValue = "3",
            description = "Members, 3 to 7. Default: ${DEFAULT-VALUE}.")
    int nodes;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "10m",
            description = "How long faults are injected, 10s to 24h. Default: ${DEFAULT-VALUE}.")
    String durationText;

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "Seed of the fault schedule. Default: drawn, and printed.")
    Long seed;

    @Option(
            names = "--heartbeat-interval",
            paramLabel = "DURATION",
            description = "quorum, bully, ring: the heartbeat interval (the node's default unless given).")
    String heartbeatText;

    @Option(
            names = "--missed-heartbeats",
            paramLabel = "N",
            description = "quorum, bully, ring: heartbeats missed before a new election, 2 to 100 (the node's default"
                    + " unless given).")
    Integer missedHeartbeats;

    @Option(
            names = "--lease-duration",
            paramLabel = "DURATION",
            description = "lease: the lease duration, 1s to 1m. Default: 3s.")
    String leaseText;

    @Option(names = "--report", paramLabel = "FILE", description = "Write the HTML report there.")
    String report;

    /** The interval and count each peer algorithm uses when none is given (docs/configuration.md). */
    private static final Duration QUORUM_HEARTBEAT = Duration.ofMillis(100);

    private static final int QUORUM_MISSED = 4;
    private static final Duration CLASSIC_HEARTBEAT = Duration.ofMillis(50);
    private static final int CLASSIC_MISSED = 3;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ChaosCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        ChaosHarness.Options options = options();
        Path reportFile = null;
        if (report != null) {
            try {
                reportFile = Path.of(report);
            } catch (InvalidPathException e) {
                throw usage("--report '" + report + "' is not a valid path: " + e.getMessage());
            }
        }
        ChaosRecord record = ChaosHarness.run(options, System.out);
        ChaosHarness.summarize(record, System.out);
        if (reportFile != null) {
            ChaosHarness.report(record, reportFile);
            System.out.println("chaos: report written to " + reportFile.toAbsolutePath());
        }
        return record.verdict().violations().isEmpty() ? 0 : 1;
    }

    /** The run's settings from the options; every bad value names its option and the allowed range. */
    ChaosHarness.Options options() {
        Duration duration = duration("--duration", durationText);
        long s = seed != null ? seed : System.nanoTime();
        StringBuilder section = new StringBuilder();
        Duration timeout = null;
        boolean lease = algorithm.equals("lease");
        if (lease) {
            if (heartbeatText != null || missedHeartbeats != null) {
                throw usage("--heartbeat-interval and --missed-heartbeats are for quorum, bully and ring, not lease");
            }
            if (leaseText != null) {
                timeout = duration("--lease-duration", leaseText);
                if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
                    throw usage("--lease-duration " + leaseText + " is out of range: allowed 1s to 1m");
                }
            }
        } else {
            if (leaseText != null) {
                throw usage("--lease-duration is for lease only");
            }
            if (heartbeatText != null || missedHeartbeats != null) {
                if (algorithm.equals("invitation")) {
                    throw usage("--heartbeat-interval and --missed-heartbeats are for quorum, bully and ring");
                }
                boolean quorum = algorithm.equals("quorum");
                Duration hb = heartbeatText != null
                        ? duration("--heartbeat-interval", heartbeatText)
                        : quorum ? QUORUM_HEARTBEAT : CLASSIC_HEARTBEAT;
                if (hb.compareTo(Duration.ofMillis(10)) < 0 || hb.compareTo(Duration.ofSeconds(5)) > 0) {
                    throw usage("--heartbeat-interval " + heartbeatText + " is out of range: allowed 10ms to 5s");
                }
                int missed = missedHeartbeats != null ? missedHeartbeats : quorum ? QUORUM_MISSED : CLASSIC_MISSED;
                if (missed < 2 || missed > 100) {
                    throw usage("--missed-heartbeats " + missed + " is out of range: allowed 2 to 100");
                }
                section.append(algorithm)
                        .append(": {heartbeat-interval: ")
                        .append(hb.toMillis())
                        .append("ms, missed-heartbeats: ")
                        .append(missed)
                        .append("}\n");
                timeout = hb.multipliedBy(missed);
            }
        }
        try {
            return new ChaosHarness.Options(
                    algorithm, store, mode, nodes, duration, s, section.toString(), timeout, replay(s));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** The command line that replays this run: every option as given, with the seed. */
    private String replay(long s) {
        List<String> argv = new ArrayList<>(List.of("./bellwether", "chaos", "--algorithm", algorithm));
        if (algorithm.equals("lease")) {
            argv.addAll(List.of("--store", store));
        }
        argv.addAll(List.of("--mode", mode, "--nodes", Integer.toString(nodes), "--duration", durationText));
        if (heartbeatText != null) {
            argv.addAll(List.of("--heartbeat-interval", heartbeatText));
        }
        if (missedHeartbeats != null) {
            argv.addAll(List.of("--missed-heartbeats", missedHeartbeats.toString()));
        }
        if (leaseText != null) {
            argv.addAll(List.of("--lease-duration", leaseText));
        }
        argv.addAll(List.of("--seed", Long.toString(s)));
        return String.join(" ", argv);
    }

    private Duration duration(String option, String text) {
        try {
            return Durations.parse(option, text);
        } catch (IllegalArgumentException e) {
            throw usage(option + " '" + text + "': " + Durations.ALLOWED);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
