package io.bellwether.bench;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import io.bellwether.server.report.Distribution;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Failover of real node processes on loopback, with the default configuration: kill -9, SIGSTOP (a silent
 * failure) and SIGTERM (graceful) of the leader of a 5-node quorum cluster, each repeated; then idle CPU and
 * resident memory per node.
 *
 * <p>Failover time is measured from the signal to the new leader's own stamp on the change in which it became
 * LEADER at a higher epoch; for SIGTERM a second row gives the time no node led, from the old leader's own stamp
 * on leaving LEADER (it leads until it has prepared its successor) to the new leader's. The stamps are read
 * after the failover, so that nothing watches while it runs (see {@link LeaderWatch}).
 *
 * <p>Each trial starts on a settled cluster: all nodes agree on a leader and together (with this process) use
 * less than {@value #QUIET_PERCENT}% of a core over half a second. Without that wait the node restarted after the previous trial is
 * still loading classes and compiling when the next one starts, and on a 2-core machine its start-up competes with
 * the failover being measured, which a cluster in service, whose nodes restart rarely, does not see.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.ProcessFailover
 * [TRIALS] [IDLE_SECONDS] [FAULTS] [NODES]} (defaults 20, 30, {@code "kill -9,SIGSTOP,SIGTERM"} and 5).
 */
public final class ProcessFailover {
    /** Cluster size: 5 unless a fourth argument says otherwise (3–9). */
    private static int nodes = 5;

    private static final Duration CEILING = Duration.ofSeconds(30);
    /** The cluster counts as settled below this much CPU, all nodes together, in percent of one core. */
    private static final int QUIET_PERCENT = 6;

