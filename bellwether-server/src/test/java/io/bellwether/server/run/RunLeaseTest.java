package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Leadership;
import io.bellwether.RevocationReason;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import io.bellwether.testkit.Ports;
import io.bellwether.testkit.Services;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner on a lease node on the real PostgreSQL (127.0.0.1:5432, database {@code test}, a table of its own): when
 * another holder takes the row, the command and its child are gone before the leadership's validity ends.
 */
@Timeout(300)
class RunLeaseTest {
    private static final String PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final Duration CEILING = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final String table =
            "run_lease_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 4);
    private NodeDaemon daemon;
    private CommandRunner runner;

    @AfterEach
    void stop() throws Exception {
        if (runner != null) {
            runner.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    @Test
    void aHolderWhoseRowIsTakenHasItsCommandAndItsChildGoneBeforeTheValidityEnds() throws Exception {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
        String yaml = "cluster: run\nnode: n1\nalgorithm: lease\nhttp: 127.0.0.1:" + Ports.free() + "\nlease:\n"
                + "  store: '" + PG_URL + "'\n  table: " + table + "\n  create-schema: true\n  duration: 3s\n";
        NodeConfig config = ConfigLoader.parse(yaml, dir, "n1.yaml");
        RunOptions options = RunCluster.options(
                Duration.ofMillis(300),
                null,
                "sh",
                "-c",
                "cd '" + dir + "' || exit 1; sleep 1000 & echo $! > child; echo $$ > pid; wait");
        RunPlan plan = RunPlan.of(config, options);
        daemon = NodeDaemon.start(config, plan.revocationLead());
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        runner = new CommandRunner(daemon.election(), options, plan, holdOff -> {}, daemon.meterRegistry(), out, out);
        runner.start();
        Leadership leadership = await().atMost(CEILING)
                .until(() -> daemon.election().leadership(), Optional::isPresent)
                .orElseThrow();
        long pid = pidIn("pid");
        long child = pidIn("child");
        assertThat(CommandRunnerTest.alive(pid)).isTrue();
        CompletableFuture<RevocationReason> revoked = leadership.revoked().toCompletableFuture();

        // Another holder takes the row, as if this node's lease had expired and another contender had won it.
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement()) {
            assertThat(s.executeUpdate("UPDATE " + table + " SET holder = 'intruder-0', token = token + 1,"
                            + " expires_at = expires_at + 600000"))
                    .isEqualTo(1);
        }
        revoked.get(CEILING.toSeconds(), TimeUnit.SECONDS);
        long deadline = System.nanoTime() + CEILING.toNanos();
        while (CommandRunnerTest.alive(pid) || CommandRunnerTest.alive(child)) {
            assertThat(System.nanoTime() - deadline)
                    .as("the command is still alive after %s", CEILING)
                    .isNegative();
            Thread.onSpinWait();
        }
        assertThat(System.nanoTime() - leadership.validUntilNanos())
                .as("gone before the leadership's validity ended")
                .isNegative();
        await().atMost(CEILING).until(() -> runner.status().path("lastStop").isObject());
        assertThat(runner.status()
                        .path("lastStop")
                        .path("goneBeforeValidUntilMs")
                        .asLong())
                .isNotNegative();
        assertThat(List.of(pid, child)).noneMatch(CommandRunnerTest::alive);
    }

    private long pidIn(String file) {
        Path path = dir.resolve(file);
        return await().atMost(CEILING)
                .ignoreExceptions()
                .until(() -> Long.parseLong(Files.readString(path).trim()), p -> p > 0);
    }
}
