package io.bellwether.bench.peers;

import io.bellwether.bench.peers.PeerOptions.Scenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Bellwether beside its incumbents, every node its own process on loopback: failover after kill -9, SIGSTOP and
 * SIGTERM of the leader (from the signal to another node's leader line), then idle CPU and resident memory per
 * process over the same period. Prints one markdown table of the figures and one of Bellwether's as ratios to each
 * peer's from the same run; {@code --chart FILE.svg} also draws the failover distributions.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.peers.PeerComparison
 * [options]}, see {@link PeerOptions#USAGE}. Each trial starts on a settled cluster: every node ready, one leader,
 * and all the system's processes (and this one) together nearly idle over half a second; the node hit is restored
 * after the next leader appears (restarted, or resumed with SIGCONT).
 *
 * <p>Duration: at the defaults (20 trials, 60 s idle, 10 s leases) about 80 minutes on 2 cores, of which Curator
 * at its defaults takes about 30 (each kill -9 or SIGSTOP trial waits out the 40 s session, so {@code
 * --slow-trials} bounds it: 42 s per trial and scenario) and the three lease systems about 10 each (a crash waits
 * out the lease). Bellwether, Ratis and tuned Curator take 2 to 4 minutes each. Every wait is bounded: a failover by
 * {@code --failover-timeout-s} (reported as a timeout), a start or a settling by 120 s (the system is then abandoned,
 * its logs kept, and the run goes on with the next).
 */
public final class PeerComparison {
    /** Bound on a system's start and on each settling. */
    private static final Duration SETTLE = Duration.ofSeconds(120);

    /** A process busier than this, in percent of one core over half a second, is still starting. */
    static final int QUIET_PERCENT = 20;

    private PeerComparison() {}

    /** Idle figures of one system. */
    record Idle(
            double seconds,
            double nodeCpuMean,
            double leaderCpu,
            double nodeRssMean,
            double supportCpuMean,
            double supportRssMean,
            int supportCount,
            double totalCpu,
            OptionalDouble statementsPerContender,
            OptionalDouble statementsHolder,
            boolean leaderChanged) {}

    /** Everything measured of one system. */
    static final class SystemResult {
        final Map<Scenario, PeerStats> failover = new LinkedHashMap<>();
        Optional<Idle> idle = Optional.empty();
        String error;
    }

    /**
     * Runs the comparison.
     *
     * @param args see {@link PeerOptions#USAGE}
     */
    public static void main(String[] args) throws Exception {
        PeerOptions options;
        try {
            options = PeerOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        for (String s : options.systems()) {
            if (!PeerSystems.available(s)) {
                System.err.println("--systems: " + s + " needs " + PeerSystems.LEASE_MAINS.get(s)
                        + ", which is not in this build");
                System.exit(2);
            }
        }
        PrintStream out = System.out;
        String header = header(args);
        Map<String, SystemResult> results = new LinkedHashMap<>();
        for (String system : options.systems()) {
            System.err.println("== " + system);
            results.put(system, runSystem(system, options, System.err));
        }
        out.println(header);
        out.println();
        print(out, options, results);
        if (options.chart().isPresent()) {
            Path chart = options.chart().get();
            Files.writeString(chart, chart(header, options, results), StandardCharsets.UTF_8);
            out.println();
            out.println("Chart: " + chart);
        }
    }

    static String header(String[] args) {
        return String.format(
                Locale.ROOT,
                "Machine: %d cores, Linux %s, Java %s; %s; command: java -cp bellwether-bench/target/benchmarks.jar"
                        + " %s%s",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.version"),
                System.getProperty("java.version"),
                Instant.now().truncatedTo(ChronoUnit.SECONDS),
                PeerComparison.class.getName(),
                args.length == 0 ? "" : " " + String.join(" ", args));
    }

    /** Starts the system, runs every scenario's trials and the idle measurement, ends every process. */
    static SystemResult runSystem(String system, PeerOptions options, PrintStream log) {
        SystemResult result = new SystemResult();
        Duration failoverTimeout = Duration.ofSeconds(options.failoverTimeoutSeconds());
        PeerCluster cluster = null;
        try {
            Path dir = Files.createTempDirectory("bw-peers-" + system + "-");
            cluster = PeerSystems.build(system, dir, options.leaseMillis(), options.jdbcUrl());
            if (options.keepLogs()) {
                cluster.keepDirectory();
            }
            log.println(system + ": processes in " + dir);
            cluster.start(SETTLE);
            for (Scenario scenario : options.scenarios()) {
                PeerStats stats = new PeerStats();
                result.failover.put(scenario, stats);
                int trials = options.trialsOf(system, scenario);
                for (int i = 0; i < trials; i++) {
                    OptionalLong nanos = trial(cluster, scenario, failoverTimeout, log);
                    if (nanos.isPresent()) {
                        stats.add(nanos.getAsLong());
                    } else {
                        stats.addTimeout();
                    }
                    log.printf(
                            Locale.ROOT,
                            "%s %s trial %d/%d: %s%n",
                            system,
                            scenario.title(),
                            i + 1,
                            trials,
                            nanos.isPresent()
                                    ? String.format(Locale.ROOT, "%.1f ms", nanos.getAsLong() / 1e6)
                                    : "timeout");
                }
            }
            if (options.idleSeconds() > 0) {
                result.idle = Optional.of(idle(cluster, options.idleSeconds(), log));
            }
        } catch (Exception e) {
            result.error = e.toString();
            log.println(system + ": abandoned: " + e);
            if (cluster != null) {
                cluster.keepDirectory();
                log.println(system + ": logs kept in " + cluster.directory());
            }
            for (PeerStats s : result.failover.values()) {
                if (s.trials() == 0) {
                    s.fail(e.toString());
                }
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
        return result;
    }

    /**
     * One failover: waits for a settled cluster, hits its leader, waits for another node's leader line, restores
     * the node hit.
     *
     * @return from the signal to the next leader line, in ns, or empty if none came within {@code timeout}
     */
    static OptionalLong trial(PeerCluster cluster, Scenario scenario, Duration timeout, PrintStream log)
            throws IOException, InterruptedException {
        NodeProcess leader = settle(cluster, log);
        int mark = cluster.leaderMark();
        long t0 = PeerProtocol.wallNanos();
        switch (scenario) {
            case KILL -> leader.kill9();
            case STOP -> leader.sigstop();
            case TERM -> leader.sigterm();
        }
        Optional<PeerCluster.LeaderEvent> next = cluster.awaitLeaderAfter(mark, leader, timeout);
        switch (scenario) {
            case STOP -> leader.sigcont();
            case KILL, TERM -> {
                if (!leader.awaitExit(Duration.ofSeconds(30))) {
                    log.println(cluster.name() + ": " + leader.id() + " did not end within 30 s of " + scenario.title()
                            + "; killed");
                }
                leader.start();
            }
        }
        return next.isPresent() ? OptionalLong.of(next.get().wallNanos() - t0) : OptionalLong.empty();
    }

    /**
     * Waits for one leader with every node ready, restoring nodes that are down or stopped and restarting a stale
     * claimant if the cluster does not settle; then waits for the processes to be nearly idle.
     */
    static NodeProcess settle(PeerCluster cluster, PrintStream log) throws IOException, InterruptedException {
        Optional<NodeProcess> leader = cluster.awaitOneLeader(SETTLE);
        if (leader.isEmpty()) {
            log.println(cluster.name() + ": not settled within " + SETTLE + "; restoring nodes");
            List<NodeProcess> claims = cluster.claimedLeaders();
            for (NodeProcess n : cluster.nodes()) {
                if (n.isStopped()) {
                    n.sigcont();
                }
                boolean stale = claims.indexOf(n) > 0;
                if (stale) {
                    n.destroy();
                }
                if (!n.isAlive()) {
                    n.start();
                }
            }
            leader = cluster.awaitOneLeader(SETTLE);
            if (leader.isEmpty()) {
                throw new IllegalStateException(cluster.name() + ": no single leader with every node ready within "
                        + SETTLE + "; logs in " + cluster.directory());
            }
        }
        awaitQuiet(cluster, log);
        return cluster.awaitOneLeader(SETTLE)
                .orElseThrow(() -> new IllegalStateException(cluster.name() + ": the leader changed while settling"));
    }

    /**
     * Waits until no process of the cluster, nor this one, uses more than {@value #QUIET_PERCENT}% of a core over
     * half a second: a restarted JVM has done loading classes and compiling, which on a small machine would compete
     * with the failover measured (a busy JVM uses most of a core; an idle node of any of these systems a few
     * percent). Gives up with a warning after 30 s.
     */
    static void awaitQuiet(PeerCluster cluster, PrintStream log) throws InterruptedException {
        long windowMillis = 500;
        double limitTicks = QUIET_PERCENT / 100.0 * ProcUsage.TICKS_PER_SECOND * windowMillis / 1000.0;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            List<Long> pids = new ArrayList<>(cluster.pids());
            pids.add(ProcessHandle.current().pid());
            Map<Long, Long> before = new LinkedHashMap<>();
            for (long pid : pids) {
                before.put(pid, ProcUsage.cpuTicks(List.of(pid)));
            }
            Thread.sleep(windowMillis); // the measurement window itself
            long busiest = 0;
            for (long pid : pids) {
                busiest = Math.max(busiest, ProcUsage.cpuTicks(List.of(pid)) - before.get(pid));
            }
            if (busiest <= limitTicks) {
                return;
            }
        }
        log.println(cluster.name() + ": still busy after 30 s of waiting for quiet; trial runs anyway");
    }

    private static Idle idle(PeerCluster cluster, int seconds, PrintStream log) throws Exception {
        NodeProcess leaderBefore = settle(cluster, log);
        List<NodeProcess> nodes = cluster.nodes();
        List<NodeProcess> support = cluster.support();
        Map<NodeProcess, Long> ticksBefore = new LinkedHashMap<>();
        for (NodeProcess p : concat(nodes, support)) {
            ticksBefore.put(p, ProcUsage.cpuTicks(List.of(p.pid())));
        }
        int mark = cluster.leaderMark();
        long t0 = System.nanoTime();
        log.println(cluster.name() + ": idle for " + seconds + " s");
        Thread.sleep(seconds * 1000L); // the idle period measured
        long t1 = System.nanoTime();
        double wall = (t1 - t0) / 1e9;
        boolean changed = cluster.leaderMark() != mark || !leaderBefore.isLeading();
        double nodeCpu = 0;
        double leaderCpu = 0;
        double nodeRss = 0;
        double supportCpu = 0;
        double supportRss = 0;
        double totalCpu = 0;
        for (NodeProcess p : concat(nodes, support)) {
            double cpu = 100.0
                    * (ProcUsage.cpuTicks(List.of(p.pid())) - ticksBefore.get(p))
                    / ProcUsage.TICKS_PER_SECOND
                    / wall;
            double rss = ProcUsage.residentKiB(p.pid()) / 1024.0;
            totalCpu += cpu;
            if (p.isNode()) {
                nodeCpu += cpu / nodes.size();
                nodeRss += rss / nodes.size();
                if (p == leaderBefore) {
                    leaderCpu = cpu;
                }
            } else {
                supportCpu += cpu / support.size();
                supportRss += rss / support.size();
            }
        }
        OptionalDouble perContender = OptionalDouble.empty();
        OptionalDouble holder = OptionalDouble.empty();
        double sum = 0;
        int counted = 0;
        for (NodeProcess n : nodes) {
            OptionalDouble rate = statementRate(n.statements(), t0, t1);
            if (rate.isPresent()) {
                sum += rate.getAsDouble();
                counted++;
                if (n == leaderBefore) {
                    holder = rate;
                }
            }
        }
        if (counted > 0) {
            perContender = OptionalDouble.of(sum / counted);
        }
        return new Idle(
                wall,
                nodeCpu,
                leaderCpu,
                nodeRss,
                supportCpu,
                supportRss,
                support.size(),
                totalCpu,
                perContender,
                holder,
                changed);
    }

    /**
     * Statements per second between the first report at or after {@code from} and the last at or before {@code
     * to} (both monotonic ns); empty with fewer than two such reports.
     *
     * @param samples {nanoTime received, total}, in order
     */
    static OptionalDouble statementRate(List<long[]> samples, long from, long to) {
        long[] first = null;
        long[] last = null;
        for (long[] s : samples) {
            if (s[0] >= from && s[0] <= to) {
                if (first == null) {
                    first = s;
                }
                last = s;
            }
        }
        if (first == null || last == first || last[0] == first[0]) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((last[1] - first[1]) / ((last[0] - first[0]) / 1e9));
    }

    private static List<NodeProcess> concat(List<NodeProcess> a, List<NodeProcess> b) {
        List<NodeProcess> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static void print(PrintStream out, PeerOptions options, Map<String, SystemResult> results) {
        out.println("| scenario | system | trials | p50 ms | p99 ms | max ms |");
        out.println("|---|---|---:|---:|---:|---:|");
        for (Scenario scenario : options.scenarios()) {
            for (Map.Entry<String, SystemResult> e : results.entrySet()) {
                PeerStats s = e.getValue().failover.get(scenario);
                if (s == null) {
                    out.printf("| %s | %s | 0 | failed | failed | failed |%n", scenario.title(), e.getKey());
                    continue;
                }
                String trials = s.timeouts() > 0
                        ? s.trials() + " (" + s.timeouts() + " timeout)"
                        : Integer.toString(s.trials());
                out.printf(
                        "| %s | %s | %s | %s | %s | %s |%n",
                        scenario.title(),
                        e.getKey(),
                        trials,
                        PeerStats.formatMillis(s.percentileMillis(50)),
                        PeerStats.formatMillis(s.percentileMillis(99)),
                        PeerStats.formatMillis(s.maxMillis()));
            }
        }
        if (options.idleSeconds() > 0) {
            out.println();
            out.println("| idle | system | seconds | CPU % of a core per node (mean; leader) | RSS MiB per node"
                    + " | ZooKeeper servers: CPU % each; RSS MiB each | all processes CPU % | statements/s per"
                    + " contender; holder |");
            out.println("|---|---|---:|---:|---:|---:|---:|---:|");
            for (Map.Entry<String, SystemResult> e : results.entrySet()) {
                Optional<Idle> idle = e.getValue().idle;
                if (idle.isEmpty()) {
                    out.printf("| idle | %s | – | failed | failed | – | – | – |%n", e.getKey());
                    continue;
                }
                Idle i = idle.get();
                out.printf(
                        Locale.ROOT,
                        "| idle | %s | %.0f%s | %.2f; %.2f | %.0f | %s | %.2f | %s |%n",
                        e.getKey(),
                        i.seconds(),
                        i.leaderChanged() ? " (leader changed)" : "",
                        i.nodeCpuMean(),
                        i.leaderCpu(),
                        i.nodeRssMean(),
                        i.supportCount() == 0
                                ? "–"
                                : String.format(Locale.ROOT, "%.2f; %.0f", i.supportCpuMean(), i.supportRssMean()),
                        i.totalCpu(),
                        i.statementsPerContender().isPresent()
                                ? String.format(
                                        Locale.ROOT,
                                        "%.2f; %s",
                                        i.statementsPerContender().getAsDouble(),
                                        i.statementsHolder().isPresent()
                                                ? String.format(
                                                        Locale.ROOT,
                                                        "%.2f",
                                                        i.statementsHolder().getAsDouble())
                                                : "–")
                                : "–");
            }
        }
        ratios(out, options, results);
        out.println();
        out.println("Notes:");
        for (String system : results.keySet()) {
            String error = results.get(system).error;
            out.println("- " + system + ": " + PeerSystems.SYSTEMS.get(system)
                    + (error == null ? "" : ". FAILED: " + error));
        }
        out.println("- Failover: from the wall clock just before the signal (SIGSTOP through a shell's builtin kill"
                + " kept running) to the wall-clock stamp of another node's leader line; p50/p99 nearest-rank; timeout"
                + " after " + options.failoverTimeoutSeconds() + " s; a percentile that falls among timeouts reads"
                + " timeout.");
        out.println("- Idle CPU from /proc/PID/stat (utime+stime) over the period; RSS from /proc/PID/status at its"
                + " end.");
    }

    /** The second table: each Bellwether system's p50 (and idle cost) over each peer's. */
    static void ratios(PrintStream out, PeerOptions options, Map<String, SystemResult> results) {
        List<String> mine =
                results.keySet().stream().filter(PeerSystems::isBellwether).toList();
        List<String> peers = results.keySet().stream()
                .filter(s -> !PeerSystems.isBellwether(s))
                .toList();
        if (mine.isEmpty() || peers.isEmpty()) {
            return;
        }
        out.println();
        StringBuilder head = new StringBuilder("| Bellwether / peer (same run) |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String p : peers) {
            head.append(' ').append(p).append(" |");
            rule.append("---:|");
        }
        out.println(head);
        out.println(rule);
        for (Scenario scenario : options.scenarios()) {
            for (String m : mine) {
                StringBuilder row = new StringBuilder("| " + scenario.title() + " p50: " + m + " |");
                for (String p : peers) {
                    row.append(' ')
                            .append(PeerStats.formatRatio(
                                    PeerStats.ratio(p50(results.get(m), scenario), p50(results.get(p), scenario))))
                            .append(" |");
                }
                out.println(row);
            }
        }
        if (options.idleSeconds() > 0) {
            for (String m : mine) {
                StringBuilder cpu = new StringBuilder("| idle CPU, all processes: " + m + " |");
                StringBuilder rss = new StringBuilder("| RSS per node: " + m + " |");
                for (String p : peers) {
                    Optional<Idle> a = results.get(m).idle;
                    Optional<Idle> b = results.get(p).idle;
                    cpu.append(' ')
                            .append(PeerStats.formatRatio(PeerStats.ratio(
                                    a.map(i -> OptionalDouble.of(i.totalCpu())).orElse(OptionalDouble.empty()),
                                    b.map(i -> OptionalDouble.of(i.totalCpu())).orElse(OptionalDouble.empty()))))
                            .append(" |");
                    rss.append(' ')
                            .append(PeerStats.formatRatio(PeerStats.ratio(
                                    a.map(i -> OptionalDouble.of(i.nodeRssMean()))
                                            .orElse(OptionalDouble.empty()),
                                    b.map(i -> OptionalDouble.of(i.nodeRssMean()))
                                            .orElse(OptionalDouble.empty()))))
                            .append(" |");
                }
                out.println(cpu);
                out.println(rss);
            }
        }
    }

    private static OptionalDouble p50(SystemResult result, Scenario scenario) {
        PeerStats s = result.failover.get(scenario);
        return s == null ? OptionalDouble.empty() : s.percentileMillis(50);
    }

    static String chart(String title, PeerOptions options, Map<String, SystemResult> results) {
        List<String> scenarios = new ArrayList<>();
        Map<String, Map<String, PeerStats>> byScenario = new LinkedHashMap<>();
        for (Scenario scenario : options.scenarios()) {
            scenarios.add(scenario.title());
            Map<String, PeerStats> bySystem = new LinkedHashMap<>();
            results.forEach((system, r) -> {
                if (r.failover.containsKey(scenario)) {
                    bySystem.put(system, r.failover.get(scenario));
                }
            });
            byScenario.put(scenario.title(), bySystem);
        }
        return SvgChart.render(title, scenarios, List.copyOf(results.keySet()), byScenario);
    }
}
