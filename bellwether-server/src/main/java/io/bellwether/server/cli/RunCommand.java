package io.bellwether.server.cli;

import io.bellwether.server.config.Durations;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import io.bellwether.server.run.CommandRunner;
import io.bellwether.server.run.OnExit;
import io.bellwether.server.run.RunOptions;
import io.bellwether.server.run.RunPlan;
import io.bellwether.server.run.StepDown;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bellwether run --config FILE [options] -- COMMAND ARGS...}: runs one node, as {@code bellwether node} does,
 * and runs COMMAND while that node leads (see docs/run.md).
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Runs one node, as 'bellwether node' does, and runs COMMAND only while this node leads, with"
                    + " BELLWETHER_EPOCH, BELLWETHER_NODE, BELLWETHER_LEADER and BELLWETHER_GROUP in its environment.",
            "When the leadership ends, COMMAND's process group gets SIGTERM, then SIGKILL after the grace, and is gone"
                    + " before the leadership's validity ends; it also dies with this process, however it ends.",
            "SIGTERM or Ctrl-C stops COMMAND, then resigns gracefully and exits 0.",
            "Exit status: 0 stopped cleanly, 2 invalid options or configuration, 3 could not start, 4 stopped to"
                    + " resign (an algorithm that cannot resign and stay a member), 70 halted by a fatal error on an"
                    + " election thread."
        })
final class RunCommand implements Callable<Integer> {
    /**
     * The node stopped to give up leadership, its algorithm being unable to resign and stay a member; a supervisor
     * restarts it as a member.
     */
    static final int EXIT_RESIGNED = 4;

    @Spec
    CommandSpec spec;

    @Mixin
    NodeConfigFile config;

    @Option(
            names = "--grace",
            paramLabel = "DURATION",
            description = "Time between SIGTERM and SIGKILL when leadership ends; 0ms to 10m and no longer than"
                    + " the algorithm's timing allows (see docs/run.md). Default: the longest the timing allows, at"
                    + " most 5s.")
    String grace;

    @Option(
            names = "--on-exit",
            paramLabel = "POLICY",
            description = "When COMMAND exits on its own while this node leads: resign (hand leadership over, stay a"
                    + " member, do not compete for 5s), restart (backoff 1s doubling to 30s) or stay. Default: resign"
                    + " when it fails, stay when it exits with status 0.")
    String onExit;

    @Option(
            names = "--on-elected",
            paramLabel = "CMD",
            description = "A shell command run (fire and forget, killed after the grace, at least 1s) when this node"
                    + " becomes leader.")
    String onElected;

    @Option(
            names = "--on-revoked",
            paramLabel = "CMD",
            description = "A shell command run likewise when this node's leadership ends, after COMMAND stopped.")
    String onRevoked;

    @Parameters(
            paramLabel = "COMMAND",
            arity = "0..*",
            description = "The program to run while leading, and its arguments (after --).")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RunOptions options;
        NodeConfig node;
        RunPlan plan;
        try {
            options = new RunOptions(
                    Optional.ofNullable(grace).map(RunOptions::parseGrace),
                    Optional.ofNullable(onExit).map(OnExit::parse),
                    Optional.ofNullable(onElected),
                    Optional.ofNullable(onRevoked),
                    command);
        } catch (IllegalArgumentException e) {
            err.println("bellwether run: " + e.getMessage());
            err.println("Try 'bellwether run --help' for more information.");
            return Main.EXIT_USAGE;
        }
        Optional<NodeConfig> loaded = config.load("run", err);
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        node = loaded.get();
        if (node.manyGroups()) {
            err.println(
                    "bellwether run: the configuration names " + node.groups().size() + " groups (groups): allowed"
                            + " one group only, whose leader runs the command; use group: NAME (or run one bellwether run per"
                            + " group)");
            return Main.EXIT_USAGE;
        }
        try {
            plan = RunPlan.of(node, options);
        } catch (IllegalArgumentException e) {
            err.println("bellwether run: " + e.getMessage());
            err.println("See docs/run.md for how the grace relates to the algorithm's timing.");
            return Main.EXIT_USAGE;
        } catch (IllegalStateException e) {
            err.println("bellwether run: " + e.getMessage());
            return Main.EXIT_ERROR;
        }
        NodeCommand.configureLogging();
        NodeCommand.capDnsCache();
        NodeDaemon.haltOnFatalError();
        NodeDaemon daemon;
        try {
            daemon = NodeDaemon.start(node, plan.revocationLead());
        } catch (RuntimeException e) {
            return NodeCommand.startFailed("run", node, e, err);
        }
        CountDownLatch stop = new CountDownLatch(1);
        AtomicBoolean resigned = new AtomicBoolean();
        // Every built-in algorithm resigns and stays a member. One that cannot (a plug-in) gives leadership up by
        // stopping the node: it hands over as on SIGTERM and exits with EXIT_RESIGNED, for its supervisor to restart.
        StepDown stepDown = holdOff -> {
            try {
                daemon.election().resign(holdOff);
            } catch (UnsupportedOperationException e) {
                resigned.set(true);
                stop.countDown();
            }
        };
        CommandRunner runner = new CommandRunner(
                daemon.election(), options, plan, stepDown, daemon.meterRegistry(), System.out, System.err);
        daemon.statusSection("command", runner::status);
        runner.start();
        AtomicBoolean stopping = new AtomicBoolean();
        Runnable shutdown = () -> {
            if (stopping.compareAndSet(false, true)) {
                try {
                    // The command first: a successor must not lead while it still runs.
                    runner.close();
                    daemon.close();
                } finally {
                    stop.countDown();
                }
            }
        };
        Signals.onTermination(shutdown, shutdown);
        out.println("bellwether run: node " + node.node() + " of cluster " + node.cluster() + " (group " + node.group()
                + ", " + node.algorithm() + "), grace " + Durations.format(plan.grace()) + plan.graceNote()
                + "; runs " + options.command() + " while leading");
        out.println("dashboard: " + daemon.url() + "   status: " + daemon.url() + "status   metrics: " + daemon.url()
                + "metrics");
        out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        shutdown.run();
        if (resigned.get()) {
            out.println("bellwether run: node " + node.node() + " stopped to resign (--on-exit)");
            out.flush();
            return EXIT_RESIGNED;
        }
        out.println("bellwether run: node " + node.node() + ": stopped");
        out.flush();
        return Main.EXIT_OK;
    }
}
