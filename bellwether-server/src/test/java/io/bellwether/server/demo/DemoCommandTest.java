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

    /**
     * The README's main job: {@code demo --chaos}. It must strike the leader both ways (kill -9 and SIGSTOP), see
     * another member elected and time it, bring the struck nodes back, never report two leaders for one epoch,
     * and leave no process or file behind when stopped.
     */
    @Test
    @Tag("processes")
    @Timeout(900)
    void theChaosStrikesTheLeaderBothWaysAndBringsNodesBackThenStoppingLeavesNothingBehind() throws Exception {
        Pattern fullCycle = Pattern.compile("(?s)(?=.*elected \\d+ ms after kill -9 of n\\d)"
                + "(?=.*elected \\d+ ms after SIGSTOP of n\\d)"
                + "(?=.*chaos: restarted n\\d.*known by all 3 live nodes)(?=.*chaos: resumed n\\d)");
        MainTest.Outcome o =
                DemoRun.until(fullCycle, "--nodes", "3", "--chaos", "--chaos-interval", "1s", "--seed", "7");

        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out())
                .contains("Chaos: on, seed 7 (replay with --seed 7)")
                .containsPattern(fullCycle)
                .containsPattern("chaos: kill -9 n\\d \\(the leader\\)")
                .containsPattern("chaos: SIGSTOP n\\d \\(the leader\\)");

        // What the chaos strikes as the leader is the leader the demo last reported (the failover it times is the
        // one it caused), and no epoch has two leaders.
        Pattern reported = Pattern.compile("(n\\d) leads at epoch (\\d+),");
        Pattern struck = Pattern.compile("chaos: (?:kill -9|SIGSTOP) (n\\d) \\(the leader\\)");
        java.util.Map<Long, String> leaders = new java.util.HashMap<>();
        String lastReported = null;
        for (String line : o.out().split("\n")) {
            Matcher led = reported.matcher(line);
            if (led.find()) {
                lastReported = led.group(1);
                String before = leaders.putIfAbsent(Long.parseLong(led.group(2)), lastReported);
                assertThat(before).as("epoch %s: %s", led.group(2), o.out()).isIn(null, lastReported);
            }
            Matcher strike = struck.matcher(line);
            if (strike.find()) {
                assertThat(strike.group(1)).as("%s%nin:%n%s", line, o.out()).isEqualTo(lastReported);
            }
        }
        assertThat(leaders).as(o.out()).isNotEmpty();

        // Every process it started, restarted ones included, is gone, and so are its files.
        Matcher stopped =
                Pattern.compile("Stopped every node and removed (\\S+)").matcher(o.out());
        assertThat(stopped.find()).as(o.out()).isTrue();
        assertThat(java.nio.file.Path.of(stopped.group(1))).doesNotExist();
        Matcher ports = Pattern.compile("peer 127\\.0\\.0\\.1:(\\d+)  http http://127\\.0\\.0\\.1:(\\d+)/")
                .matcher(o.out());
        int members = 0;
        while (ports.find()) {
            members++;
            assertThat(isListening(Integer.parseInt(ports.group(1))))
                    .as(ports.group())
                    .isFalse();
            assertThat(isListening(Integer.parseInt(ports.group(2))))
                    .as(ports.group())
                    .isFalse();
        }
        assertThat(members).isEqualTo(3);
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
