package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.Main;
import io.bellwether.server.cli.MainTest;
import io.bellwether.testkit.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
    @Test
    void anUnknownAlgorithmIsRefusedNamingTheAvailableOnes() {
        MainTest.Outcome o = MainTest.run("demo", "--algorithm", "paxos");

        assertThat(o.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(o.err()).contains("--algorithm must be one of: quorum, bully, ring, invitation, lease, was 'paxos'");
    }

    @Test
    void runWithoutACommandAndACommandWithoutRunAreRefused() {
        MainTest.Outcome noCommand = MainTest.run("demo", "--run");
        assertThat(noCommand.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(noCommand.err()).contains("--run needs the COMMAND to run after --");

        MainTest.Outcome noRun = MainTest.run("demo", "--", "./job.sh");
        assertThat(noRun.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(noRun.err()).contains("a COMMAND (./job.sh) is run only with --run");
    }

    /**
     * {@code demo --run -- COMMAND}: the leader runs the command with its epoch and node in the environment, and
     * stopping the demo leaves no command running.
     */
    @Test
    @Tag("processes")
    @Timeout(900)
    void theRunDemoHasItsLeaderRunTheCommandAndStoppingItLeavesNoCommandBehind(@TempDir Path dir) throws Exception {
        Pattern ran = Pattern.compile("n\\d leads at epoch \\d+, (now )?known by all 3 live nodes");
        String script = "echo \"$BELLWETHER_NODE $BELLWETHER_EPOCH $$\" > '" + dir + "'/ran-$BELLWETHER_NODE.tmp"
                + " && mv '" + dir + "'/ran-$BELLWETHER_NODE.tmp '" + dir + "'/ran-$BELLWETHER_NODE; exec sleep 1000";
        java.util.function.BooleanSupplier commandRan = () -> {
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                return files.anyMatch(f -> f.getFileName().toString().matches("ran-n\\d"));
            } catch (java.io.IOException e) {
                return false;
            }
        };
        MainTest.Outcome o = DemoRun.until(ran, commandRan, "--nodes", "3", "--run", "--", "sh", "-c", script);

        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("Each leader runs: sh -c").contains("Stopped every node");
        Matcher leader = ran.matcher(o.out());
        assertThat(leader.find()).isTrue();
        String node = leader.group().substring(0, 2);
        long epoch = Long.parseLong(leader.group().replaceAll(".* at epoch (\\d+),.*", "$1"));
        Path file = dir.resolve("ran-" + node);
        assertThat(file).as("the leader ran the command").exists();
        String[] fields = Files.readString(file).trim().split(" ");
        assertThat(fields[0]).isEqualTo(node);
        assertThat(Long.parseLong(fields[1])).isEqualTo(epoch);
        long pid = Long.parseLong(fields[2]);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (Processes.running(pid) && System.nanoTime() < deadline) {
            Thread.sleep(10); // a bounded poll of the process table, which has no event to wait for
        }
        assertThat(Processes.running(pid))
                .as("the command (pid %d) is gone with the demo", pid)
                .isFalse();
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
