package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.cli.Main;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code bellwether run} nodes in child JVMs (quorum, loopback); the leader's JVM is stopped with SIGSTOP. Its
 * pipe to the reaper stays open, so only the reaper's deadline can end its command before a successor's starts.
 */
@Tag("needs-tcp")
@Timeout(120)
class RunStoppedRunnerTest {
    private static final Duration CEILING = Duration.ofSeconds(30);

    /**
     * The command: at its start it records, in {@code start-EPOCH}, its node, its pid (its group's id), the group of
     * the command that started before it (from {@code current}) and how many processes of that group are alive right
     * now (zombies run nothing and do not count); then it starts a child and waits.
     */
    private static final String COMMAND = "prev=; live=0\n"
            + "[ -f current ] && read -r prevnode prev < current\n"
            + "if [ -n \"$prev\" ]; then\n"
            + "  for f in /proc/[0-9]*/stat; do\n"
            + "    { read -r s < \"$f\"; } 2>/dev/null || continue\n"
            + "    set -- ${s##*) }\n"
            + "    [ \"$3\" = \"$prev\" ] && [ \"$1\" != Z ] && [ \"$1\" != X ] && live=$((live + 1))\n"
            + "  done\n"
            + "fi\n"
            + "sleep 1000 &\n"
            + "echo \"$BELLWETHER_NODE $$ ${prev:-0} $live\" > start.tmp.$$ && mv start.tmp.$$ start-$BELLWETHER_EPOCH\n"
            + "echo \"$BELLWETHER_NODE $$\" > current.tmp.$$ && mv current.tmp.$$ current\n"
            + "wait\n";

    @TempDir
    Path dir;

    private final Map<String, Process> runners = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : runners.values()) {
            p.destroyForcibly(); // SIGKILL ends a stopped process too
        }
        for (Process p : runners.values()) {
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** One command start, as the command recorded it. */
    private record Start(long epoch, String node, long pid, long previousGroup, int previousGroupAlive) {
        static Optional<Start> read(Path file) {
            try {
                String[] f = Files.readString(file).trim().split(" ");
                long epoch = Long.parseLong(file.getFileName().toString().substring("start-".length()));
                return Optional.of(
                        new Start(epoch, f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3])));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    private List<Start> starts() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("start-"))
                    .map(Start::read)
                    .flatMap(Optional::stream)
                    .sorted((a, b) -> Long.compare(a.epoch(), b.epoch()))
                    .toList();
        }
    }

    @Test
    void aStoppedLeadersCommandIsGoneBeforeTheSuccessorsStartsAndTheLeaderRejoinsAsAFollowerWithoutIt()
            throws Exception {
        Map<String, Integer> httpPorts;
        List<String> ids = List.of("n1", "n2", "n3");
        Map<String, Path> configs = new LinkedHashMap<>();
        try (RunCluster cluster = new RunCluster(dir, 3)) {
            for (String id : ids) {
                configs.put(id, cluster.configFile(id));
            }
            httpPorts = cluster.httpPorts;
        }
        for (String id : ids) {
            runners.put(id, startRunner(id, configs.get(id)));
        }

        // Settled: one command runs, and every node knows its node as the leader.
        Start first =
                await().atMost(CEILING).until(this::starts, s -> !s.isEmpty()).get(0);
        String leader = first.node();
        await().atMost(CEILING).ignoreExceptions().until(() -> ids.stream()
                .allMatch(id ->
                        leader.equals(status(httpPorts.get(id)).path("leader").asText())));
        // A runner that answers moves its command's deadline on with each renewal: the command outlives the validity
        // its leadership had when it started (about 1 s with RunCluster's timing) by far.
        await("the first command runs on, alone, for 2 s")
                .during(Duration.ofMillis(2000))
                .atMost(Duration.ofSeconds(5))
                .until(() -> Processes.running(first.pid()) && starts().size() == 1);
        long leaderJvm = runners.get(leader).pid();

        signal("-STOP", leaderJvm);
        Start next =
                await().atMost(CEILING).until(this::starts, s -> s.size() > 1).get(1);
        // The old runner was still stopped when the successor's command started: only its reaper can have acted.
        assertThat(state(leaderJvm)).as("state of the stopped runner's JVM").isEqualTo('T');
        assertThat(next.node()).isNotEqualTo(leader);
        assertThat(next.epoch()).isGreaterThan(first.epoch());
        assertThat(next.previousGroup()).isEqualTo(first.pid());
        assertThat(next.previousGroupAlive())
                .as("processes of the stopped leader's command group alive when the successor's command started")
                .isZero();
        assertThat(ProcessGroups.alive(first.pid())).isFalse();
        assertThat(Files.readString(dir.resolve(leader + ".log")))
                .contains("no word from the runner within")
                .contains("killing process group " + first.pid());

        signal("-CONT", leaderJvm);
        int oldPort = httpPorts.get(leader);
        await().atMost(CEILING).ignoreExceptions().until(() -> {
            JsonNode s = status(oldPort);
            return s.path("role").asText().equals("FOLLOWER")
                    && s.path("leader").asText().equals(next.node())
                    && !s.path("command").path("running").asBoolean(true);
        });
        assertThat(starts()).extracting(Start::node).containsExactly(leader, next.node());
        assertThat(Processes.running(next.pid())).isTrue();
    }

    private Process startRunner(String id, Path config) throws IOException {
        List<String> argv = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        argv.addAll(LocalCluster.NODE_JVM_OPTIONS);
        argv.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "run",
                "--config",
                config.toString(),
                "--grace",
                "100ms",
                "--",
                "sh",
                "-c",
                "cd '" + dir + "' || exit 1\n" + COMMAND));
        return new ProcessBuilder(argv)
                .directory(dir.toFile())
                .redirectOutput(dir.resolve(id + ".out").toFile())
                .redirectError(dir.resolve(id + ".log").toFile())
                .start();
    }

    /** The node's {@code GET /status}; unchecked, for use inside a condition that ignores exceptions. */
    private JsonNode status(int port) {
        try {
            return new ObjectMapper()
                    .readTree(http.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status"))
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("/bin/kill", signal, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }

    /** The state letter of {@code pid} in the process table ({@code T}: stopped). */
    private static char state(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }
}
