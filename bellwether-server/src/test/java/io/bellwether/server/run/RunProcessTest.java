package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.cli.Main;
import io.bellwether.server.demo.LocalCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code bellwether run} in a child JVM, killed with SIGKILL: its command and the command's child die with it. */
@Tag("needs-tcp")
@Timeout(300)
class RunProcessTest {
    private static final Duration CEILING = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private Process runner;

    @AfterEach
    void stop() throws InterruptedException {
        if (runner != null) {
            runner.destroyForcibly();
            runner.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void killMinusNineOfTheRunnerTakesItsCommandAndTheCommandsChildWithIt() throws Exception {
        Path config;
        int httpPort;
        try (RunCluster one = new RunCluster(dir, 1)) {
            config = one.configFile("n1");
            httpPort = one.httpPorts.get("n1");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> argv = new ArrayList<>(List.of(java));
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
                "cd '" + dir + "' || exit 1; sleep 1000 & echo $! > child; echo $$ > pid; wait"));
        runner = new ProcessBuilder(argv)
                .redirectOutput(dir.resolve("run.out").toFile())
                .redirectError(dir.resolve("run.log").toFile())
                .start();
        long pid = pidIn("pid");
        long child = pidIn("child");
        assertThat(CommandRunnerTest.alive(pid)).isTrue();
        assertThat(CommandRunnerTest.alive(child)).isTrue();
        // The node reports its command in /status and /metrics.
        HttpClient http = HttpClient.newHttpClient();
        JsonNode command =
                new ObjectMapper().readTree(get(http, httpPort, "status")).path("command");
        assertThat(command.path("running").asBoolean()).isTrue();
        assertThat(command.path("pid").asLong()).isEqualTo(pid);
        assertThat(get(http, httpPort, "metrics")).containsPattern("bellwether_command_running\\{[^}]*} 1.0");

        runner.destroyForcibly(); // SIGKILL: no shutdown hook, no signal handler runs
        assertThat(runner.waitFor(CEILING.toSeconds(), TimeUnit.SECONDS)).isTrue();

        await().atMost(CEILING)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> !CommandRunnerTest.alive(pid) && !CommandRunnerTest.alive(child));
    }

    private static String get(HttpClient http, int port, String path) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private long pidIn(String file) {
        Path path = dir.resolve(file);
        return await().atMost(CEILING)
                .ignoreExceptions()
                .until(() -> Long.parseLong(Files.readString(path).trim()), p -> p > 0);
    }
}
