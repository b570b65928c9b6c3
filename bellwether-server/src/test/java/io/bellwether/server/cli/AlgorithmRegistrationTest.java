package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.Algorithm;
import io.bellwether.testkit.toy.ToyAlgorithm;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sixth algorithm needs its own package and nothing else: the toy algorithm of the test kit ({@link
 * ToyAlgorithm}), registered as a plug-in through a {@code META-INF/services} file, runs through the configuration
 * loader, the simulator and the demo of the real CLI. The file is written to a directory of this test's own and
 * only the child JVMs get it on their class path (the demo's node processes inherit it), so that every other test
 * keeps seeing the built-in algorithms alone.
 */
@Tag("processes")
class AlgorithmRegistrationTest {
    /** Generous: cold JVMs on a machine that can be ten times slower than a workstation. */
    private static final long CEILING_SECONDS = 240;

    @TempDir
    static Path dir;

    private static Path plugin;

    @BeforeAll
    static void registerTheToyInADirectoryOfItsOwn() throws IOException {
        plugin = dir.resolve("plugin");
        Path services = plugin.resolve("META-INF/services/" + Algorithm.class.getName());
        Files.createDirectories(services.getParent());
        Files.writeString(services, ToyAlgorithm.class.getName() + "\n", StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(3 * CEILING_SECONDS)
    void theSimulatorRunsThePlugInAndChecksIt() throws Exception {
        Child sim = Child.start(
                "simulate",
                "--algorithm",
                "toy",
                "--seeds",
                "300",
                // The faults the toy is built for (it keeps no single leader across a partition).
                "--faults",
                "crash,silent-crash,stop,reset,duplicate,drift",
                "--threads",
                "2");
        int exit = sim.exit();

        assertThat(exit).as(sim.output()).isEqualTo(Main.EXIT_OK);
        assertThat(sim.output())
                .contains("algorithm toy, 5 nodes, seeds 1..300 (300)")
                .containsPattern("runs +300\n")
                .containsPattern("violations +0\n")
                .containsPattern("elections +[1-9]")
                .contains("OK: no invariant was violated.");
    }

    @Test
    @Timeout(3 * CEILING_SECONDS)
    void theDemoRunsThePlugInsVariantOnNodeProcessesThatReadItsSection() throws Exception {
        // toy-highest is the toy with highest-wins: true in each node's toy: section; with the section ignored the
        // lowest id, n1, would lead.
        Child demo = Child.start("demo", "--algorithm", "toy-highest", "--nodes", "3");
        // n3 leads once all three are up; on a busy machine n3 may start late, after n2 (the highest of the first
        // two) was elected, and take over then. With the section ignored, n1 would lead throughout and this never
        // comes.
        Pattern agreed = Pattern.compile("(n3) leads at epoch \\d+, (now )?known by all 3 live nodes");
        boolean seen = demo.awaitLine(agreed);
        List<ProcessHandle> nodes = demo.process.descendants().toList();
        demo.process.destroy(); // SIGTERM: the demo's shutdown hook stops its nodes and removes its files
        int exit = demo.exit();
        // The demo stops its nodes before it ends; a minute is generous for the last one to be reaped.
        List<ProcessHandle> left = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (ProcessHandle node : nodes) {
            try {
                node.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException stillRunning) {
                left.add(node);
                node.destroyForcibly();
            }
        }

        assertThat(seen).as(demo.output()).isTrue();
        Matcher leader = agreed.matcher(demo.output());
        assertThat(leader.find()).isTrue();
        assertThat(leader.group(1)).as(demo.output()).isEqualTo("n3");
        assertThat(demo.output()).contains("Started 3 toy-highest nodes");
        assertThat(exit).as(demo.output()).isEqualTo(143);
        assertThat(nodes).as(demo.output()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(left).as("node processes left running: %s", demo.output()).isEmpty();
        Matcher files = Pattern.compile("files in (\\S+)\\)").matcher(demo.output());
        assertThat(files.find()).as(demo.output()).isTrue();
        assertThat(Path.of(files.group(1))).doesNotExist();
    }

    @Test
    @Timeout(3 * CEILING_SECONDS)
    void aNodeRefusesABadValueAndAnUnknownKeyInThePlugInsSectionNamingThem() throws Exception {
        Child bad = Child.start("node", "--config", nodeConfig("bad", "toy:\n  ping-interval: 0ms\n"));
        Child unknown = Child.start("node", "--config", nodeConfig("unknown", "toy:\n  ping-intervall: 20ms\n"));

        assertThat(bad.exit()).as(bad.output()).isEqualTo(Main.EXIT_USAGE);
        assertThat(bad.output()).contains("toy.ping-interval").contains("0ms");
        assertThat(unknown.exit()).as(unknown.output()).isEqualTo(Main.EXIT_USAGE);
        assertThat(unknown.output()).contains("toy.ping-intervall").contains("ping-interval");
    }

    /** Ends whatever a failed or timed-out test left running: every child and the demo's node processes. */
    @AfterEach
    void endEveryChild() {
        synchronized (Child.STARTED) {
            for (Process p : Child.STARTED) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            Child.STARTED.clear();
        }
    }

    /** A one-member toy node's configuration with {@code section}; returns its path. */
    private static String nodeConfig(String name, String section) throws IOException {
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n");
        Path config = dir.resolve(name + ".yaml");
        Files.writeString(
                config,
                "cluster: plug-in\n"
                        + "node: n1\n"
                        + "algorithm: toy\n"
                        + "listen: 127.0.0.1:0\n"
                        + "peers:\n"
                        + "  n1: {address: 127.0.0.1:0}\n"
                        + "secret-file: " + secret + "\n"
                        + "state-dir: " + dir.resolve("state-" + name) + "\n"
                        + section,
                StandardCharsets.UTF_8);
        return config.toString();
    }

    /** The CLI in a child JVM whose class path is this test's plus the plug-in directory. */
    private static final class Child {
        /** Every child started, for {@link #endEveryChild}. */
        static final List<Process> STARTED = new ArrayList<>();

        final Process process;
        private final StringBuffer output = new StringBuffer();
        private final List<Waiter> waiters = new ArrayList<>();
        private final CompletableFuture<Void> ended = new CompletableFuture<>();

        private record Waiter(Pattern pattern, CompletableFuture<Boolean> seen) {}

        private Child(Process process) {
            this.process = process;
            Thread reader = new Thread(this::read, "child-output");
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    plugin + File.pathSeparator + System.getProperty("java.class.path"),
                    Main.class.getName()));
            command.addAll(List.of(args));
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            synchronized (STARTED) {
                STARTED.add(process);
            }
            return new Child(process);
        }

        private void read() {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.append(line).append('\n');
                    synchronized (waiters) {
                        for (Waiter w : waiters) {
                            if (w.pattern.matcher(line).find()) {
                                w.seen.complete(true);
                            }
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                synchronized (waiters) {
                    waiters.forEach(w -> w.seen.complete(false));
                }
                ended.complete(null);
            }
        }

        /** Whether a line matching {@code pattern} comes out before the child ends (or the ceiling passes). */
        boolean awaitLine(Pattern pattern) throws Exception {
            CompletableFuture<Boolean> seen = new CompletableFuture<>();
            synchronized (waiters) {
                if (pattern.matcher(output).find()) {
                    return true;
                }
                waiters.add(new Waiter(pattern, seen));
                if (ended.isDone()) {
                    return false;
                }
            }
            try {
                return seen.get(CEILING_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return false;
            }
        }

        /** Waits for the child to end (killing it at the ceiling) and for its last line of output. */
        int exit() throws Exception {
            if (!process.waitFor(CEILING_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the child did not end within " + CEILING_SECONDS + " s:\n" + output);
            }
            ended.get(CEILING_SECONDS, TimeUnit.SECONDS);
            return process.exitValue();
        }

        String output() {
            return output.toString();
        }
    }
}
