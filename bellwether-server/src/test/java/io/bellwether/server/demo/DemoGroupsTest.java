package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.Main;
import io.bellwether.server.cli.MainTest;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code bellwether demo --groups N}: every node hosts N groups, and the demo prints summaries, not elections. */
class DemoGroupsTest {
    /** A summary of 50 groups all led, each of the 3 members leading some. */
    private static final Pattern SPREAD =
            Pattern.compile("50 groups: all led — n1 ([1-9]\\d*), n2 ([1-9]\\d*), n3 ([1-9]\\d*)\\n");

    @Test
    void groupsOutOfRangeAreRefused() {
        for (String groups : new String[] {"0", "-3", "10001"}) {
            MainTest.Outcome o = MainTest.run("demo", "--groups", groups);
            assertThat(o.exitCode()).as(o.err()).isEqualTo(Main.EXIT_USAGE);
            assertThat(o.err()).contains("--groups must be 1 to 10000, was " + groups);
        }
    }

    @Test
    void aLeaseStoreTakesAtMostAHundredGroups() {
        MainTest.Outcome o = MainTest.run("demo", "--algorithm", "lease", "--groups", "101");

        assertThat(o.exitCode()).as(o.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(o.err())
                .contains("--groups with --algorithm lease must be 1 to 100 (every group polls the lease store),"
                        + " was 101");
    }

    @Test
    void runTakesOneGroupOnly() {
        MainTest.Outcome o = MainTest.run("demo", "--groups", "2", "--run", "--", "./job.sh");

        assertThat(o.exitCode()).as(o.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(o.err()).contains("--run takes one group only (its leader runs the command), was --groups 2");
    }

    /** Every group gets a leader, the leaders spread over every member, and no line per election is printed. */
    @Test
    @Tag("processes")
    @Timeout(300)
    void fiftyGroupsAreAllLedWithTheirLeadersSpreadOverEveryMember() throws Exception {
        MainTest.Outcome o = DemoRun.until(SPREAD, "--nodes", "3", "--groups", "50", "--duration", "120s");

        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out())
                .contains("Started 3 quorum nodes on 127.0.0.1, 50 groups each")
                .containsPattern(SPREAD)
                .doesNotContain("leads at epoch")
                .contains("Stopped every node");
        Matcher spread = SPREAD.matcher(o.out());
        assertThat(spread.find()).isTrue();
        int sum = 0;
        for (int i = 1; i <= 3; i++) {
            sum += Integer.parseInt(spread.group(i));
        }
        assertThat(sum).as(o.out()).isEqualTo(50);
        assertStoppedCleanly(o.out());
    }

    /**
     * With {@code --chaos}, a kill -9 of a member leading groups is followed by a line saying how many of its groups
     * were led again and how long that took.
     */
    @Test
    @Tag("processes")
    @Timeout(300)
    void aKilledMembersGroupsAreReLedAndTheWaveIsTimed() throws Exception {
        Pattern reLed = Pattern.compile("kill -9 of (n\\d): \\1's (\\d+) groups re-led in p50 (\\d+) ms, max (\\d+) ms"
                + " after the fault \\(from each new leader's leaderSince\\)");
        MainTest.Outcome o = DemoRun.until(
                reLed,
                "--nodes",
                "3",
                "--groups",
                "50",
                "--chaos",
                "--chaos-interval",
                "1s",
                "--seed",
                "7",
                "--duration",
                "120s");

        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("Chaos: on, seed 7").contains("50 groups: all led — ");
        Matcher wave = reLed.matcher(o.out());
        assertThat(wave.find()).as(o.out()).isTrue();
        String victim = wave.group(1);
        int groups = Integer.parseInt(wave.group(2));
        // The strike said how many groups the victim led; every one timed was among them.
        Matcher strike = Pattern.compile("chaos: kill -9 " + victim + " \\(leads (\\d+) groups")
                .matcher(o.out().substring(0, wave.start()));
        int led = -1;
        while (strike.find()) {
            led = Integer.parseInt(strike.group(1));
        }
        assertThat(groups).as(o.out()).isPositive().isLessThanOrEqualTo(led);
        assertThat(Long.parseLong(wave.group(3))).isLessThanOrEqualTo(Long.parseLong(wave.group(4)));
        assertStoppedCleanly(o.out());
    }

    private static void assertStoppedCleanly(String out) {
        Matcher stopped =
                Pattern.compile("Stopped every node and removed (\\S+)").matcher(out);
        assertThat(stopped.find()).as(out).isTrue();
        assertThat(Path.of(stopped.group(1))).doesNotExist();
    }
}
