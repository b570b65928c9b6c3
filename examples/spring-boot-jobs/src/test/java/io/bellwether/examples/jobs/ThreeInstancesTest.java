package io.bellwether.examples.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's story with three real processes of the example (child JVMs on the test's class path): one runs the
 * job; {@code kill -9} moves it to another with a higher epoch, the killed leader's rows all come before the new
 * epoch's; a graceful stop (SIGTERM) hands it to the third. On failure, every instance's output is printed.
 */
class ThreeInstancesTest {
    private static final Pattern RUN = Pattern.compile("job run #(\\d+) written by (\\S+) in epoch (\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);
    private static final String PG_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    @TempDir
    Path dir;

    private final List<Instance> instances = new ArrayList<>();

    @AfterEach
    void stopInstances() throws InterruptedException {
        for (Instance instance : instances) {
            instance.process.destroyForcibly();
            instance.process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void onSharedH2FileTheJobMovesOnKillWithAHigherEpochAndAgainOnAGracefulStop() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("jobs") + ";AUTO_SERVER=TRUE;WRITE_DELAY=0";
        runStory(List.of("--spring.datasource.url=" + url), () -> rows(url, "sa", "job_runs"));
    }

    @Test
    void onPostgresqlTheJobMovesOnKillWithAHigherEpochAndAgainOnAGracefulStop() throws Exception {
        requirePostgresql();
        String lease = "ex_jobs_lease";
        String runs = "ex_jobs_runs";
        String fence = "ex_jobs_fence";
        try (Connection c = DriverManager.getConnection(PG_URL, "postgres", "");
                Statement s = c.createStatement()) {
            for (String table : List.of(lease, runs, fence)) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
        runStory(
                List.of(
                        "--spring.profiles.active=postgres",
                        "--bellwether.group=jobs-example-test",
                        "--bellwether.lease.table=" + lease,
                        "--jobs.table=" + runs,
                        "--jobs.fence-table=" + fence),
                () -> rows(PG_URL, "postgres", runs));
    }

    private void runStory(List<String> settings, RowSource database) throws Exception {
        try {
            for (String node : List.of("n1", "n2", "n3")) {
                instances.add(start(node, settings));
            }
            await("every instance started").atMost(START_TIMEOUT).until(() -> instances.stream()
                    .allMatch(Instance::started));

            // 1. One instance runs the job, counted from when all have started (the first may lead alone before).
            Map<Instance, Integer> before = instances.stream()
                    .collect(Collectors.toMap(i -> i, i -> i.runs().size()));
            await("five runs once all have started")
                    .atMost(FAILOVER_TIMEOUT)
                    .until(() -> runsSince(before).size() >= 5);
            List<Run> first = runsSince(before);
            assertThat(first)
                    .extracting(Run::node)
                    .as("nodes that ran the job")
                    .containsOnly(first.get(0).node());
            Instance leader = instance(first.get(0).node());
            long firstEpoch = first.get(0).epoch();

            // 2. kill -9 the leader: another one runs the job, in a higher epoch.
            leader.process.destroyForcibly();
            assertThat(leader.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            List<Instance> survivors =
                    instances.stream().filter(i -> i != leader).toList();
            Run second = awaitRunAbove(survivors, firstEpoch, "a run after the leader was killed");
            Instance secondLeader = instance(second.node());
            assertThat(second.epoch()).isGreaterThan(firstEpoch);
            await("three runs in epoch " + second.epoch())
                    .atMost(FAILOVER_TIMEOUT)
                    .until(() -> runsAbove(survivors, firstEpoch).size() >= 3);
            assertThat(runsAbove(survivors, firstEpoch))
                    .extracting(Run::node)
                    .as("nodes that ran the job after the kill")
                    .containsOnly(secondLeader.node);

            // 3. SIGTERM the new leader: it resigns, and the last instance takes over in a higher epoch still.
            secondLeader.process.destroy();
            assertThat(secondLeader.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(secondLeader.output()).contains("no longer leads (epoch " + second.epoch() + "): RESIGNED");
            Instance last = survivors.stream()
                    .filter(i -> i != secondLeader)
                    .findFirst()
                    .orElseThrow();
            Run third = awaitRunAbove(List.of(last), second.epoch(), "a run after the graceful stop");
            last.process.destroy();
            assertThat(last.process.waitFor(60, TimeUnit.SECONDS)).isTrue();

            // 4. The table: one node per epoch, epochs never going back as the counter grows (so no row of the killed
            // leader's epoch was accepted after the first row of its successor's), and every logged run is there.
            List<Run> rows = database.rows();
            assertThat(rows).extracting(Run::counter).isSorted().doesNotHaveDuplicates();
            assertThat(rows).extracting(Run::epoch).isSorted();
            Map<Long, List<String>> nodesByEpoch = rows.stream()
                    .collect(Collectors.groupingBy(
                            Run::epoch,
                            Collectors.mapping(
                                    Run::node, Collectors.collectingAndThen(Collectors.toSet(), List::copyOf))));
            assertThat(nodesByEpoch)
                    .allSatisfy((epoch, nodes) -> assertThat(nodes).hasSize(1));
            assertThat(nodesByEpoch.get(firstEpoch)).containsExactly(leader.node);
            assertThat(nodesByEpoch.get(second.epoch())).containsExactly(secondLeader.node);
            assertThat(nodesByEpoch.get(third.epoch())).containsExactly(last.node);
            long firstOfSecond = rows.stream()
                    .filter(r -> r.epoch() == second.epoch())
                    .mapToLong(Run::counter)
                    .min()
                    .orElseThrow();
            assertThat(rows).filteredOn(r -> r.epoch() == firstEpoch).allSatisfy(r -> assertThat(r.counter())
                    .isLessThan(firstOfSecond));
            List<Run> logged =
                    instances.stream().flatMap(i -> i.runs().stream()).toList();
            assertThat(rows).as("rows").containsAll(logged);
        } catch (Throwable e) {
            for (Instance instance : instances) {
                System.err.println("===== output of " + instance.node + " =====");
                System.err.println(instance.output());
            }
            throw e;
        }
    }

    private Run awaitRunAbove(List<Instance> candidates, long epoch, String what) {
        await(what).atMost(FAILOVER_TIMEOUT).until(() -> !runsAbove(candidates, epoch)
                .isEmpty());
        return runsAbove(candidates, epoch).get(0);
    }

    private static List<Run> runsAbove(List<Instance> candidates, long epoch) {
        return candidates.stream()
                .flatMap(i -> i.runs().stream())
                .filter(r -> r.epoch() > epoch)
                .sorted(Comparator.comparingLong(Run::counter))
                .toList();
    }

    private static List<Run> runsSince(Map<Instance, Integer> before) {
        return before.entrySet().stream()
                .flatMap(e -> {
                    List<Run> runs = e.getKey().runs();
                    return runs.subList(Math.min(e.getValue(), runs.size()), runs.size()).stream();
                })
                .sorted(Comparator.comparingLong(Run::counter))
                .toList();
    }

    private Instance instance(String node) {
        return instances.stream().filter(i -> i.node.equals(node)).findFirst().orElseThrow();
    }

    private Instance start(String node, List<String> settings) throws IOException {
        // Surefire runs the tests from a manifest-only jar; it gives the real class path in this property.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                classPath,
                JobsApplication.class.getName(),
                "--bellwether.node=" + node,
                "--jobs.interval=200ms"));
        command.addAll(settings);
        Path log = dir.resolve(node + ".log");
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        // @AfterEach stops it after a test; this, should the test JVM itself be stopped (a fork timeout, Ctrl-C).
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        return new Instance(node, process, log);
    }

    private static void requirePostgresql() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 5432), 2_000);
        } catch (IOException e) {
            String message = "PostgreSQL is not reachable on 127.0.0.1:5432 (" + e.getMessage() + ")";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError("CI=true and " + message, e);
            }
            System.err.println("!!! SKIPPING the example's PostgreSQL test: " + message);
            Assumptions.abort(message);
        }
    }

    private static List<Run> rows(String url, String user, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT counter, node, epoch FROM " + table + " ORDER BY counter")) {
            List<Run> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(new Run(rs.getLong(1), rs.getString(2), rs.getLong(3)));
            }
            return rows;
        }
    }

    @FunctionalInterface
    private interface RowSource {
        List<Run> rows() throws SQLException;
    }

    /** A run as logged by the job, or as read from the table. */
    record Run(long counter, String node, long epoch) {}

    /** One child JVM running the example, its output in a file. */
    private record Instance(String node, Process process, Path log) {
        boolean started() {
            if (!process.isAlive()) {
                throw new AssertionError(node + " exited with code " + process.exitValue());
            }
            return output().contains("Started JobsApplication");
        }

        List<Run> runs() {
            List<Run> runs = new ArrayList<>();
            Matcher m = RUN.matcher(output());
            while (m.find()) {
                runs.add(new Run(Long.parseLong(m.group(1)), m.group(2), Long.parseLong(m.group(3))));
            }
            return runs;
        }

        String output() {
            try {
                // Not readString: the last character may be half written, which it would refuse.
                return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(no output: " + e + ")";
            }
        }
    }
}
