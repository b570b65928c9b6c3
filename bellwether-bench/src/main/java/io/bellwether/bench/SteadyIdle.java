package io.bellwether.bench;

import io.bellwether.server.demo.LocalCluster;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Locale;

/**
 * The CPU and memory of an idle quorum cluster in steady state: five node processes on loopback with the default
 * configuration are started, left alone for a settling period (class loading and the C1 compiler's work after a
 * start take about a minute on 2 cores), then measured over a second period, with no trial and no request in
 * either. {@link ProcessFailover} measures its idle period right after its trials, when the node it restarted last
 * is still settling; this is the figure for a cluster in service.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.SteadyIdle [SETTLE_SECONDS]
 * [SECONDS] [NODES] [EXTRA_YAML]} (defaults 120, 90, 5 and none). {@code EXTRA_YAML} is added to every node's
 * configuration, e.g. {@code "quorum: {standby: false}"} to compare the idle cost of a setting.
 */
public final class SteadyIdle {
    private SteadyIdle() {}

    public static void main(String[] args) throws Exception {
        int settle = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 90;
        int nodes = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String extra = args.length > 3 ? args[3] + "\n" : "";
        if (settle < 0 || seconds < 1 || nodes < 1 || nodes > 9) {
            throw new IllegalArgumentException("allowed: SETTLE_SECONDS >= 0, SECONDS >= 1, NODES 1 to 9; got " + settle
                    + ", " + seconds + ", " + nodes);
        }
        PrintStream out = System.out;
        try (LocalCluster cluster = LocalCluster.start(nodes, "quorum", extra)) {
            Thread.sleep(settle * 1000L);
            String before = leader(cluster);
            ClusterUsage usage = ClusterUsage.now(cluster);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double wall = (System.nanoTime() - t0) / 1e9;
            out.printf(
                    Locale.ROOT,
                    "Quorum elector, %d idle node processes on loopback, %s; %s, %d cores, Java %s.%n"
                            + "Settled for %d s, then measured for %.0f s (leader %s before, %s after):%n%n",
                    nodes,
                    extra.isEmpty() ? "defaults" : "defaults and " + extra.strip(),
                    LocalDate.now(),
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"),
                    settle,
                    wall,
                    before,
                    leader(cluster));
            usage.printSince(cluster, wall, "CPU % of one core (scheduler)", out);
        }
    }

    private static String leader(LocalCluster cluster) {
        return LocalCluster.agreedLeader(cluster.liveStatuses(Duration.ofMillis(500)))
                .map(s -> s.node() + " at epoch " + s.epoch())
                .orElse("none agreed");
    }
}
