package io.bellwether.server.run;

import io.bellwether.server.config.Durations;
import io.bellwether.server.config.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The grace and the election's revocation lead for one {@code bellwether run}, checked against the configured
 * algorithm's timing (see {@link LeaderTiming}) before anything starts.
 *
 * @param grace the time between SIGTERM and SIGKILL
 * @param revocationLead what the election is built with: {@code grace +} {@link LeaderTiming#KILL_MARGIN}
 * @param graceNote how the grace was chosen, for the start-up line (empty when given on the command line)
 * @param reaperRefresh how often the runner re-reads the leadership's validity for the reaper's deadline: a quarter
 *     of the algorithm's renewal period (at least 1 ms), or {@link #DEFAULT_REAPER_REFRESH} when the algorithm does
 *     not tell its timing
 */
public record RunPlan(Duration grace, Duration revocationLead, String graceNote, Duration reaperRefresh) {
    /** The refresh period for an algorithm whose timing the runner does not know. */
    static final Duration DEFAULT_REAPER_REFRESH = Duration.ofMillis(25);

    private static final Duration MIN_REAPER_REFRESH = Duration.ofMillis(1);

    /**
     * Checks {@code options} against {@code node}'s algorithm and this machine.
     *
     * @throws IllegalArgumentException naming {@code --grace}, the algorithm's keys and the allowed range when the
     *     grace does not fit the algorithm's timing
     * @throws IllegalStateException when this machine lacks what the runner needs ({@code /usr/bin/setsid},
     *     {@code /bin/sh}, {@code /proc}, a {@code sleep} that takes fractions of a second)
     */
    public static RunPlan of(NodeConfig node, RunOptions options) {
        Optional<LeaderTiming> timing = LeaderTiming.of(node);
        Duration grace = options.graceFor(timing);
        for (String needed : new String[] {GroupProcess.SETSID, GroupProcess.SH, "/proc/self/stat"}) {
            if (!Files.exists(Path.of(needed))) {
                throw new IllegalStateException("cannot run commands here: " + needed + " is missing (bellwether run"
                        + " needs Linux with util-linux's setsid and a POSIX /bin/sh)");
            }
        }
        if (!fractionalSleepWorks()) {
            // The reaper's deadline sleeps for milliseconds; a sleep that refused "0.001" would end every command at
            // once (the reaper takes a failed sleep as a deadline reached).
            throw new IllegalStateException("cannot run commands here: 'sleep 0.001' fails (the reaper's deadline"
                    + " needs a sleep that takes fractions of a second, as GNU coreutils' does)");
        }
        String note;
        if (options.grace().isPresent()) {
            note = "";
        } else if (timing.isEmpty()) {
            note = " (algorithm " + node.algorithm() + " does not tell its timing: give --grace)";
        } else {
            note = " (the default: the most " + node.algorithm() + "'s timing allows, at most "
                    + Durations.format(RunOptions.DEFAULT_GRACE_CAP) + ")";
        }
        Duration refresh = timing.map(t -> t.renewal().dividedBy(4)).orElse(DEFAULT_REAPER_REFRESH);
        if (refresh.compareTo(MIN_REAPER_REFRESH) < 0) {
            refresh = MIN_REAPER_REFRESH;
        }
        return new RunPlan(grace, grace.plus(LeaderTiming.KILL_MARGIN), note, refresh);
    }

    /** Whether {@code sleep 0.001}, found on the PATH as the reaper finds it, succeeds. */
    private static boolean fractionalSleepWorks() {
        try {
            Process sleep = new ProcessBuilder("sleep", "0.001")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return sleep.waitFor(10, TimeUnit.SECONDS) && sleep.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
