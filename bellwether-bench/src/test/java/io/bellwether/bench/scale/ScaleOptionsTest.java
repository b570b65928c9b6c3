package io.bellwether.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ScaleOptionsTest {
    @Test
    void defaultsApplyToWhatIsNotGiven() {
        ScaleOptions o = ScaleOptions.parse("--groups", "10,100,1000");
        assertThat(o)
                .isEqualTo(new ScaleOptions(
                        List.of(10, 100, 1000),
                        3,
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(120),
                        1,
                        "512m",
                        Duration.ofSeconds(2),
                        false));
    }

    @Test
    void everyOptionIsRead() {
        ScaleOptions o = ScaleOptions.parse(
                "--groups",
                "5",
                "--nodes",
                "5",
                "--idle-seconds",
                "2",
                "--ceiling-seconds",
                "9",
                "--trials",
                "3",
                "--xmx",
                "2g",
                "--pause-ms",
                "0",
                "--spread",
                "true");
        assertThat(o)
                .isEqualTo(new ScaleOptions(
                        List.of(5), 5, Duration.ofSeconds(2), Duration.ofSeconds(9), 3, "2g", Duration.ZERO, true));
    }

    @Test
    void badValuesNameTheOptionAndTheAllowedRange() {
        assertThatThrownBy(ScaleOptions::parse).hasMessageContaining("--groups is required");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "0"))
                .hasMessageContaining("--groups = 0 is out of range: allowed 1 to 20000");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "10,,20"))
                .hasMessageContaining("--groups = '' is not a whole number");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "5", "--nodes", "2"))
                .hasMessageContaining("--nodes = 2 is out of range: allowed 3 to 9");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "5", "--spread", "yes"))
                .hasMessageContaining("--spread = 'yes': allowed true or false");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "5", "--xmx", "lots"))
                .hasMessageContaining("--xmx = 'lots'");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "5", "--trials"))
                .hasMessageContaining("--trials needs a value");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "5", "--groups", "6"))
                .hasMessageContaining("--groups is given twice");
        assertThatThrownBy(() -> ScaleOptions.parse("--group", "5")).hasMessageContaining("unknown option '--group'");
        assertThatThrownBy(() -> ScaleOptions.parse("--groups", "5", "--pause-ms", "60001"))
                .hasMessageContaining("--pause-ms = 60001 is out of range: allowed 0 to 60000");
    }

    @Test
    void memberJvmOptionsAreTheDemoNodesWithTheGivenHeap() {
        List<String> options = ScaleTrial.jvmOptions("768m");
        assertThat(options).contains("-Xmx768m", "-XX:+ExitOnOutOfMemoryError").noneMatch(o -> o.equals("-Xmx64m"));
    }

    @Test
    void rowsFormatFiguresAsRangesAndTheNeverCase() {
        ScaleResult agreed = new ScaleResult(
                1000,
                3,
                OptionalLong.of(9_140_000_000L),
                1000,
                1000,
                Duration.ofSeconds(120),
                List.of(
                        new ScaleResult.MemberUsage(1287, 462.2, 24.71),
                        new ScaleResult.MemberUsage(1484, 467.4, 28.94)),
                List.of(340, 310, 350),
                Optional.of(new ScaleResult.Pause(Duration.ofSeconds(2), List.of(300_000_000L, 900_000_000L), 0, 2)),
                Optional.of(new ScaleResult.Failover("n2", List.of(700_000_000L, 722_000_000L, 1_226_000_000L), 0)),
                1.5);
        assertThat(ScaleTable.row(agreed))
                .isEqualTo(
                        "| 1 000 | 9.1 s | 1287–1484 | 462–467 | 24.7–28.9 | 310 – 350 | 2.0 s pause: 300 / 900 / 900 ms (2 groups, 2"
                                + " new leaders) | 722 / 1226 / 1226 ms (3 groups) | 1.50 |");

        ScaleResult never = new ScaleResult(
                3000,
                3,
                OptionalLong.empty(),
                0,
                19,
                Duration.ofSeconds(120),
                List.of(new ScaleResult.MemberUsage(4346, 639, 53)),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                2);
        assertThat(ScaleTable.row(never))
                .isEqualTo(
                        "| 3 000 | never: 0 of 3 000 led after 120 s (at most 19 at once) | 4346 | 639 | 53.0 | — | — | — | 2.00 |");
    }
}
