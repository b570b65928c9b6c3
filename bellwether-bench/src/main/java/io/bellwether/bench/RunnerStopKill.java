package io.bellwether.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How a {@code bellwether run} command dies when its runner is stopped (SIGSTOP) while it leads: the runner's pipe to
 * its reaper stays open, so only the reaper's deadline (the leadership's validity end less the 50 ms kill margin) ends
 * the command's group. Three {@code bellwether run} nodes (quorum, default timing, 127.0.0.1) run for the whole
 * benchmark; each round waits for a settled leader with its command (which starts a child of its own), stops the
 * leader's JVM, polls the process table (every 0.1 ms) until the command and its child are gone (a zombie counts as
 * gone), resumes the JVM and reads the stopped leadership's validity end from the node's {@code GET /history} (wall
 * clock, reported once the resumed node has seen its revocation). Measured: from the signal to the group gone; from
 * the group gone to the validity end; from the group gone to the successor's command start (the wall-clock time its
 * start file was written).
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.RunnerStopKill [ROUNDS]}
 * (default 20). Exits 2 on a bad argument, 1 if a round fails (a command outlives its stopped runner by 10 s, no
 * successor).
 */
public final class RunnerStopKill {
    static final int DEFAULT_ROUNDS = 20;
    static final long CEILING_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final List<String> IDS = List.of("n1", "n2", "n3");

    /** Starts a child, then writes {@code start-EPOCH}: node, own pid, child's pid; renamed into place whole. */
    private static final String COMMAND = "sleep 1000 & echo \"$BELLWETHER_NODE $$ $!\" > start.tmp.$$"
            + " && mv start.tmp.$$ start-$BELLWETHER_EPOCH; wait";

