package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reaper script alone, fed by the test as the runner would feed it: a process group of two {@code sleep}s, the
 * reaper's lines written by hand, the process table read to see what lives.
 */
@Timeout(60)
class ReaperScriptTest {
    private static final Duration CEILING = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private Process group;
    private Process reaper;
    private OutputStream toReaper;

    @AfterEach
    void cleanUp() throws InterruptedException {
        if (reaper != null) {
            // End of file, not SIGKILL: the reaper then cancels its timer, which would otherwise outlive it and
            // signal the group's id whenever its deadline ran out.
            try {
                toReaper.close();
            } catch (IOException e) {
                // already closed
            }
            if (!reaper.waitFor(10, TimeUnit.SECONDS)) {
                reaper.destroyForcibly();
            }
        }
        if (group != null) {
            for (long pid : ProcessGroups.members(group.pid())) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            group.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A group of two processes (a shell's child and the shell become {@code sleep}), and a reaper told its id. */
    private long startGroupAndReaper() throws IOException {
        group = new ProcessBuilder(GroupProcess.SETSID, GroupProcess.SH, "-c", "sleep 1000 & exec sleep 1000")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        long pgid = group.pid();
        assertThat(ProcessGroups.awaitOwnGroup(pgid, System.nanoTime() + CEILING.toNanos()))
                .isTrue();
        await().atMost(CEILING).until(() -> ProcessGroups.members(pgid).size() == 2);
        reaper = new ProcessBuilder(GroupProcess.SH, "-c", GroupProcess.reaperScript(), "bellwether-reaper")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolve("reaper.err").toFile())
                .start();
        toReaper = reaper.getOutputStream();
        return pgid;
    }

    private void tell(String line) throws IOException {
        toReaper.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        toReaper.flush();
    }

    private List<String> reaperErrors() throws IOException {
        return Files.readAllLines(dir.resolve("reaper.err"));
    }

    @Test
    void theGroupLivesWhileFreshDeadlinesComeAndDiesOnItsOwnOnceTheyStop() throws Exception {
        long pgid = startGroupAndReaper();
        tell("group " + pgid);
        // Each line replaces the previous timer: over 2 s of 1 s deadlines renewed every 100 ms, none may fire.
        long started = System.nanoTime();
        long lastNanos;
        do {
            lastNanos = System.nanoTime();
            tell("expires-in 1000");
            TimeUnit.MILLISECONDS.sleep(100); // the runner's cadence, not a wait for an outcome
            assertThat(ProcessGroups.alive(pgid))
                    .as("group alive %d ms into the renewals", (System.nanoTime() - started) / 1_000_000)
                    .isTrue();
        } while (System.nanoTime() - started < TimeUnit.SECONDS.toNanos(2));

        // The "runner" falls silent: the last deadline ends the whole group, not before it passes.
        long last = lastNanos;
        long goneNanos = await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(2))
                .until(() -> ProcessGroups.alive(pgid) ? -1L : System.nanoTime(), t -> t > 0);
        assertThat(goneNanos - last).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1000));
        assertThat(reaper.isAlive())
                .as("the reaper waits for the runner's word")
                .isTrue();
        assertThat(reaperErrors())
                .anyMatch(l -> l.contains("no word from the runner within 1000 ms: killing process group " + pgid));

