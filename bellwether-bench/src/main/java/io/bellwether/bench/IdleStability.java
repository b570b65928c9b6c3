package io.bellwether.bench;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Spurious elections under load: a 5-node quorum cluster of real processes sits idle for a while as other
 * processes keep every core busy; counts leader changes (there should be none), then reports each node's
 * CPU use and resident memory.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.IdleStability
 * [MINUTES] [BURNERS]} (defaults 10 minutes and one busy process per core).
 */
public final class IdleStability {
    private IdleStability() {}

    public static void main(String[] args) throws Exception {
        int minutes = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int burners = args.length > 1
                ? Integer.parseInt(args[1])
                : Runtime.getRuntime().availableProcessors();
        List<Process> load = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(5, "quorum", "")) {
            NodeStatus first = awaitAgreed(cluster);
            for (int i = 0; i < burners; i++) {
                load.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
            }
            ClusterUsage before = ClusterUsage.now(cluster);
            long start = System.nanoTime();
            long end = start + Duration.ofMinutes(minutes).toNanos();
            long highestEpoch = first.epoch();
            int changes = 0;
            List<String> log = new ArrayList<>();
            while (System.nanoTime() < end) {
                for (NodeStatus s : cluster.liveStatuses(Duration.ofSeconds(2)).values()) {
                    if (s.epoch() > highestEpoch) {
                        highestEpoch = s.epoch();
                        changes++;
                        log.add(String.format(
                                Locale.ROOT,
                                "%.1fs: %s at epoch %d (%s)",
                                (System.nanoTime() - start) / 1e9,
                                s.node(),
                                s.epoch(),
                                s.role()));
                    }
                }
                Thread.sleep(200);
            }
            double wall = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "%s: 5 quorum nodes idle for %.0f s with %d busy processes on %d cores: %d epoch changes "
                            + "(leader %s at epoch %d at the start)%n",
                    LocalDateTime.now().withNano(0),
                    wall,
                    burners,
                    Runtime.getRuntime().availableProcessors(),
                    changes,
                    first.node(),
                    first.epoch());
            log.forEach(l -> System.out.println("  " + l));
            before.printSince(cluster, wall, "CPU % of one core, under load (scheduler)", System.out);
        } finally {
            load.forEach(Process::destroyForcibly);
        }
    }

    private static NodeStatus awaitAgreed(LocalCluster cluster) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, NodeStatus> statuses = cluster.liveStatuses(Duration.ofMillis(500));
            Optional<NodeStatus> agreed = LocalCluster.agreedLeader(statuses);
            if (statuses.size() == 5 && agreed.isPresent()) {
                return agreed.get();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("no agreed leader within 5 min");
    }
}
