package io.bellwether.bench.peers;

import io.bellwether.bench.ProcStats;
import java.io.IOException;
import java.util.List;

/**
 * {@link ProcStats} for processes that may end while they are measured: a process that has ended counts 0 CPU and
 * -1 memory. The CPU time is {@code utime + stime} of {@code /proc/PID/stat}, which covers every thread the process
 * has had.
 */
final class ProcUsage {
    /** Clock ticks per second of /proc/PID/stat's time fields (USER_HZ). */
    static final double TICKS_PER_SECOND = ProcStats.TICKS_PER_SECOND;

    private ProcUsage() {}

    /** User plus system CPU time of the processes together, in ticks; a process that has ended counts 0. */
    static long cpuTicks(List<Long> pids) {
        long ticks = 0;
        for (long pid : pids) {
            try {
                ticks += ProcStats.cpuTicks(pid);
            } catch (IOException | RuntimeException gone) {
                // ended meanwhile
            }
        }
        return ticks;
    }

    /** Resident set size in KiB, or -1 if /proc does not say or the process has ended. */
    static long residentKiB(long pid) {
        try {
            return ProcStats.residentKiB(pid);
        } catch (IOException | RuntimeException gone) {
            return -1;
        }
    }
}