        tell("done");
        assertThat(reaper.waitFor(CEILING.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(reaper.exitValue()).isZero();
    }

    @Test
    void theRunnersDeadlineLineIsInWholeMillisecondsRoundedDownNeverNegativeAndWithinWhatTheReaperAccepts() {
        long now = 1_000_000_000L;
        assertThat(GroupProcess.expiresIn(now + 1_999_999, now)).isEqualTo("expires-in 1");
        assertThat(GroupProcess.expiresIn(now + 325_000_000, now)).isEqualTo("expires-in 325");
        assertThat(GroupProcess.expiresIn(now, now)).isEqualTo("expires-in 0");
        assertThat(GroupProcess.expiresIn(now - 5_000_000, now)).isEqualTo("expires-in 0");
        assertThat(GroupProcess.expiresIn(Long.MAX_VALUE - 1, now)).isEqualTo("expires-in 999999999");
    }

    @Test
    void doneCancelsTheTimer() throws Exception {
        long pgid = startGroupAndReaper();
        tell("group " + pgid);
        tell("expires-in 300");
        tell("done");
        assertThat(reaper.waitFor(CEILING.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(reaper.exitValue()).isZero();
        // The absence of an event: the group must outlive the cancelled deadline by well over its 300 ms.
        await().during(Duration.ofMillis(1000)).atMost(Duration.ofMillis(1500)).until(() -> ProcessGroups.alive(pgid));
    }

    @Test
    void endOfFileStillKillsTheGroupAtOnceWhateverTheDeadline() throws Exception {
        long pgid = startGroupAndReaper();
        tell("group " + pgid);
        tell("expires-in 999999999");
        toReaper.close(); // as the kernel does when the runner's process ends
        await().atMost(CEILING).pollInterval(Duration.ofMillis(2)).until(() -> !ProcessGroups.alive(pgid));
        assertThat(reaper.waitFor(CEILING.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(reaper.exitValue()).isZero();
    }

    @Test
    void theSignalsOfATerminalNeitherEndNorStopTheReaper() throws Exception {
        long pgid = startGroupAndReaper();
        tell("group " + pgid);
        tell("expires-in 999999999");
        // Ctrl-C and Ctrl-Z at a terminal reach the runner's whole foreground group, the reaper with it.
        for (String signal : List.of("-INT", "-TERM", "-HUP", "-QUIT", "-TSTP", "-TTIN", "-TTOU")) {
            Process kill = new ProcessBuilder("/bin/kill", signal, Long.toString(reaper.pid()))
                    .inheritIO()
                    .start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(kill.exitValue()).isZero();
        }
        // Still awake: a deadline already reached ends the group.
        tell("expires-in 0");
        await().atMost(CEILING).pollInterval(Duration.ofMillis(2)).until(() -> !ProcessGroups.alive(pgid));
        assertThat(reaper.isAlive()).isTrue();
    }

    @Test
    void malformedLinesAreReportedAndChangeNothing() throws Exception {
        long pgid = startGroupAndReaper();
        List<String> malformed = List.of(
                "expires-in 50", // before the group is known
                "group 0", // would signal the reaper's own group
                "group 1", // kill -1 signals every process
                "group 12x",
                "group -" + pgid);
        for (String line : malformed) {
            tell(line);
        }
        tell("group " + pgid);
        List<String> malformedAfter = List.of(
                "group " + (pgid + 1), // a second group
                "expires-in",
                "expires-in ",
                "expires-in -5",
                "expires-in 010", // octal to sh arithmetic
                "expires-in 1.5",
                "expires-in 1000000000", // 10 digits
                "expires-in 20 ms",
                "expires-in  20",
                "",
                "bogus",
                "x".repeat(10_000));
        for (String line : malformedAfter) {
            tell(line);
        }
        int expected = malformed.size() + malformedAfter.size();
        await().atMost(CEILING).until(() -> reaperErrors().size() >= expected);
        assertThat(reaperErrors())
                .hasSize(expected)
                .allMatch(l -> l.startsWith("bellwether-reaper: ignored a malformed line: "))
                .allMatch(l -> l.length() <= "bellwether-reaper: ignored a malformed line: ".length() + 100);
        // None of them armed a timer or signalled anything.
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(1))
                .until(() -> ProcessGroups.members(pgid).size() == 2 && reaper.isAlive());

        // And the reaper still obeys a well-formed line: a deadline already reached kills at once.
        tell("expires-in 0");
        await().atMost(CEILING).pollInterval(Duration.ofMillis(2)).until(() -> !ProcessGroups.alive(pgid));
    }
}
