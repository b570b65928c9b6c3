package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.Main;
import io.bellwether.testkit.Ports;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Bad options of {@code bellwether run}: exit status 2, a message naming the option and what is allowed, nothing started. */
@Timeout(60) // a refusal is immediate; an option that slipped through would start the node and block
class RunCommandValidationTest {
    @TempDir
    Path dir;

    private Path config;
    private int peerPort;
    private int httpPort;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void writeConfig() throws Exception {
        peerPort = Ports.free();
        httpPort = Ports.free();
        config = dir.resolve("n1.yaml");
        Files.writeString(
                config,
                "cluster: run\nnode: n1\nlisten: 127.0.0.1:" + peerPort + "\npeers:\n  n1: {address: 127.0.0.1:"
                        + peerPort + ", http: 127.0.0.1:" + httpPort + "}\ninsecure: true\nstate-dir: data\n");
    }

    private int run(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "run";
        all[1] = "--config";
        all[2] = config.toString();
        System.arraycopy(args, 0, all, 3, args.length);
        int status = Main.execute(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                all);
        return status;
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Nothing started: the node's ports are free and no state directory was made. */
    private void assertNothingStarted() throws Exception {
        for (int port : new int[] {peerPort, httpPort}) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", port));
            }
        }
        assertThat(dir.resolve("data")).doesNotExist();
    }

    @Test
    void aMissingCommandIsRefused() throws Exception {
        assertThat(run("--grace", "50ms")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("COMMAND is missing").contains("after '--'");
        assertNothingStarted();
    }

    @Test
    void everythingFromTheFirstPositionalArgumentOnBelongsToTheCommandEvenWithoutDashDash() throws Exception {
        // --foo is the command's option, not run's: what is refused is the grace, checked before anything starts.
        assertThat(run("--grace", "11m", "sleep", "--foo", "1")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("--grace = 11m").doesNotContain("--foo");
        assertNothingStarted();
    }

    @Test
    void anUnknownOnExitIsRefusedWithTheValuesAllowed() throws Exception {
        assertThat(run("--on-exit", "retry", "--", "true")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("--on-exit = 'retry'").contains("allowed resign, restart, stay");
        assertNothingStarted();
    }

    @Test
    void aNegativeGraceIsRefusedWithTheRange() throws Exception {
        assertThat(run("--grace", "-5s", "--", "true")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("--grace = '-5s'").contains("allowed 0ms – 10m");
        assertNothingStarted();
    }

    @Test
    void anOversizedGraceIsRefusedWithTheRange() throws Exception {
        assertThat(run("--grace", "11m", "--", "true")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).contains("--grace = 11m is out of range").contains("allowed 0ms – 10m");
        assertNothingStarted();
    }

    @Test
    void aGraceLongerThanTheAlgorithmAllowsIsRefusedNamingBothKeys() throws Exception {
        assertThat(run("--grace", "5s", "--", "true")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err())
                .contains("--grace = 5s does not fit quorum's timing")
                .contains("quorum.heartbeat-interval")
                .contains("allowed --grace 0ms – 126ms");
        assertNothingStarted();
    }
}
