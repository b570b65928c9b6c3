package io.bellwether.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** CPU time and resident memory of a process, read from Linux's /proc. */
public final class ProcStats {
    /** Clock ticks per second of /proc/PID/stat's time fields (USER_HZ, 100 on Linux). */
    public static final double TICKS_PER_SECOND = 100.0;

    private ProcStats() {}

    /** User plus system CPU time, in ticks. */
    public static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /**
     * Time on a CPU of each thread the process has now, in nanoseconds, by thread id: the scheduler's exact
     * account ({@code /proc/PID/task/TID/schedstat}), where {@link #cpuTicks} samples at each clock tick and can be
     * far off for a process that runs in short bursts (an idle node wakes for well under a tick, tens of times a
     * second). Compare two readings with {@link #cpuNanosBetween}.
     */
    public static Map<Long, Long> threadCpuNanos(long pid) throws IOException {
        Map<Long, Long> threads = new HashMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    threads.put(
                            Long.parseLong(task.getFileName().toString()),
                            Long.parseLong(
                                    Files.readString(task.resolve("schedstat")).split(" ")[0]));
                } catch (IOException e) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return threads;
    }

    /**
     * CPU time between two readings of {@link #threadCpuNanos}: each thread's growth, a thread started meanwhile
     * with all its time. A thread that ended meanwhile is missing from the second reading, and its time since the
     * first is not counted (a sum over the threads of each reading would even go down).
     */
    public static long cpuNanosBetween(Map<Long, Long> before, Map<Long, Long> after) {
        long nanos = 0;
        for (Map.Entry<Long, Long> thread : after.entrySet()) {
            nanos += thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
        }
        return nanos;
    }

    /** Resident set size in KiB, or -1 if /proc does not say. */
    public static long residentKiB(long pid) throws IOException {
        return statusField(pid, "VmRSS:");
    }

    /** The number of threads the process has, or -1 if /proc does not say. */
    public static long threads(long pid) throws IOException {
        return statusField(pid, "Threads:");
    }

    /** The number on the line of {@code /proc/PID/status} that starts with {@code field}, or -1. */
    private static long statusField(long pid, String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
