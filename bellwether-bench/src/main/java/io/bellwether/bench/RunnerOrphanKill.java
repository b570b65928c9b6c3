package io.bellwether.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.cli.Main;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.report.Distribution;
import io.bellwether.testkit.Ports;
import io.bellwether.testkit.Processes;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How soon a {@code bellwether run} command dies with its runner: each round starts {@code bellwether run} (one
 * node, quorum with the default timing, on 127.0.0.1) whose command starts a child of its own, waits until both run,
 * signals the runner's JVM and polls the process table (every 0.1 ms) until the command and its child are gone (a
 * zombie counts as gone: it runs nothing).
 *
 * <ul>
 *   <li>{@code kill}: SIGKILL; the reaper reads end of file. Measured: from just before the signal to the last of
 *       the two gone.
 *   <li>{@code stop}: SIGSTOP; the pipe stays open and only the reaper's deadline ends the group. Measured: the same,
 *       and how long before the stopped leadership's validity ended the group was gone (the node reports that end, on
 *       the wall clock, in {@code GET /history} once SIGCONT has let it see its revocation): the kill margin, 50 ms,
 *       less the reaper's reaction.
 * </ul>
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.RunnerOrphanKill [ROUNDS]
 * [kill|stop]} (default 30 rounds, kill; each round starts a JVM). Exits 2 on a bad argument, 1 if a command outlives
 * its runner (or its deadline) by 10 s.
 */
public final class RunnerOrphanKill {
    static final int DEFAULT_ROUNDS = 30;
    static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(10);

    private RunnerOrphanKill() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length > 2 || (args.length == 2 && !List.of("kill", "stop").contains(args[1]))) {
            err.println("usage: RunnerOrphanKill [ROUNDS] [kill|stop]  (default " + DEFAULT_ROUNDS + " kill)");
            return 2;
        }
        boolean stop = args.length == 2 && args[1].equals("stop");
        OptionalInt roundsArg =
                args.length > 0 ? Args.count("ROUNDS", args[0], 10_000, err) : OptionalInt.of(DEFAULT_ROUNDS);
        if (roundsArg.isEmpty()) {
            return 2;
        }
        int rounds = roundsArg.getAsInt();
        Path dir = Files.createTempDirectory("bellwether-orphan-");
        long[] gone = new long[rounds];
        long[] beforeValidityEnd = new long[rounds];
        try {
            for (int r = 0; r < rounds; r++) {
                Path round = Files.createDirectories(dir.resolve("round-" + r));
                Round took = round(round, stop);
                if (took == null) {
                    err.println("round " + r + ": the command outlived its runner by 10 s (see " + round + ")");
                    return 1;
                }
                gone[r] = took.goneNanos();
                beforeValidityEnd[r] = took.beforeValidityEndNanos();
            }
        } finally {
            deleteTree(dir);
        }
        out.printf(
                "RunnerOrphanKill: %d rounds, %s, %s, Java %s, %d cores%n%n",
                rounds,
                stop ? "stop" : "kill",
                LocalDate.now(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        out.println("| measured | rounds | min ms | p50 ms | p99 ms | max ms |");
        out.println("|---|---:|---:|---:|---:|---:|");
        row(out, (stop ? "SIGSTOP" : "SIGKILL") + " of the runner → command and its child gone", gone);
        if (stop) {
            row(out, "group gone → the leadership's validity end", beforeValidityEnd);
        }
        return 0;
    }

    private static void row(PrintStream out, String what, long[] nanos) {
        Distribution d = Distribution.of(nanos);
        out.printf(
                Locale.ROOT,
                "| %s | %d | %.1f | %.1f | %.1f | %.1f |%n",
                what,
                d.count(),
                Distribution.millis(java.util.Arrays.stream(nanos).min().orElse(0)),
                Distribution.millis(d.percentileNanos(50)),
                Distribution.millis(d.percentileNanos(99)),
                Distribution.millis(d.maxNanos()));
    }

    /**
     * One round's figures.
     *
     * @param goneNanos from the signal until both processes were gone
     * @param beforeValidityEndNanos ({@code stop}) from the group gone to the leadership's validity end; negative if
     *     after
     */
    private record Round(long goneNanos, long beforeValidityEndNanos) {}

    /** One round in {@code dir}; null if the command outlived the signal by 10 s. */
    private static Round round(Path dir, boolean stop) throws IOException, InterruptedException {
        Path config = dir.resolve("n1.yaml");
        int port = Ports.free();
        int httpPort = Ports.free();
        Files.writeString(
                config,
                "cluster: orphan\nnode: n1\nlisten: 127.0.0.1:" + port + "\npeers:\n  n1: {address: 127.0.0.1:" + port
                        + ", http: 127.0.0.1:" + httpPort + "}\ninsecure: true\nstate-dir: " + dir.resolve("data")
                        + "\n");
        List<String> argv = new ArrayList<>();
        argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        argv.addAll(LocalCluster.NODE_JVM_OPTIONS);
        argv.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "run",
                "--config",
                config.toString(),
                "--",
                "sh",
                "-c",
                "cd '" + dir + "' || exit 1; sleep 1000 & echo $! > child.tmp && mv child.tmp child;"
                        + " echo $$ > pid.tmp && mv pid.tmp pid; wait"));
        Process runner = new ProcessBuilder(argv)
                .redirectOutput(dir.resolve("run.out").toFile())
                .redirectError(dir.resolve("run.log").toFile())
                .start();
        try {
            long pid = pidIn(dir.resolve("pid"));
            long child = pidIn(dir.resolve("child"));
            if (pid < 0 || child < 0 || !Processes.running(pid) || !Processes.running(child)) {
                throw new IllegalStateException("the command did not start within 10 s: see " + dir);
            }
            long t0 = System.nanoTime();
            if (stop) {
                signal("-STOP", runner.pid());
            } else {
                runner.destroyForcibly(); // SIGKILL on Linux: no hook, no handler runs
            }
            while (Processes.running(pid) || Processes.running(child)) {
                if (System.nanoTime() - t0 > CEILING_NANOS) {
                    return null;
                }
                TimeUnit.MICROSECONDS.sleep(100);
            }
            long goneNanos = System.nanoTime() - t0;
            if (!stop) {
                return new Round(goneNanos, 0);
            }
            Instant goneAt = Instant.now();
            signal("-CONT", runner.pid());
            Instant validUntil = revokedValidUntil(httpPort);
            return new Round(goneNanos, Duration.between(goneAt, validUntil).toNanos());
        } finally {
            runner.destroyForcibly();
            runner.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("/bin/kill", signal, Long.toString(pid))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " " + pid + " failed");
        }
    }

    /**
     * The validity end of the node's first revoked leadership, from its {@code GET /history} (wall clock): the node
     * reports it once it runs again and its watchdog has revoked the leadership.
     */
    private static Instant revokedValidUntil(int httpPort) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + CEILING_NANOS;
        while (System.nanoTime() - deadline < 0) {
            try {
                String body = http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/history"))
                                        .timeout(Duration.ofSeconds(2))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                for (JsonNode change : json.readTree(body).path("changes")) {
                    if (change.hasNonNull("validUntil")) {
                        return Instant.parse(change.path("validUntil").asText());
                    }
                }
            } catch (IOException e) {
                // not answering yet
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new IllegalStateException("the node reported no revocation within 10 s on port " + httpPort);
    }

    /** The pid written to {@code file} (renamed into place whole), waiting at most 10 s for it; -1 if none. */
    private static long pidIn(Path file) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                return -1;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return Long.parseLong(Files.readString(file).trim());
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
