package io.bellwether.bench;

import io.bellwether.server.report.Distribution;
import io.bellwether.testkit.Ports;
import io.bellwether.testkit.Processes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How soon a {@code bellwether run} command dies with its runner: each round starts {@code bellwether run} (one
 * node, quorum, on 127.0.0.1) whose command starts a child of its own, waits until both run, kills the runner's JVM
 * with SIGKILL and polls the process table (every 0.1 ms) until the command and its child are gone. Measured: from
 * just before the signal to the last of the two gone (a zombie counts as gone: it runs nothing).
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.RunnerOrphanKill [ROUNDS]}
 * (default 30; each round starts a JVM). Exits 2 on a bad argument, 1 if a command outlives its runner by 10 s.
 */
public final class RunnerOrphanKill {
    static final int DEFAULT_ROUNDS = 30;
    static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(10);

    private RunnerOrphanKill() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        OptionalInt roundsArg = Args.onlyCount(
                args,
                "ROUNDS",
                DEFAULT_ROUNDS,
                10_000,
                "RunnerOrphanKill [ROUNDS]  (default " + DEFAULT_ROUNDS + ")",
                err);
        if (roundsArg.isEmpty()) {
            return 2;
        }
        int rounds = roundsArg.getAsInt();
        Path dir = Files.createTempDirectory("bellwether-orphan-");
        long[] gone = new long[rounds];
        try {
            for (int r = 0; r < rounds; r++) {
                Path round = Files.createDirectories(dir.resolve("round-" + r));
                long took = round(round);
                if (took < 0) {
                    err.println("round " + r + ": the command outlived its runner by 10 s (see " + round + ")");
                    return 1;
                }
                gone[r] = took;
            }
        } finally {
            deleteTree(dir);
        }
        Distribution d = Distribution.of(gone);
        out.printf(
                "RunnerOrphanKill: %d rounds, %s, Java %s, %d cores%n%n",
                rounds,
                LocalDate.now(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        out.println("| SIGKILL of the runner → command and its child gone | rounds | p50 ms | p99 ms | max ms |");
        out.println("|---|---:|---:|---:|---:|");
        out.printf(
                Locale.ROOT,
                "| measured | %d | %.1f | %.1f | %.1f |%n",
                d.count(),
                Distribution.millis(d.percentileNanos(50)),
                Distribution.millis(d.percentileNanos(99)),
                Distribution.millis(d.maxNanos()));
        return 0;
    }

    /** One round in {@code dir}: nanoseconds from the signal until both processes are gone, or -1. */
    private static long round(Path dir) throws IOException, InterruptedException {
        Path config = dir.resolve("n1.yaml");
        int port = Ports.free();
        Files.writeString(
                config,
                "cluster: orphan\nnode: n1\nlisten: 127.0.0.1:" + port + "\npeers:\n  n1: 127.0.0.1:" + port
                        + "\ninsecure: true\nstate-dir: " + dir.resolve("data") + "\n");
        Process runner = RunnerProcess.start(
                config,
                dir,
                "sleep 1000 & echo $! > child.tmp && mv child.tmp child; echo $$ > pid.tmp && mv pid.tmp pid; wait",
                "run");
        try {
            long pid = pidIn(dir.resolve("pid"));
            long child = pidIn(dir.resolve("child"));
            if (pid < 0 || child < 0 || !Processes.running(pid) || !Processes.running(child)) {
                throw new IllegalStateException("the command did not start within 10 s: see " + dir);
            }
            long t0 = System.nanoTime();
            runner.destroyForcibly(); // SIGKILL on Linux: no hook, no handler runs
            while (Processes.running(pid) || Processes.running(child)) {
                if (System.nanoTime() - t0 > CEILING_NANOS) {
                    return -1;
                }
                TimeUnit.MICROSECONDS.sleep(100);
            }
            return System.nanoTime() - t0;
        } finally {
            runner.destroyForcibly();
            runner.waitFor(10, TimeUnit.SECONDS);
        }
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