    private final Path dir;
    private final Map<String, Integer> httpPorts = new LinkedHashMap<>();
    private final Map<String, Process> runners = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    private RunnerStopKill(Path dir) {
        this.dir = dir;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        OptionalInt roundsArg = Args.onlyCount(
                args,
                "ROUNDS",
                DEFAULT_ROUNDS,
                10_000,
                "RunnerStopKill [ROUNDS]  (default " + DEFAULT_ROUNDS + ")",
                err);
        if (roundsArg.isEmpty()) {
            return 2;
        }
        int rounds = roundsArg.getAsInt();
        Path dir = Files.createTempDirectory("bellwether-stop-");
        RunnerStopKill bench = new RunnerStopKill(dir);
        long[] gone = new long[rounds];
        long[] beforeValidityEnd = new long[rounds];
        long[] beforeSuccessor = new long[rounds];
        try {
            bench.start();
            long epoch = 0;
            for (int r = 0; r < rounds; r++) {
                Round round = bench.round(epoch);
                if (round == null) {
                    err.println("round " + r + " failed (see " + dir + ")");
                    return 1;
                }
                epoch = round.successorEpoch();
                gone[r] = round.goneNanos();
                beforeValidityEnd[r] = round.beforeValidityEndNanos();
                beforeSuccessor[r] = round.beforeSuccessorNanos();
            }
        } finally {
            bench.stop();
            deleteTree(dir);
        }
        out.printf(
                "RunnerStopKill: %d rounds, %s, Java %s, %d cores%n%n",
                rounds,
                LocalDate.now(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        out.println("| measured | rounds | min ms | p50 ms | p99 ms | max ms |");
        out.println("|---|---:|---:|---:|---:|---:|");
        row(out, "SIGSTOP of the leader's runner → command and its child gone", gone);
        row(out, "group gone → the stopped leadership's validity end", beforeValidityEnd);
        row(out, "group gone → the successor's command started", beforeSuccessor);
        return 0;
    }

    private static void row(PrintStream out, String what, long[] nanos) {
        Distribution d = Distribution.of(nanos);
        out.printf(
                Locale.ROOT,
                "| %s | %d | %.1f | %.1f | %.1f | %.1f |%n",
                what,
                d.count(),
                Distribution.millis(d.minNanos()),
                Distribution.millis(d.percentileNanos(50)),
                Distribution.millis(d.percentileNanos(99)),
                Distribution.millis(d.maxNanos()));
    }

    /**
     * One round's figures (nanoseconds).
     *
     * @param successorEpoch the epoch the successor's command runs at
     * @param goneNanos from the signal until the command and its child were gone
     * @param beforeValidityEndNanos from the group gone to the stopped leadership's validity end; negative if after
     * @param beforeSuccessorNanos from the group gone to the successor's command start; negative if after
     */
    private record Round(long successorEpoch, long goneNanos, long beforeValidityEndNanos, long beforeSuccessorNanos) {}

    /** A command start, as the command wrote it. */
    private record Start(long epoch, String node, long pid, long child, Instant at) {}

    private void start() throws IOException {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (String id : IDS) {
            ports.put(id, Ports.free());
            httpPorts.put(id, Ports.free());
        }
        StringBuilder peers = new StringBuilder("peers:\n");
        for (String id : IDS) {
            peers.append("  ").append(id).append(": {address: 127.0.0.1:").append(ports.get(id));
            peers.append(", http: 127.0.0.1:").append(httpPorts.get(id)).append("}\n");
        }
        for (String id : IDS) {
            Path config = dir.resolve(id + ".yaml");
            Files.writeString(
                    config,
                    "cluster: stop\nnode: " + id + "\nlisten: 127.0.0.1:" + ports.get(id) + "\n" + peers
                            + "insecure: true\nstate-dir: " + dir.resolve("data-" + id) + "\n");
            runners.put(id, RunnerProcess.start(config, dir, COMMAND, id));
        }
    }

    private void stop() throws InterruptedException {
        for (Process p : runners.values()) {
            p.destroyForcibly(); // SIGKILL ends a stopped process too
        }
        for (Process p : runners.values()) {
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** One round, its leader's command the first started after {@code afterEpoch}; null if it failed. */
    private Round round(long afterEpoch) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 3 * CEILING_NANOS;
        Optional<Start> current = Optional.empty();
        // Settled: the latest command runs, and every node, the one resumed last round too, names its node leader.
        while (current.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                return null;
            }
            Optional<Start> latest = latestStart();
            if (latest.isPresent()
                    && latest.get().epoch() >= afterEpoch
                    && Processes.running(latest.get().pid())
                    && Processes.running(latest.get().child())
                    && IDS.stream().allMatch(id -> latest.get().node().equals(leaderSeenBy(id)))) {
                current = latest;
            } else {
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        Start leader = current.get();
        long jvm = runners.get(leader.node()).pid();

        long t0 = System.nanoTime();
        signal("-STOP", jvm);
        while (Processes.running(leader.pid()) || Processes.running(leader.child())) {
            if (System.nanoTime() - t0 > CEILING_NANOS) {
                signal("-CONT", jvm);
                return null;
            }
            TimeUnit.MICROSECONDS.sleep(100);
        }
        long goneNanos = System.nanoTime() - t0;
        Instant goneAt = Instant.now();

        Optional<Start> successor = Optional.empty();
        while (successor.isEmpty() && System.nanoTime() - t0 < CEILING_NANOS) {
            successor = latestStart().filter(s -> s.epoch() > leader.epoch());
            TimeUnit.MILLISECONDS.sleep(5);
        }
        signal("-CONT", jvm);
        if (successor.isEmpty()) {
            return null;
        }
        Optional<Instant> validUntil = revokedValidUntil(leader.node(), leader.epoch());
        if (validUntil.isEmpty()) {
            return null;
        }
        return new Round(
                successor.get().epoch(),
                goneNanos,
                Duration.between(goneAt, validUntil.get()).toNanos(),
                Duration.between(goneAt, successor.get().at()).toNanos());
    }

    /** The start with the highest epoch so far. */
    private Optional<Start> latestStart() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("start-"))
                    .map(RunnerStopKill::readStart)
                    .flatMap(Optional::stream)
                    .max(Comparator.comparingLong(Start::epoch));
        }
    }

    private static Optional<Start> readStart(Path file) {
        try {
            String[] f = Files.readString(file).trim().split(" ");
            return Optional.of(new Start(
                    Long.parseLong(file.getFileName().toString().substring("start-".length())),
                    f[0],
                    Long.parseLong(f[1]),
                    Long.parseLong(f[2]),
                    Files.getLastModifiedTime(file).toInstant()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The leader node {@code id} names in its {@code /status}, or null if it does not answer. */
    private String leaderSeenBy(String id) {
        try {
            return json.readTree(get(httpPorts.get(id), "status"))
                    .path("leader")
                    .asText(null);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * The validity end of {@code node}'s leadership at {@code epoch}, from its {@code GET /history} (wall clock):
     * reported once the resumed node has seen that leadership revoked.
     */
    private Optional<Instant> revokedValidUntil(String node, long epoch) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING_NANOS;
        while (System.nanoTime() - deadline < 0) {
            try {
                for (JsonNode change :
                        json.readTree(get(httpPorts.get(node), "history")).path("changes")) {
                    if (change.path("revokedEpoch").asLong(-1) == epoch) {
                        return Optional.of(
                                Instant.parse(change.path("validUntil").asText()));
                    }
                }
            } catch (IOException e) {
                // not answering yet
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return Optional.empty();
    }

    private String get(int port, String path) throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + path))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("/bin/kill", signal, Long.toString(pid))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " " + pid + " failed");
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