    private ProcessFailover() {}

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int idleSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        // Optional third argument: which faults, comma-separated (default all three), e.g. "SIGTERM".
        List<String> faults = args.length > 2 ? List.of(args[2].split(",")) : List.of("kill -9", "SIGSTOP", "SIGTERM");
        for (String f : faults) {
            if (!List.of("kill -9", "SIGSTOP", "SIGTERM").contains(f)) {
                throw new IllegalArgumentException(
                        "unknown fault '" + f + "'; allowed: kill -9, SIGSTOP, SIGTERM (comma-separated)");
            }
        }
        if (args.length > 3) {
            nodes = Integer.parseInt(args[3]);
            if (nodes < 3 || nodes > 9) {
                throw new IllegalArgumentException("nodes = " + nodes + " is out of range: allowed 3 to 9");
            }
        }
        PrintStream out = System.out;
        out.printf(
                Locale.ROOT,
                "Quorum elector, %d node processes on loopback, defaults; %d trials per fault; %s, %d cores, Java %s.%n%n",
                nodes,
                trials,
                LocalDate.now(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        out.println("| leader fault | trials | p50 ms | p90 ms | p99 ms | max ms |");
        out.println("|---|---:|---:|---:|---:|---:|");
        try (LocalCluster cluster = LocalCluster.start(nodes, "quorum", "")) {
            for (String fault : faults) {
                List<Long> nanos = new ArrayList<>();
                List<Long> leaderless = new ArrayList<>();
                for (int i = 0; i < trials; i++) {
                    Trial t = trial(cluster, fault);
                    nanos.add(t.fromSignalNanos());
                    t.leaderlessNanos().ifPresent(leaderless::add);
                }
                row(out, fault + ", signal to the new leader's election", nanos);
                if (!leaderless.isEmpty()) {
                    row(
                            out,
                            fault + ", without a leader (old leader's revocation to new leader's election)",
                            leaderless);
                }
            }
            awaitAgreed(cluster, nodes, 0);
            // Idle means settled: the last trial's restarted node has finished starting (see awaitQuiet).
            awaitQuiet(cluster);
            idle(cluster, idleSeconds, out);
        }
    }

    private static void row(PrintStream out, String what, List<Long> nanos) {
        Distribution d =
                Distribution.of(nanos.stream().mapToLong(Long::longValue).toArray());
        out.printf(
                Locale.ROOT,
                "| %s | %d | %.1f | %.1f | %.1f | %.1f |%n",
                what,
                d.count(),
                Distribution.millis(d.percentileNanos(50)),
                Distribution.millis(d.percentileNanos(90)),
                Distribution.millis(d.percentileNanos(99)),
                Distribution.millis(d.maxNanos()));
    }

    /**
     * One trial's figures.
     *
     * @param fromSignalNanos from the signal to the new leader's stamp on its election
     * @param leaderlessNanos from the old leader's revocation to the new leader's election, as the two nodes
     *     stamped their events; present only when the old leader reported its revocation (SIGTERM)
     */
    private record Trial(long fromSignalNanos, Optional<Long> leaderlessNanos) {}

    /** One failover: hit the leader, time until a survivor leads at a higher epoch, then restore the node. */
    private static Trial trial(LocalCluster cluster, String fault) throws Exception {
        awaitAgreed(cluster, nodes, 0);
        awaitQuiet(cluster);
        NodeStatus leader = awaitAgreed(cluster, nodes, 0);
        String id = leader.node();
        List<String> survivors = cluster.members().stream()
                .map(LocalCluster.Member::id)
                .filter(m -> !m.equals(id))
                .toList();
        long t0;
        LeaderWatch.Result result;
        LeaderWatch watch = new LeaderWatch(cluster, id, survivors, leader.epoch(), fault.equals("SIGTERM"));
        // Looked up before the stamp: finding the process (it reads /proc) is the benchmark's work, not the node's.
        ProcessHandle process = ProcessHandle.of(cluster.pid(id).orElseThrow()).orElseThrow();
        watch.signalling();
        t0 = System.nanoTime();
        switch (fault) {
            case "kill -9" -> cluster.kill(id);
            case "SIGSTOP" -> cluster.pause(id);
            case "SIGTERM" -> process.destroy(); // no wait for the exit: the handover runs as the process shuts down
            default -> throw new IllegalArgumentException(fault);
        }
        result = watch.await(CEILING);
        // Progress, with the start on System.nanoTime()'s clock (CLOCK_MONOTONIC, shared with the nodes and perf)
        // so that a trial can be found in the nodes' traces or a system-wide profile.
        System.err.printf(
                Locale.ROOT,
                "%s trial: %.2f ms to %s (from %d ns, monotonic)%s; the others lost their leader at %s ms%n",
                fault,
                result.fromSignalNanos() / 1e6,
                result.leader(),
                t0,
                result.leaderlessNanos()
                        .map(n -> String.format(Locale.ROOT, "; without a leader %.2f ms", n / 1e6))
                        .orElse(""),
                result.departureSeenNanos().stream()
                        .map(n -> String.format(Locale.ROOT, "%.2f", n / 1e6))
                        .toList());
        // Restore the node and let the cluster settle before the next trial.
        switch (fault) {
            case "SIGSTOP" -> cluster.resume(id);
            case "SIGTERM" -> {
                waitExit(cluster, id);
                cluster.startNode(id);
            }
            default -> cluster.startNode(id);
        }
        awaitAgreed(cluster, nodes, 0);
        return new Trial(result.fromSignalNanos(), result.leaderlessNanos());
    }

    private static void waitExit(LocalCluster cluster, String id) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING.toNanos();
        while (cluster.isRunning(id) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    /** Waits until the nodes together use less than {@link #QUIET_PERCENT} of a core over half a second. */
    private static void awaitQuiet(LocalCluster cluster) throws Exception {
        long window = 500;
        double limitTicks = QUIET_PERCENT / 100.0 * ProcStats.TICKS_PER_SECOND * window / 1000.0;
        long deadline = System.nanoTime() + CEILING.toNanos();
        long before = clusterTicks(cluster);
        while (System.nanoTime() < deadline) {
            Thread.sleep(window);
            long now = clusterTicks(cluster);
            if (now - before < limitTicks) {
                return;
            }
            before = now;
        }
        throw new IllegalStateException("the cluster did not settle within " + CEILING);
    }

    private static long clusterTicks(LocalCluster cluster) throws Exception {
        // This process too: its JIT compiles what it ran between trials, on the same cores.
        long ticks = ProcStats.cpuTicks(ProcessHandle.current().pid());
        for (LocalCluster.Member m : cluster.members()) {
            ticks += ProcStats.cpuTicks(cluster.pid(m.id()).orElseThrow());
        }
        return ticks;
    }

    private static NodeStatus awaitAgreed(LocalCluster cluster, int expected, long aboveEpoch)
            throws InterruptedException {
        long deadline = System.nanoTime() + CEILING.toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, NodeStatus> statuses = cluster.liveStatuses(Duration.ofMillis(300));
            Optional<NodeStatus> agreed = LocalCluster.agreedLeader(statuses);
            if (statuses.size() == expected
                    && agreed.isPresent()
                    && agreed.get().epoch() > aboveEpoch) {
                return agreed.get();
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("the cluster did not agree on a leader within " + CEILING);
    }

    /** CPU time and resident memory of each node over an idle period, from /proc. */
    private static void idle(LocalCluster cluster, int seconds, PrintStream out) throws Exception {
        ClusterUsage before = ClusterUsage.now(cluster);
        NodeStatus leaderBefore = awaitAgreed(cluster, nodes, 0);
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        double wall = (System.nanoTime() - t0) / 1e9;
        NodeStatus leaderAfter = awaitAgreed(cluster, nodes, 0);
        out.printf(
                Locale.ROOT,
                "%nIdle for %.0f s (leader %s at epoch %d before, %s at epoch %d after):%n%n",
                wall,
                leaderBefore.node(),
                leaderBefore.epoch(),
                leaderAfter.node(),
                leaderAfter.epoch());
        before.printSince(cluster, wall, "CPU % of one core (scheduler)", out);
    }
}
