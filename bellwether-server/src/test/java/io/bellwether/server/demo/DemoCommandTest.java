package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.Main;
import io.bellwether.server.cli.MainTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DemoCommandTest {
    @Test
    void anUnknownAlgorithmIsRefusedNamingTheAvailableOnes() {
        MainTest.Outcome o = MainTest.run("demo", "--algorithm", "paxos");

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
        MainTest.Outcome o = DemoRun.until(knownByAll, "--algorithm", "lease", "--nodes", "3");

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
