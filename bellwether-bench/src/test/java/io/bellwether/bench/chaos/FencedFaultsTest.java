package io.bellwether.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Services;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Three node processes on loopback whose leader writes {@code (epoch, node, counter)} through a {@code FencingGuard}
 * into the real PostgreSQL (127.0.0.1:5432, database {@code test}, tables of its own), while a seeded schedule of
 * faults hits the current writer's node: {@code kill -9} (restarted once the next writer writes), SIGSTOP for longer
 * than the election takes then SIGCONT, and SIGTERM (a graceful stop; restarted likewise). After every fault the test
 * waits for a writer of a higher epoch to write. At the end, from the database ({@link FencedHistory}): no stale write
 * was accepted, no two epochs' runs overlapped in real time, and (command mode) no command of another epoch was alive
 * when a command started or made its first accepted write.
 *
 * <p>In command mode each node is {@code bellwether run -- java FencedWriter PREFIX}. There a SIGSTOP stops the whole
 * node, as a paused VM would: the runner, the processes it started (its reaper) and the command's process group. The
 * command is resumed first and makes its next attempt before the rest is resumed (and the runner stops it), so a
 * stale write reaches the database and the fence alone must refuse it; the test requires that refusal for every
 * pause. Whether a command of another epoch is alive is read from the process table by each command as it starts and
 * as its first write is accepted. In task mode each node is a {@link FencedTaskNode}, whose leader task writes the
 * same way after {@code checkValid()}; there the liveness check does not apply (the task lives in the node's JVM).
 *
 * <p>Three faults per test by default; {@code -Dbellwether.fenced.faults=N} for a longer run and {@code
 * -Dbellwether.fenced.seed=S} to replay a schedule: the order of the faults and how many writes come before each
 * (the seed and the command are printed; the timing of elections is the machine's).
 */
@Tag("processes")
@Timeout(600)
class FencedFaultsTest {
    /** Bounds each wait of a failing test only: a slow CI machine may take seconds to start each JVM. */
    private static final Duration CEILING = Duration.ofSeconds(120);

    /**
     * An election timeout of 1 s: leaderships a starved machine loses by itself are no failure here (they are more
     * changes of writer, which the checks cover as well), only slower.
     */
    private static final String QUORUM = "quorum: {heartbeat-interval: 100ms, missed-heartbeats: 10}\n";

    private static final Duration LEASE_DURATION = Duration.ofSeconds(2);

    enum Mode {
        COMMAND,
        TASK
    }

    enum Fault {
        KILL,
        STOP,
        TERM
    }

    /** The writer whose accepted write is the latest. */
    private record Writer(long epoch, String node) {}

    private final FencedLedger ledger = new FencedLedger("fenced_" + Long.toHexString(new Random().nextLong() >>> 24));
    private LocalCluster cluster;
    private String replay;

    /** Processes ({@code pid}) and groups ({@code -pgid}) this test stopped and has not resumed yet. */
    private final List<String> stopped = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        signal("CONT", stopped, false);
        if (cluster != null) {
            cluster.close();
        }
        ledger.drop();
    }

    @Test
    void quorumLeadersCommandsNeverOverlapAndTheirStaleWritesAreRefused(TestInfo test) throws Exception {
        faults(test, "quorum", Mode.COMMAND);
    }

    @Test
    void leaseHoldersCommandsNeverOverlapAndTheirStaleWritesAreRefused(TestInfo test) throws Exception {
        faults(test, "lease", Mode.COMMAND);
    }

    @Test
    void quorumLeadersTasksNeverOverlapAndNoStaleWriteLands(TestInfo test) throws Exception {
        faults(test, "quorum", Mode.TASK);
    }

    @Test
    void leaseHoldersTasksNeverOverlapAndNoStaleWriteLands(TestInfo test) throws Exception {
        faults(test, "lease", Mode.TASK);
    }

    private void faults(TestInfo test, String algorithm, Mode mode) throws Exception {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
        long seed = Long.getLong("bellwether.fenced.seed", System.nanoTime());
        int count = Integer.getInteger("bellwether.fenced.faults", 3);
        replay = "mvn -B -q -o -pl bellwether-bench -am test -Dtest='FencedFaultsTest#"
                + test.getTestMethod().orElseThrow().getName() + "' -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dbellwether.fenced.seed=" + seed + " -Dbellwether.fenced.faults=" + count;
        Random random = new Random(seed);
        List<Fault> schedule = new ArrayList<>();
        while (schedule.size() < count) {
            List<Fault> round = new ArrayList<>(List.of(Fault.values()));
            Collections.shuffle(round, random);
            schedule.addAll(round.subList(0, Math.min(round.size(), count - schedule.size())));
        }
        System.out.println("fenced " + algorithm + " " + mode + ": seed " + seed + ", faults " + schedule + ", tables "
                + ledger.prefix + "_*; replay: " + replay);

        ledger.create();
        String extra = algorithm.equals("lease")
                ? LocalCluster.leaseSection(FencedLedger.PG_URL, LEASE_DURATION, true) + "  table: " + ledger.lease()
                        + "\n"
                : QUORUM;
        if (mode == Mode.COMMAND) {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(LocalCluster.NODE_JVM_OPTIONS);
            command.addAll(
                    List.of("-cp", System.getProperty("java.class.path"), FencedWriter.class.getName(), ledger.prefix));
            cluster = LocalCluster.startRunning(3, algorithm, extra, command);
        } else {
            cluster = LocalCluster.start(3, algorithm, extra, List.of(FencedTaskNode.class.getName(), ledger.prefix));
        }

        Set<Long> paused = new TreeSet<>();
        try {
            inject(schedule, mode, random, paused);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; replay: " + replay + logTails(), e);
        }
        cluster.close();
        cluster = null;

        FencedHistory history = FencedHistory.load(ledger);
        String summary = "seed " + seed + ", faults " + schedule + "; " + history.accepted() + " accepted writes, "
                + history.stale() + " stale attempts refused\n" + history.summary(paused);
        System.out.print("fenced " + algorithm + " " + mode + ": " + summary);
        assertThat(history.violations(paused))
                .as("violations (%s); replay: %s", summary, replay)
                .isEmpty();
        if (mode == Mode.COMMAND) {
            for (long epoch : paused) {
                assertThat(history.staleOf(epoch))
                        .as("stale attempts of paused epoch %d refused (%s); replay: %s", epoch, summary, replay)
                        .isPositive();
            }
        }
    }

    /**
     * Runs the schedule: before each fault, lets the current writer write a few (seeded) times, then hits its node
     * and waits for a writer of a higher epoch to write.
     *
     * @param paused gets the epochs whose writer was paused with its node
     */
    private void inject(List<Fault> schedule, Mode mode, Random random, Set<Long> paused) throws Exception {
        long begun = System.nanoTime();
        Writer writer = awaitWriterAbove(-1);
        System.out.printf("fenced: %.3f s first writer %s%n", (System.nanoTime() - begun) / 1e9, writer);
        for (Fault fault : schedule) {
            awaitMoreWrites(writer.epoch(), 1 + random.nextInt(10));
            writer = latestWriter().orElseThrow();
            System.out.printf("fenced: %.3f s %s %s%n", (System.nanoTime() - begun) / 1e9, fault, writer);
            switch (fault) {
                case KILL -> {
                    cluster.kill(writer.node());
                    Writer next = awaitWriterAbove(writer.epoch());
                    cluster.startNode(writer.node());
                    writer = next;
                }
                case TERM -> {
                    int status = cluster.terminate(writer.node(), CEILING);
                    if (mode == Mode.COMMAND) {
                        assertThat(status)
                                .as(writer.node() + "'s exit status after SIGTERM")
                                .isZero();
                    }
                    Writer next = awaitWriterAbove(writer.epoch());
                    cluster.startNode(writer.node());
                    writer = next;
                }
                case STOP -> writer =
                        mode == Mode.COMMAND ? pauseNodeAndCommand(writer, paused) : pauseNode(writer, paused);
            }
        }
        System.out.printf("fenced: %.3f s last writer %s%n", (System.nanoTime() - begun) / 1e9, writer);
    }

    /**
     * Stops the writer's whole node, as a paused VM would: the runner, every process it started (the reaper among
     * them) and the command's process group. Waits until a writer of a higher epoch writes (or waits for the fence
     * row, which the paused command may hold), then resumes the command alone until its next attempt has ended
     * (refused by the fence, which is then all that stands between it and the database), and only then the rest of
     * the node, whose runner then finds its leadership gone and stops the command.
     */
    private Writer pauseNodeAndCommand(Writer latest, Set<Long> paused) throws Exception {
        // The latest writer's command, or, if its leadership has just ended by itself, the next one's.
        Writer[] found = {latest};
        FencedLedger.Writer command = await("the command of the latest writer in the process table")
                .atMost(CEILING)
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> {
                            found[0] = latestWriter().orElseThrow();
                            return ledger.writers(FencedWriter.class.getName()).stream()
                                    .filter(w -> w.epoch() == found[0].epoch())
                                    .findFirst();
                        },
                        Optional::isPresent)
                .orElseThrow();
        Writer writer = found[0];
        paused.add(writer.epoch());
        cluster.pause(writer.node());
        String group = "-" + command.pgid();
        stopped.add(group);
        signal("STOP", List.of(group), true);
        // Then every descendant of the runner, the reaper and its timer among them, until a look finds no new one:
        // a reaper that read a last line before it was stopped may have started a new timer after the previous look,
        // and a timer left running would kill the paused command when it ran out. A timer may also have ended in
        // between, so these kills are not checked.
        long runnerPid = cluster.pid(writer.node()).orElseThrow();
        List<String> node = new ArrayList<>();
        for (int look = 0; look < 20; look++) {
            List<String> fresh = ProcessHandle.of(runnerPid)
                    .map(runner -> runner.descendants()
                            .map(p -> Long.toString(p.pid()))
                            .filter(pid -> !node.contains(pid))
                            .toList())
                    .orElse(List.of());
            if (fresh.isEmpty()) {
                break;
            }
            node.addAll(fresh);
            stopped.addAll(fresh);
            signal("STOP", fresh, false);
        }
        long higher = awaitHigherWriterOrWaiter(writer.epoch());
        long resumed = FencedLedger.nowNanos();
        signal("CONT", List.of(group), true);
        // Its attempt under way at the pause (waiting for the fence row) may end stale once resumed; else it
        // makes a new attempt, which must end one way or the other.
        awaitTrue(
                "an attempt of paused epoch " + writer.epoch() + " refused or ended after it resumed",
                "SELECT count(*) > 0 FROM " + ledger.attempts() + " WHERE epoch = " + writer.epoch()
                        + " AND (outcome = 'stale' OR (started_ns > " + resumed + " AND outcome IS NOT NULL))",
                () -> "resumed at " + resumed + "; its last attempts: "
                        + rows("SELECT id, counter, started_ns, ended_ns, outcome FROM " + ledger.attempts()
                                + " WHERE epoch = " + writer.epoch() + " ORDER BY id DESC LIMIT 3")
                        + "; its processes: " + ledger.writers(FencedWriter.class.getName()));
        signal("CONT", node, false); // the command, one of them, may have ended
        stopped.clear();
        cluster.resume(writer.node());
        return awaitWriterAbove(higher - 1);
    }

    /** Stops the writer's node process until a writer of a higher epoch writes (or waits for the fence row). */
    private Writer pauseNode(Writer writer, Set<Long> paused) throws Exception {
        paused.add(writer.epoch());
        cluster.pause(writer.node());
        long higher = awaitHigherWriterOrWaiter(writer.epoch());
        cluster.resume(writer.node());
        return awaitWriterAbove(higher - 1);
    }

    /** Sends {@code signal} to {@code targets} (pids, or {@code -pgid} for a process group) with one kill. */
    private static void signal(String signal, List<String> targets, boolean check)
            throws IOException, InterruptedException {
        if (targets.isEmpty()) {
            return;
        }
        // Never the test's own process group (or a nonsense group): a wrong pgid would stop or kill the test JVM.
        String stat = Files.readString(Path.of("/proc/self/stat"));
        long ownGroup = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
        for (String target : targets) {
            long id = Long.parseLong(target.startsWith("-") ? target.substring(1) : target);
            assertThat(id).as("signal target %s", target).isGreaterThan(1).isNotEqualTo(ownGroup);
            assertThat(id)
                    .as("signal target %s", target)
                    .isNotEqualTo(ProcessHandle.current().pid());
        }
        List<String> argv = new ArrayList<>(List.of("kill", "-" + signal, "--"));
        argv.addAll(targets);
        Process kill = new ProcessBuilder(argv)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true)
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS))
                .as(String.join(" ", argv))
                .isTrue();
        if (check) {
            assertThat(kill.exitValue()).as(String.join(" ", argv)).isZero();
        }
    }

    /**
     * Waits until a writer of an epoch above {@code epoch} has an accepted write, or is waiting for the fence row's
     * lock (held by a writer paused inside its transaction); returns that epoch.
     */
    private long awaitHigherWriterOrWaiter(long epoch) {
        String writerApp = ledger.prefix + "-";
        return await("a writer above epoch " + epoch + " writing, or waiting for the fence row")
                .atMost(CEILING)
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> {
                            long highest = latestWriter().map(Writer::epoch).orElse(-1L);
                            try (Connection c = DriverManager.getConnection(FencedLedger.PG_URL);
                                    PreparedStatement ps = c.prepareStatement("SELECT application_name FROM"
                                            + " pg_stat_activity WHERE wait_event_type = 'Lock' AND"
                                            + " application_name LIKE ?"); ) {
                                ps.setString(1, writerApp + "%");
                                try (ResultSet r = ps.executeQuery()) {
                                    while (r.next()) {
                                        String suffix = r.getString(1).substring(writerApp.length());
                                        if (suffix.matches("[0-9]+")) {
                                            highest = Math.max(highest, Long.parseLong(suffix));
                                        }
                                    }
                                }
                            }
                            return highest;
                        },
                        highest -> highest > epoch);
    }

    private Writer awaitWriterAbove(long epoch) {
        return await("an accepted write of an epoch above " + epoch)
                .atMost(CEILING)
                .pollInterval(Duration.ofMillis(20))
                .until(this::latestWriter, w -> w.isPresent() && w.get().epoch() > epoch)
                .orElseThrow();
    }

    private void awaitMoreWrites(long epoch, int writes) throws SQLException {
        long now = count("SELECT count(*) FROM " + ledger.writes() + " WHERE epoch = " + epoch);
        await("" + writes + " more writes of epoch " + epoch + ", or a newer epoch writing")
                .atMost(CEILING)
                .pollInterval(Duration.ofMillis(20))
                .until(() ->
                        count("SELECT count(*) FROM " + ledger.writes() + " WHERE epoch = " + epoch) >= now + writes
                                || latestWriter().map(Writer::epoch).orElse(-1L) > epoch);
    }

    private void awaitTrue(String what, String query, java.util.concurrent.Callable<String> diagnosis)
            throws Exception {
        try {
            await(what).atMost(CEILING).pollInterval(Duration.ofMillis(10)).until(() -> count(query) > 0);
        } catch (ConditionTimeoutException e) {
            throw new ConditionTimeoutException(e.getMessage() + "; " + diagnosis.call());
        }
    }

    private static String rows(String query) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = DriverManager.getConnection(FencedLedger.PG_URL);
                PreparedStatement ps = c.prepareStatement(query);
                ResultSet r = ps.executeQuery()) {
            int columns = r.getMetaData().getColumnCount();
            while (r.next()) {
                out.append(" (");
                for (int i = 1; i <= columns; i++) {
                    out.append(i == 1 ? "" : ", ").append(r.getString(i));
                }
                out.append(')');
            }
        }
        return out.toString();
    }

    private Optional<Writer> latestWriter() throws SQLException {
        try (Connection c = DriverManager.getConnection(FencedLedger.PG_URL);
                PreparedStatement ps = c.prepareStatement(
                        "SELECT epoch, node FROM " + ledger.writes() + " ORDER BY seq DESC LIMIT 1");
                ResultSet r = ps.executeQuery()) {
            return r.next() ? Optional.of(new Writer(r.getLong(1), r.getString(2))) : Optional.empty();
        }
    }

    private static long count(String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(FencedLedger.PG_URL);
                PreparedStatement ps = c.prepareStatement(query);
                ResultSet r = ps.executeQuery()) {
            r.next();
            Object value = r.getObject(1);
            return value instanceof Boolean b ? (b ? 1 : 0) : ((Number) value).longValue();
        }
    }

    private String logTails() {
        StringBuilder out = new StringBuilder();
        if (cluster == null) {
            return "";
        }
        for (LocalCluster.Member m : cluster.members()) {
            try {
                List<String> lines = Files.readAllLines(m.log());
                out.append("\n--- ").append(m.id()).append(".log (last 30 lines):\n");
                out.append(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
            } catch (IOException e) {
                out.append("\n--- ").append(m.id()).append(".log unreadable: ").append(e);
            }
        }
        return out.toString();
    }
}
