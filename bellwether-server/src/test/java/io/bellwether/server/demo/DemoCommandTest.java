package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DemoCommandTest {
    private record Outcome(int exitCode, String out, String err) {}

    private static Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.execute(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                args);
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownAlgorithmIsRefusedNamingTheAvailableOnes() {
        Outcome o = run("demo", "--algorithm", "paxos");

        assertThat(o.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(o.err()).contains("--algorithm must be one of: quorum, bully, ring, invitation, lease, was 'paxos'");
    }

    @Test
    @Tag("processes")
    @Timeout(900)
    void theLeaseDemoRunsItsOwnDatabaseAndShowsAHolderThenStopsIt() throws Exception {
        // On a loaded machine a node may answer only after the leader was first reported; the demo then reports
        // again when every live node knows it.
        Pattern knownByAll = Pattern.compile("n\\d leads at epoch \\d+, (now )?known by all 3 live nodes");
        DemoRun.Outcome o = DemoRun.until(knownByAll, "--algorithm", "lease", "--nodes", "3");

        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out())
                .contains("Started 3 lease nodes")
                .containsPattern(knownByAll)
                .contains("Stopped every node");
        Matcher url =
                Pattern.compile("H2 at jdbc:h2:tcp://127\\.0\\.0\\.1:(\\d+)/").matcher(o.out());
        assertThat(url.find()).as(o.out()).isTrue();
        int port = Integer.parseInt(url.group(1));
        // The database server went away with the demo.
        assertThat(isListening(port)).isFalse();
    }

    private static boolean isListening(int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
