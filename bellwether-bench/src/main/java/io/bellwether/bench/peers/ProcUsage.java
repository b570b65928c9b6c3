package io.bellwether.bench.peers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU time and resident memory of processes, from Linux's /proc. The CPU time is {@code utime + stime} of {@code
 * /proc/PID/stat}, which covers every thread the process has had and, on current kernels, sums to the scheduler's
 * exact run time.
 */
final class ProcUsage {
    /** Clock ticks per second of /proc/PID/stat's time fields (USER_HZ). */
    static final double TICKS_PER_SECOND = 100.0;

    private ProcUsage() {}

    /** User plus system CPU time of the processes together, in ticks; a process that has ended counts 0. */
    static long cpuTicks(List<Long> pids) {
        long ticks = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (java.io.IOException | RuntimeException gone) {
                // ended meanwhile
            }
        }
        return ticks;
    }

    /** Resident set size in KiB, or -1 if /proc does not say. */
    static long residentKiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (java.io.IOException | RuntimeException gone) {
            // ended meanwhile
        }
        return -1;
    }
}
