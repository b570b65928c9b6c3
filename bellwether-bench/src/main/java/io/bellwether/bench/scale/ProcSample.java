package io.bellwether.bench.scale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A member process's threads, resident memory and CPU time, read from Linux's /proc.
 *
 * <p>CPU time is the scheduler's exact account per thread ({@code /proc/PID/task/TID/schedstat}), not the clock-tick
 * samples of {@code /proc/PID/stat}, which can be far off for threads that run in bursts shorter than a tick (an
 * idle member's heartbeats).
 *
 * @param threads the {@code Threads:} line of {@code /proc/PID/status}
 * @param residentKiB the {@code VmRSS:} line of {@code /proc/PID/status}, in KiB
 * @param threadCpuNanos CPU time of each thread alive at the reading, by thread id
 */
record ProcSample(int threads, long residentKiB, Map<Long, Long> threadCpuNanos) {
    /**
     * Reads process {@code pid}.
     *
     * @throws IOException if the process is gone or /proc cannot be read
     */
    static ProcSample of(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        int threads = -1;
        long rss = -1;
        for (String line : Files.readAllLines(proc.resolve("status"))) {
            if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.substring("Threads:".length()).trim());
            } else if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        Map<Long, Long> cpu = new HashMap<>();
        try (var tasks = Files.list(proc.resolve("task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String schedstat = Files.readString(task.resolve("schedstat"));
                    cpu.put(
                            Long.parseLong(task.getFileName().toString()),
                            Long.parseLong(schedstat.split(" ")[0]));
                } catch (IOException e) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return new ProcSample(threads, rss, Map.copyOf(cpu));
    }

    /** Resident memory in MiB. */
    double residentMiB() {
        return residentKiB / 1024.0;
    }

    /**
     * CPU time used between {@code earlier} and this reading: each thread's growth, a thread started meanwhile with
     * all its time. A thread that ended meanwhile is not counted from the earlier reading on.
     */
    long cpuNanosSince(ProcSample earlier) {
        long nanos = 0;
        for (Map.Entry<Long, Long> t : threadCpuNanos.entrySet()) {
            nanos += t.getValue() - earlier.threadCpuNanos.getOrDefault(t.getKey(), 0L);
        }
        return nanos;
    }
}
