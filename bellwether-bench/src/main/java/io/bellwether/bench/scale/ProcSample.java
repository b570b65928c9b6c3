package io.bellwether.bench.scale;

import io.bellwether.bench.ProcStats;
import java.io.IOException;
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
        Map<Long, Long> cpu = ProcStats.threadCpuNanos(pid);
        return new ProcSample((int) ProcStats.threads(pid), ProcStats.residentKiB(pid), Map.copyOf(cpu));
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
        return ProcStats.cpuNanosBetween(earlier.threadCpuNanos, threadCpuNanos);
    }
}
