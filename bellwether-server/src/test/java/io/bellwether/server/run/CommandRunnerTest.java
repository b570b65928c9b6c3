package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.bellwether.Leadership;
import io.bellwether.RevocationReason;
import io.bellwether.testkit.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner on real quorum nodes on loopback, in this JVM, with real commands: what starts them, what their
 * environment holds, what stops them and when, and what {@code --on-exit} does.
 */
@Tag("needs-tcp")
@Timeout(300)
class CommandRunnerTest {
    private static final Duration CEILING = Duration.ofSeconds(60);
    private static final long GRACE_MS = 300;

    @TempDir
    Path dir;

    private RunCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** {@code script}, run in the test's directory (a command runs in the runner's working directory). */
    private String inDir(String script) {
        return "cd '" + dir + "' || exit 1; " + script;
    }

    /** A shell command that records its pid and its child's, then waits for the child (a sleep). */
    private String parentAndChild(String trap) {
        return trap + "sleep 1000 & echo $! > child-$BELLWETHER_NODE; echo $$ > pid-$BELLWETHER_NODE; wait";
    }

    private long pidIn(String file) {
        Path path = dir.resolve(file);
        return await().atMost(CEILING)
                .ignoreExceptions()
                .until(() -> Long.parseLong(Files.readString(path).trim()), pid -> pid > 0);
    }

    /** Whether {@code pid} is a live process, from the process table (a zombie runs nothing: not alive). */
    static boolean alive(long pid) {
        return Processes.running(pid);
    }

    private String awaitLeader() {
        return await().atMost(CEILING)
                .until(() -> cluster.leader(), java.util.Optional::isPresent)
                .orElseThrow();
    }

    @Test
    void aLeaderRunsTheCommandWithItsEpochNodeLeaderAndGroupInTheEnvironmentAndItsOutputPrefixed() throws Exception {
        cluster = new RunCluster(dir, 1);
        cluster.start(
                "n1",
                RunCluster.options(
                        null,
                        null,
                        "sh",
                        "-c",
                        inDir("echo \"$BELLWETHER_EPOCH $BELLWETHER_NODE $BELLWETHER_LEADER $BELLWETHER_GROUP\" > env;"
                                + " echo hello; exec sleep 1000")));
        awaitLeader();
        long epoch =
                cluster.daemons.get("n1").election().leadership().orElseThrow().epoch();
        Path env = dir.resolve("env");
        await().atMost(CEILING).ignoreExceptions().until(() -> Files.readString(env)
                .endsWith("\n"));
        assertThat(Files.readString(env)).isEqualTo(epoch + " n1 n1 default\n");
        await().atMost(CEILING).until(() -> cluster.output().contains("[epoch " + epoch + "] hello\n"));
        JsonNode status = cluster.runners.get("n1").status();
        assertThat(status.path("running").asBoolean()).isTrue();
        assertThat(status.path("epoch").asLong()).isEqualTo(epoch);
        assertThat(status.path("restarts").asLong()).isZero();
    }

    @Test
    void aLeaderThatLosesItsQuorumHasItsCommandAndItsChildGoneBeforeTheValidityEnds() throws Exception {
        assertStoppedBeforeValidityEnds("", false, false);
    }

    @Test
    void aCommandThatIgnoresSigtermIsKilledAfterTheGraceStillBeforeTheValidityEnds() throws Exception {
        assertStoppedBeforeValidityEnds("trap '' TERM; ", true, false);
    }

    @Test
    void aLeaderWhosePeersFallSilentIsRevokedEarlyEnoughToGiveTheCommandItsGrace() throws Exception {
        // No connection closes: nothing tells the elector; the runtime's watchdog revokes the leadership the
        // revocation lead (grace + kill margin) before its validity ends.
        assertStoppedBeforeValidityEnds("trap '' TERM; ", true, true);
    }

    private void assertStoppedBeforeValidityEnds(String trap, boolean needsKill, boolean silence) throws Exception {
        cluster = new RunCluster(dir, 3, silence);
        for (String id : List.of("n1", "n2", "n3")) {
            cluster.start(
                    id,
                    RunCluster.withHooks(
                            Duration.ofMillis(GRACE_MS),
                            null,
                            null,
                            inDir(
                                    "echo \"$BELLWETHER_EVENT $BELLWETHER_EPOCH $BELLWETHER_REASON\" > revoked-$BELLWETHER_NODE"),
                            "sh",
                            "-c",
                            inDir(parentAndChild(trap))));
        }
        String leader = awaitLeader();
        Leadership leadership =
                cluster.daemons.get(leader).election().leadership().orElseThrow();
        long pid = pidIn("pid-" + leader);
        long child = pidIn("child-" + leader);
        assertThat(alive(pid)).isTrue();
        assertThat(alive(child)).isTrue();
        CompletableFuture<RevocationReason> revoked = leadership.revoked().toCompletableFuture();

        if (silence) {
            cluster.silence(leader);
        } else {
            // The followers leave: the leader can no longer renew its leadership.
            for (String id : List.of("n1", "n2", "n3")) {
                if (!id.equals(leader)) {
                    cluster.runners.remove(id).close();
                    cluster.daemons.remove(id).close();
                }
            }
        }
        RevocationReason reason = revoked.get(CEILING.toSeconds(), TimeUnit.SECONDS);
        if (silence) {
            assertThat(reason).isEqualTo(RevocationReason.VALIDITY_EXPIRED);
        }
        // Watched from here, on the clock the leadership's validity is measured on (it is no longer extended: no
        // quorum): no reading may find either process alive once the validity has ended. A reading's time is taken
        // before it, so a reading that finds a process alive proves it alive at that time or later. (The first
        // reading that finds both gone is no proof of lateness: on a busy machine this thread may be held up between
        // two readings.)
        long deadline = System.nanoTime() + CEILING.toNanos();
        while (true) {
            long now = System.nanoTime();
            if (!alive(pid) && !alive(child)) {
                break;
            }
            assertThat(now - leadership.validUntilNanos())
                    .as("seen alive after the leadership's validity ended")
                    .isNegative();
            assertThat(now - deadline)
                    .as("the command is still alive after %s", CEILING)
                    .isNegative();
            Thread.onSpinWait();
        }
        CommandRunner runner = cluster.runners.get(leader);
        // The runner reports the stop once it has seen the group gone itself.
        await().atMost(CEILING).until(() -> runner.status().path("lastStop").isObject());
        JsonNode status = runner.status();
        assertThat(status.path("running").asBoolean()).isFalse();
        assertThat(status.path("lastStop").path("killed").asBoolean()).isEqualTo(needsKill);
        assertThat(status.path("lastStop").path("goneBeforeValidUntilMs").asLong())
                .isNotNegative();
        // The on-revoked hook ran once the command had stopped, with the revocation in its environment.
        Path hook = dir.resolve("revoked-" + leader);
        await().atMost(CEILING).ignoreExceptions().until(() -> Files.readString(hook)
                .endsWith("\n"));
        assertThat(Files.readString(hook)).isEqualTo("revoked " + leadership.epoch() + " " + reason + "\n");
        if (needsKill) {
            // The runner sent SIGKILL itself ("killed"), ahead of the reaper's deadline, rather than leaving it to the
            // reaper's timer. The command had its grace between SIGTERM and SIGKILL, less the runner's reaction to the
            // revocation and, when the watchdog revokes at the last moment, the runner's lead on the reaper: the
            // revocation came early enough. With the election's default revocation lead it would have had almost
            // nothing.
            assertThat(status.path("lastStop").path("sigkillAfterMs").asLong())
                    .isGreaterThan(
                            GRACE_MS - LeaderTiming.RUNNER_LEAD.toMillis() - LeaderTiming.KILL_MARGIN.toMillis());
        }
    }

    @Test
    void theOnElectedHookRunsWithTheLeadershipsEnvironmentAndIsKilledAfterItsTime() throws Exception {
        cluster = new RunCluster(dir, 1);
        cluster.start(
                "n1",
                RunCluster.withHooks(
                        Duration.ofMillis(100),
                        null,
                        inDir("echo \"$BELLWETHER_EVENT $BELLWETHER_EPOCH $BELLWETHER_LEADER\" > elected;"
                                + " sleep 1000 & echo $! > hook-child; wait"),
                        null,
                        "sleep",
                        "1000"));
        awaitLeader();
        long epoch =
                cluster.daemons.get("n1").election().leadership().orElseThrow().epoch();
        Path elected = dir.resolve("elected");
        await().atMost(CEILING).ignoreExceptions().until(() -> Files.readString(elected)
                .endsWith("\n"));
        assertThat(Files.readString(elected)).isEqualTo("elected " + epoch + " n1\n");
        long child = pidIn("hook-child");
        // A hook that does not end is killed with its group after the grace (at least MIN_HOOK_TIME).
        await().atMost(CEILING).until(() -> !alive(child));
        assertThat(cluster.runners.get("n1").status().path("running").asBoolean())
                .isTrue();
    }

    @Test
    void aFailingCommandHandsLeadershipToAnotherMemberWhoseCommandRunsWhileTheFirstStaysAMember() throws Exception {
        cluster = new RunCluster(dir, 3);
        // The command fails on the first node to run it, every time it runs there (ln -s claims the name atomically);
        // elsewhere it runs. Failing on that node every time keeps the test whole when a leadership that started the
        // command is lost at once on a busy machine: its exit then ends no leadership, and the next run fails again.
        String script = inDir("ln -s $BELLWETHER_NODE failer 2>/dev/null;"
                + " if [ \"$(readlink failer)\" = \"$BELLWETHER_NODE\" ]; then exit 3; fi;"
                + " echo $BELLWETHER_EPOCH > running-$BELLWETHER_NODE; exec sleep 1000");
        // A short grace: a leadership is revoked only when no renewal came for most of its validity, not for 2
        // heartbeats.
        for (String id : List.of("n1", "n2", "n3")) {
            cluster.start(id, RunCluster.options(Duration.ofMillis(GRACE_MS), null, "sh", "-c", script));
        }
        // The leader whose command failed resigns (it may do so before the test has seen it lead).
        String first = await().atMost(CEILING)
                .until(
                        () -> cluster.resigned.entrySet().stream()
                                .filter(e -> e.getValue().isDone())
                                .map(java.util.Map.Entry::getKey)
                                .findFirst(),
                        java.util.Optional::isPresent)
                .orElseThrow();
        assertThat(cluster.resigned.get(first).get()).isEqualTo(StepDown.HOLD_OFF);
        long firstEpoch = cluster.runners
                .get(first)
                .status()
                .path("lastExit")
                .path("epoch")
                .asLong();
        String second = await().atMost(CEILING)
                .until(() -> cluster.leader().filter(id -> !id.equals(first)), java.util.Optional::isPresent)
                .orElseThrow();
        long secondEpoch = cluster.daemons
                .get(second)
                .election()
                .leadership()
                .orElseThrow()
                .epoch();
        assertThat(secondEpoch).isGreaterThan(firstEpoch);
        Path running = dir.resolve("running-" + second);
        await().atMost(CEILING).ignoreExceptions().until(() -> Files.readString(running)
                .endsWith("\n"));
        assertThat(Files.readString(running)).isEqualTo(secondEpoch + "\n");
        // The first stays in the group, following the second.
        await().atMost(CEILING)
                .until(
                        () -> cluster.daemons.get(first).election().leader().map(v -> v.leader()
                                .value()),
                        l -> l.equals(java.util.Optional.of(second)));
        assertThat(cluster.runners
                        .get(first)
                        .status()
                        .path("lastExit")
                        .path("status")
                        .asInt())
                .isEqualTo(3);
    }

    @Test
    void onExitRestartStartsTheCommandAgainInTheSameEpochAndCountsTheRestarts() throws Exception {
        cluster = new RunCluster(dir, 1);
        cluster.start(
                "n1",
                RunCluster.options(null, OnExit.RESTART, "sh", "-c", inDir("echo $BELLWETHER_EPOCH >> runs; exit 3")));
        awaitLeader();
        Path runs = dir.resolve("runs");
        await().atMost(CEILING)
                .ignoreExceptions()
                .until(() -> Files.readAllLines(runs).size() >= 3);
        List<String> epochs = Files.readAllLines(runs);
        // Restarted within its epoch: some epoch ran the command more than once. (On a starved machine the lone
        // member's own leadership may lapse and come back at the next epoch meanwhile, which starts it afresh.)
        java.util.Map<String, Long> perEpoch = epochs.stream()
                .collect(java.util.stream.Collectors.groupingBy(e -> e, java.util.stream.Collectors.counting()));
        assertThat(perEpoch.values()).as("runs per epoch: %s", perEpoch).anyMatch(n -> n >= 2);
        JsonNode status = cluster.runners.get("n1").status();
        assertThat(status.path("restarts").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(status.path("lastExit").path("status").asInt()).isEqualTo(3);
        assertThat(cluster.resigned.get("n1")).isNotDone();
    }

    @Test
    void aCommandThatSucceedsLeavesTheLeaderInPlaceWithNoCommandByDefault() throws Exception {
        cluster = new RunCluster(dir, 1);
        cluster.start("n1", RunCluster.options(null, null, "sh", "-c", inDir("echo done > ran")));
        awaitLeader();
        CommandRunner runner = cluster.runners.get("n1");
        await().atMost(CEILING)
                .until(() -> runner.status().path("lastExit").path("status").isInt());
        assertThat(runner.status().path("lastExit").path("status").asInt()).isZero();
        assertThat(runner.status().path("running").asBoolean()).isFalse();
        assertThat(runner.status().path("restarts").asLong()).isZero();
        assertThat(cluster.daemons.get("n1").election().isLeader()).isTrue();
        assertThat(cluster.resigned.get("n1")).isNotDone();
    }

    @Test
    void onExitStayKeepsTheLeaderInPlaceEvenAfterAFailure() throws Exception {
        cluster = new RunCluster(dir, 1);
        cluster.start("n1", RunCluster.options(null, OnExit.STAY, "sh", "-c", "exit 5"));
        awaitLeader();
        CommandRunner runner = cluster.runners.get("n1");
        await().atMost(CEILING)
                .until(() -> runner.status().path("lastExit").path("status").isInt());
        assertThat(runner.status().path("lastExit").path("status").asInt()).isEqualTo(5);
        assertThat(cluster.daemons.get("n1").election().isLeader()).isTrue();
        assertThat(cluster.resigned.get("n1")).isNotDone();
    }

    @Test
    void aCommandThatFailsMakesTheLeaderResignByDefaultOnceItsGroupIsGone() throws Exception {
        cluster = new RunCluster(dir, 1);
        // The command fails, leaving a child behind in its group: it must be gone before the resignation.
        cluster.start(
                "n1",
                RunCluster.options(
                        null, null, "sh", "-c", inDir("sleep 1000 & echo $! > child-$BELLWETHER_NODE; exit 7")));
        // No wait for a leader: each leadership lasts only until the command has failed and its group is gone (a few
        // ms), then the node holds off, so a poll for a leader mostly misses it. The command's file shows it ran.
        long child = pidIn("child-n1");
        Duration holdOff = cluster.resigned.get("n1").get(CEILING.toSeconds(), TimeUnit.SECONDS);
        assertThat(alive(child)).isFalse();
        assertThat(holdOff).isEqualTo(StepDown.HOLD_OFF);
        assertThat(cluster.runners
                        .get("n1")
                        .status()
                        .path("lastExit")
                        .path("status")
                        .asInt())
                .isEqualTo(7);
    }
}
