package io.bellwether.bench;

import io.bellwether.server.demo.LocalCluster;
import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Every node's CPU counters at one moment ({@link ProcStats}: clock ticks and the scheduler's exact account), to
 * report each node's CPU use since then, in both, with its resident memory.
 */
final class ClusterUsage {
    private final Map<String, Long> ticks = new LinkedHashMap<>();
    private final Map<String, Map<Long, Long>> nanos = new LinkedHashMap<>();

    private ClusterUsage() {}

    /** The counters of every member of {@code cluster} now. */
    static ClusterUsage now(LocalCluster cluster) throws IOException {
        ClusterUsage usage = new ClusterUsage();
        for (LocalCluster.Member m : cluster.members()) {
            long pid = cluster.pid(m.id()).orElseThrow();
            usage.ticks.put(m.id(), ProcStats.cpuTicks(pid));
            usage.nanos.put(m.id(), ProcStats.threadCpuNanos(pid));
        }
        return usage;
    }

    /**
     * Prints a Markdown table, a row per node: its CPU use since this snapshot over {@code wallSeconds}, in percent
     * of one core (the scheduler's account, headed {@code cpuHeading}, then clock ticks), and its resident memory.
     */
    void printSince(LocalCluster cluster, double wallSeconds, String cpuHeading, PrintStream out) throws IOException {
        out.println("| node | " + cpuHeading + " | CPU % (clock ticks) | resident MiB |");
        out.println("|---|---:|---:|---:|");
        for (LocalCluster.Member m : cluster.members()) {
            long pid = cluster.pid(m.id()).orElseThrow();
            double exact = ProcStats.cpuNanosBetween(nanos.get(m.id()), ProcStats.threadCpuNanos(pid))
                    / 1e9
                    / wallSeconds
                    * 100;
            double tick =
                    (ProcStats.cpuTicks(pid) - ticks.get(m.id())) / ProcStats.TICKS_PER_SECOND / wallSeconds * 100;
            out.printf(
                    Locale.ROOT,
                    "| %s | %.2f | %.2f | %.1f |%n",
                    m.id(),
                    exact,
                    tick,
                    ProcStats.residentKiB(pid) / 1024.0);
        }
    }
}
