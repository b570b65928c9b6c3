package io.bellwether.server.demo;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.Durations;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bellwether demo}: a local cluster to watch. Starts N node processes on loopback with a generated
 * secret and temporary state, prints the dashboard address and a live log of leadership changes with how
 * long each election took, and with {@code --chaos} kills, pauses and restarts nodes — the leader most often.
 * Ctrl-C stops every process it started and removes its files.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Start a local cluster of node processes on loopback and watch it elect and fail over.",
            "Ctrl-C stops every process and removes the temporary files."
        })
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--nodes",
            defaultValue = "5",
            description = "Number of node processes, 1 to 15 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--groups",
            defaultValue = "1",
            description = "Election groups every node hosts, 1 to " + MAX_GROUPS + " (named group-0, group-1, ...;"
                    + " at most " + MAX_STORE_GROUPS + " with an algorithm that uses a lease store, which every group"
                    + " polls). With more than one, the demo prints a summary of the groups' leaders whenever it"
                    + " changes instead of a line per election (default: ${DEFAULT-VALUE}).")
    int groups;

    @Option(
            names = "--algorithm",
            defaultValue = "quorum",
            description =
                    "Election algorithm (default: ${DEFAULT-VALUE}). Available: ${COMPLETION-CANDIDATES} (one that"
                            + " uses a lease store, such as lease, on an H2 database server the demo starts itself),"
                            + " or one of their runs that the simulator offers, such as bully-strict.",
            completionCandidates = Available.class)
    String algorithm;

    @Option(
            names = "--chaos",
            description = "Kill (SIGKILL), pause (SIGSTOP/SIGCONT) and restart random nodes, the leader most often.")
    boolean chaos;

    @Option(
            names = "--chaos-interval",
            defaultValue = "4s",
            description = "Mean time between chaos actions, e.g. 4s or 2500ms (default: ${DEFAULT-VALUE}).")
    String chaosInterval;

    @Option(names = "--seed", description = "Seed of the chaos schedule (default: random; printed at start).")
    Long seed;

    @Option(names = "--duration", description = "Stop by itself after this long, e.g. 60s (default: run until Ctrl-C).")
    String duration;

    @Option(
            names = "--run",
            description = "Every node is `bellwether run`: it runs COMMAND (given after --) while it leads, stopped on"
                    + " loss of leadership; each node's log holds the command's output, and the dashboard shows it"
                    + " (docs/run.md).")
    boolean run;

    @Parameters(
            paramLabel = "COMMAND",
            arity = "0..*",
            description = "With --run: the program each leader runs, and its arguments (after --).")
    List<String> command = new ArrayList<>();

    /**
     * What the demo can run: what a node can run ({@link ConfigLoader#AVAILABLE_ALGORITHMS}: those that need only
     * the nodes first, then those that use a store, for which the demo starts one).
     */
    static final List<String> ALGORITHMS = ConfigLoader.AVAILABLE_ALGORITHMS;

    /** The most groups {@code --groups} gives each node: the most a node hosts. */
    static final int MAX_GROUPS = 10_000;

    /**
     * The most groups with an algorithm that uses a lease store: every group renews or polls its own lease, so a
     * thousand of them on five nodes would keep the demo's one in-process database busy with tens of thousands of
     * queries a second.
     */
    static final int MAX_STORE_GROUPS = 100;

    /** The lease duration of the lease demo: failovers quick enough to watch, renewals rare enough to read. */
    static final Duration DEMO_LEASE_DURATION = Duration.ofSeconds(2);

    /**
     * How long the watch waits for one node's status. A live node answers in milliseconds; one that is slower
     * (a busy machine) would otherwise be left out of the reading as if it were down. Paused and stopped nodes are
     * never asked, and a node being restarted refuses the connection at once.
     */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(1);
    /** How long the chaos waits for the live nodes to agree on a leader the watch has reported. */
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(3);
    /**
     * How long the chaos of a demo of several groups waits for every group to be led (and the last failover wave
     * to complete) before it strikes again: many groups' elections take longer to settle than one's.
     */
    private static final Duration GROUPS_SETTLE_TIMEOUT = Duration.ofSeconds(10);

    private volatile long leaderlessSinceNanos = -1;
    private volatile String lossCause = "start";
    /**
     * The leader and epoch the watch last reported; written by the watch only, once it has reported them, and read
     * by the chaos (see {@link #agreedLeader}).
     */
    private volatile String reportedLeader;

    private volatile long reportedEpoch = -1;

    /** With more than one group, what watches them (and what the chaos asks for its target); else null. */
    private GroupsWatch groupsWatch;

    /** How long the watch of several groups waits for one node's {@code /groups}, which lists every group. */
    private static final Duration GROUPS_STATUS_TIMEOUT = Duration.ofSeconds(2);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (nodes < 1 || nodes > 15) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be 1 to 15, was " + nodes);
        }
        if (run && command.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--run needs the COMMAND to run after --, e.g. demo --run -- ./job.sh");
        }
        if (!run && !command.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "a COMMAND (" + String.join(" ", command) + ") is run only with --run: demo --run -- COMMAND");
        }
        if (groups < 1 || groups > MAX_GROUPS) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--groups must be 1 to " + MAX_GROUPS + ", was " + groups);
        }
        if (run && groups > 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--run takes one group only (its leader runs the command), was --groups " + groups);
        }
        // A run of an algorithm (a variant such as bully-strict) is accepted too: the nodes get its settings.
        Optional<Algorithm> chosen = Algorithms.byVariant(algorithm);
        if (chosen.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--algorithm must be one of: " + String.join(", ", ALGORITHMS) + ", was '" + algorithm + "'");
        }
        if (groups > MAX_STORE_GROUPS && chosen.get().traits().contains(Trait.USES_STORE)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--groups with --algorithm " + algorithm + " must be 1 to " + MAX_STORE_GROUPS
                            + " (every group polls the lease store), was " + groups);
        }
        Duration interval = parseDuration("--chaos-interval", chaosInterval);
        Optional<Duration> runFor =
                duration == null ? Optional.empty() : Optional.of(parseDuration("--duration", duration));
        long chaosSeed = seed != null ? seed : new SplittableRandom().nextLong();

        long start = System.nanoTime();
        leaderlessSinceNanos = start;
        // The lease demo's store: an H2 server in this process, so that killing any node leaves the lease intact.
        Algorithm run = chosen.get();
        boolean usesStore = run.traits().contains(Trait.USES_STORE);
        EmbeddedH2 h2 = usesStore ? EmbeddedH2.start("bellwether") : null;
        LocalCluster cluster;
        try {
            String settings = settingLines(run, run.variant(algorithm).orElseThrow());
            String section = (h2 != null
                            ? h2.leaseSection(DEMO_LEASE_DURATION) + settings
                            : settings.isEmpty() ? "" : run.name() + ":\n" + settings)
                    + (groups > 1 ? "groups: " + groups + "\n" : "");
            cluster = this.run
                    ? LocalCluster.startRunning(nodes, run.name(), section, command)
                    : LocalCluster.start(nodes, run.name(), section);
        } catch (IOException | RuntimeException e) {
            if (h2 != null) {
                h2.close();
            }
            throw e;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    stop.countDown();
                    cluster.close();
                    if (h2 != null) {
                        h2.close();
                    }
                },
                "bellwether-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        if (groups > 1) {
            out.printf(
                    "Started %d %s nodes on 127.0.0.1, %d groups each (files in %s)%n",
                    nodes, algorithm, groups, cluster.directory());
        } else {
            out.printf("Started %d %s nodes on 127.0.0.1 (files in %s)%n", nodes, algorithm, cluster.directory());
        }
        for (LocalCluster.Member m : cluster.members()) {
            if (h2 == null) {
                out.printf("  %-4s peer 127.0.0.1:%d  http %s%n", m.id(), m.peerPort(), m.httpUri("/"));
            } else {
                out.printf("  %-4s http %s%n", m.id(), m.httpUri("/"));
            }
        }
        if (h2 != null) {
            out.printf(
                    "Lease store: H2 at %s (lease duration %s)%n", h2.jdbcUrl(), Durations.format(DEMO_LEASE_DURATION));
        }
        out.printf("Dashboard: %s%n", cluster.members().get(0).httpUri("/"));
        if (this.run) {
            out.printf(
                    "Each leader runs: %s (its output, each line prefixed [epoch N], is in the leader's log in %s)%n",
                    String.join(" ", command), cluster.directory());
        }
        if (chaos) {
            out.printf("Chaos: on, seed %d (replay with --seed %d)%n", chaosSeed, chaosSeed);
        }
        out.println("Ctrl-C to stop.");
        out.flush();

        if (groups > 1) {
            out.printf(
                    "Watching %d groups: a summary when their leaders change (at most one a second)%s%n",
                    groups, chaos ? ", and how long each failover took" : "");
            groupsWatch = new GroupsWatch(cluster, groups, GROUPS_STATUS_TIMEOUT, line -> log(out, start, line));
        }
        GroupsWatch many = groupsWatch;
        Thread watcher = new Thread(
                () -> {
                    if (many != null) {
                        many.run(stop);
                    } else {
                        watch(cluster, out, start, stop);
                    }
                },
                "bellwether-demo-watch");
        watcher.setDaemon(true);
        watcher.start();
        Thread monkey = null;
        if (chaos) {
            monkey = new Thread(
                    () -> chaos(cluster, out, start, stop, interval, new SplittableRandom(chaosSeed)),
                    "bellwether-demo-chaos");
            monkey.setDaemon(true);
            monkey.start();
        }
        // Stops after --duration, or when the thread running the command is interrupted (an embedding program or
        // a test stopping it); without --duration otherwise at Ctrl-C, whose shutdown hook stops the cluster.
        boolean interrupted = false;
        try {
            if (runFor.isPresent()) {
                stop.await(runFor.get().toMillis(), TimeUnit.MILLISECONDS);
            } else {
                stop.await();
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (runFor.isPresent() || interrupted) {
            stop.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C came meanwhile: the hook stops the cluster too, which is harmless
            }
            if (monkey != null) {
                joinQuietly(monkey, 5000);
            }
            cluster.close();
            if (h2 != null) {
                h2.close();
            }
            out.println("Stopped every node and removed " + cluster.directory());
            out.flush();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /**
     * The lines of the algorithm's section that set what the run changes, as a node's configuration file holds
     * them; empty for its defaults.
     */
    static String settingLines(Algorithm algorithm, Variant run) {
        StringBuilder lines = new StringBuilder();
        for (var setting : algorithm.settings()) {
            Object value = run.settings().get(setting.key());
            if (value != null) {
                String text = value instanceof Duration d
                        ? Durations.format(d)
                        : value instanceof String t ? "'" + t.replace("'", "''") + "'" : String.valueOf(value);
                lines.append("  ")
                        .append(setting.key())
                        .append(": ")
                        .append(text)
                        .append('\n');
            }
        }
        return lines.toString();
    }

    private static void joinQuietly(Thread thread, long millis) {
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watch(LocalCluster cluster, PrintWriter out, long start, CountDownLatch stop) {
        int knownBy = 0;
        try {
            while (!stop.await(25, TimeUnit.MILLISECONDS)) {
                Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
                Optional<NodeStatus> agreed = LocalCluster.agreedLeader(statuses);
                long now = System.nanoTime();
                if (agreed.isPresent()) {
                    NodeStatus l = agreed.get();
                    if (!l.node().equals(reportedLeader) || l.epoch() != reportedEpoch) {
                        long since = leaderlessSinceNanos;
                        String took = since < 0
                                ? ""
                                : String.format(" — elected %.0f ms after %s", (now - since) / 1e6, lossCause);
                        log(
                                out,
                                start,
                                l.node() + " leads at epoch " + l.epoch() + ", known by all " + statuses.size()
                                        + " live nodes" + took);
                        knownBy = statuses.size();
                        leaderlessSinceNanos = -1;
                        reportedEpoch = l.epoch();
                        reportedLeader = l.node();
                    } else if (statuses.size() > knownBy) {
                        // Nodes that were still starting (or restarting) have learned of the same leader.
                        knownBy = statuses.size();
                        log(
                                out,
                                start,
                                l.node() + " leads at epoch " + l.epoch() + ", now known by all " + knownBy
                                        + " live nodes");
                    }
                } else if (reportedLeader != null
                        && !statuses.containsKey(reportedLeader)
                        && leaderlessSinceNanos < 0) {
                    leaderlessSinceNanos = now;
                    lossCause = "losing " + reportedLeader;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void chaos(
            LocalCluster cluster,
            PrintWriter out,
            long start,
            CountDownLatch stop,
            Duration interval,
            SplittableRandom random) {
        List<String> ids =
                cluster.members().stream().map(LocalCluster.Member::id).toList();
        int maxDown = (ids.size() - 1) / 2;
        try {
            while (!stop.await((long) (interval.toMillis() * (0.5 + random.nextDouble())), TimeUnit.MILLISECONDS)) {
                // Bring back whatever is down or paused first, then strike again.
                List<String> down = new ArrayList<>();
                for (String id : ids) {
                    if (!cluster.isRunning(id)) {
                        down.add(id);
                    }
                }
                for (String id : down) {
                    cluster.startNode(id);
                    log(out, start, "chaos: restarted " + id);
                }
                for (String id : ids) {
                    if (cluster.isPaused(id)) {
                        cluster.resume(id);
                        log(out, start, "chaos: resumed " + id + " (SIGCONT)");
                    }
                }
                if (maxDown == 0) {
                    continue;
                }
                if (groupsWatch != null) {
                    if (!strikeGroups(cluster, out, start, stop, ids, random)) {
                        return;
                    }
                    continue;
                }
                // A node just resumed still reports the leadership it had when it was paused until it hears of the
                // newer term, so the live nodes disagree for a moment, and the watch reports a new leader only at its
                // next look: striking before either would not know the leader, or time the wrong failover.
                Optional<NodeStatus> leader = agreedLeader(cluster, stop, SETTLE_TIMEOUT);
                if (stop.getCount() == 0) {
                    return;
                }
                String target = leader.isPresent() && random.nextDouble() < 0.6
                        ? leader.get().node()
                        : ids.get(random.nextInt(ids.size()));
                boolean isLeader = leader.isPresent() && leader.get().node().equals(target);
                if (random.nextBoolean()) {
                    markLoss(isLeader, "kill -9 of " + target);
                    cluster.kill(target);
                    log(out, start, "chaos: kill -9 " + target + (isLeader ? " (the leader)" : ""));
                } else {
                    markLoss(isLeader, "SIGSTOP of " + target);
                    cluster.pause(target);
                    log(out, start, "chaos: SIGSTOP " + target + (isLeader ? " (the leader)" : ""));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (stop.getCount() > 0) {
                log(out, start, "chaos stopped: " + e);
            }
        }
    }

    /**
     * Strikes a node of a demo of several groups, once every group is led again (or after {@link
     * #GROUPS_SETTLE_TIMEOUT}): the member leading the most groups more often than not ("the leader"), else a
     * random one; the watch times how long the groups it led take to be led again. False if the demo is stopping.
     */
    private boolean strikeGroups(
            LocalCluster cluster,
            PrintWriter out,
            long start,
            CountDownLatch stop,
            List<String> ids,
            SplittableRandom random)
            throws IOException, InterruptedException {
        // A picture taken after this round's restarts and resumes.
        Optional<GroupsWatch.Picture> picture = groupsWatch.settled(System.nanoTime(), stop, GROUPS_SETTLE_TIMEOUT);
        if (stop.getCount() == 0) {
            return false;
        }
        Optional<String> busiest = picture.flatMap(GroupsWatch.Picture::busiest);
        String target =
                busiest.isPresent() && random.nextDouble() < 0.6 ? busiest.get() : ids.get(random.nextInt(ids.size()));
        // What it leads now, read just before the strike: the picture may be a quarter of a second old.
        Map<String, GroupsWatch.Led> led = groupsWatch.ledBy(target).orElse(Map.of());
        String what = led.isEmpty()
                ? ""
                : " (leads " + led.size() + " groups"
                        + (busiest.filter(target::equals).isPresent() ? ", the most)" : ")");
        if (random.nextBoolean()) {
            groupsWatch.fault(target, "kill -9 of " + target, led);
            cluster.kill(target);
            log(out, start, "chaos: kill -9 " + target + what);
        } else {
            groupsWatch.fault(target, "SIGSTOP of " + target, led);
            cluster.pause(target);
            log(out, start, "chaos: SIGSTOP " + target + what);
        }
        return true;
    }

    /**
     * The leader every live node agrees on and the watch has already reported, asking again every 100 ms for up to
     * {@code patience}; empty if there is none by then (the chaos strikes a random node) or the demo is stopping.
     * Only a leader already reported is struck as the leader: the watch would otherwise report it for the first
     * time after the strike, as elected by it.
     */
    private Optional<NodeStatus> agreedLeader(LocalCluster cluster, CountDownLatch stop, Duration patience)
            throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            Optional<NodeStatus> leader = LocalCluster.agreedLeader(cluster.liveStatuses(STATUS_TIMEOUT))
                    .filter(l -> l.node().equals(reportedLeader) && l.epoch() == reportedEpoch);
            if (leader.isPresent() || System.nanoTime() - deadline >= 0 || stop.await(100, TimeUnit.MILLISECONDS)) {
                return leader;
            }
        }
    }

    private void markLoss(boolean isLeader, String cause) {
        if (isLeader) {
            lossCause = cause; // before the volatile write the watch reads first
            leaderlessSinceNanos = System.nanoTime();
        }
    }

    private static synchronized void log(PrintWriter out, long start, String line) {
        out.printf("[%8.3fs] %s%n", (System.nanoTime() - start) / 1e9, line);
        out.flush();
    }

    private Duration parseDuration(String option, String text) {
        try {
            return Durations.parse(option, text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The algorithms offered, for the help text. */
    static final class Available implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ALGORITHMS.iterator();
        }
    }
}
