package io.bellwether.server.report;

import static io.bellwether.server.report.Runs.MS;
import static io.bellwether.server.report.Runs.failover;
import static io.bellwether.server.report.Runs.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.sim.FaultKind;
import io.bellwether.sim.HistoryEntry;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;

class HtmlReportTest {
    private static final List<HistoryEntry> HISTORY = List.of(
            new HistoryEntry(0, "n1", "role", 0, "DORMANT -> FOLLOWER STARTED"),
            new HistoryEntry(0, "n2", "role", 0, "DORMANT -> FOLLOWER STARTED"),
            new HistoryEntry(420 * MS, "n1", "role", 1, "FOLLOWER -> CANDIDATE CAMPAIGNING"),
            new HistoryEntry(450 * MS, "n1", "role", 1, "CANDIDATE -> LEADER ELECTED"),
            new HistoryEntry(460 * MS, "n2", "role", 1, "FOLLOWER leader=n1 LEADER_DISCOVERED"),
            new HistoryEntry(900 * MS, "-", "crash", 0, "n1 <crashed> & \"gone\""),
            new HistoryEntry(1000 * MS, "n2", "role", 2, "FOLLOWER -> LEADER ELECTED"),
            new HistoryEntry(1500 * MS, "-", "partition", 0, "{n1} | {n2}"));

    private static RunResult runWithHistory() {
        return new RunResult(
                42,
                List.of(),
                2,
                20,
                60,
                List.of(failover(FaultKind.CRASH, 100, 10)),
                900,
                200 * MS,
                HISTORY,
                0,
                0,
                0,
                0,
                List.of());
    }

    private static SimulationSummary summaryWithHostileText() {
        Violation v = new Violation(
                "one-leader-per-term",
                42,
                "<script>alert('x')</script> & friends",
                HISTORY.subList(4, 6),
                "./bellwether simulate --seed-start 42 --seeds 1 --faults \"crash\"");
        RunResult violating =
                new RunResult(42, List.of(v), 2, 20, 60, List.of(), 900, -1, List.of(), 0, 0, 0, 0, List.of());
        return SimulationSummary.of(
                "quorum",
                2,
                FaultKind.all(),
                41,
                2,
                List.of(ok(41, 2, 18, 150 * MS, failover(FaultKind.CRASH, 90, 9)), violating));
    }

    @Test
    void reportIsSelfContained() {
        String html = HtmlReport.render(summaryWithHostileText(), runWithHistory(), "the first violating seed");

        assertThat(html).startsWith("<!DOCTYPE html>");
        assertThat(html).doesNotContain("http://", "https://", "<script src", "<link", "@import", "url(");
        assertThat(html).contains("<style>", "<svg");
    }

    @Test
    void reportEscapesEveryPieceOfText() {
        String html = HtmlReport.render(summaryWithHostileText(), runWithHistory(), "why <b>this</b>");

        assertThat(html).doesNotContain("<script>", "<b>this</b>", "<crashed>");
        assertThat(html).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; friends");
        assertThat(html).contains("why &lt;b&gt;this&lt;/b&gt;");
        assertThat(html).contains("--faults &quot;crash&quot;");
    }

    @Test
    void reportDrawsOneLanePerNodeWithEpochLabelsAndFaultMarkers() {
        String html = HtmlReport.render(summaryWithHostileText(), runWithHistory(), "first violating seed");

        assertThat(html).contains(">n1</text>", ">n2</text>");
        assertThat(html).contains(">e1</text>", ">e2</text>");
        assertThat(html).contains("n1 leader epoch 1, 450.0–900.0 ms");
        assertThat(html).contains(">partition</text>", ">crash</text>");
        assertThat(html).contains("Failover times");
    }

    @Test
    void timelineFollowsRoleChangesAndEndsALaneAtItsNodesCrash() {
        Timeline t = Timeline.of(HISTORY);

        assertThat(t.lanes()).containsOnlyKeys("n1", "n2");
        List<Timeline.Span> n1 = t.lanes().get("n1");
        assertThat(n1)
                .extracting(s -> s.down() ? "down" : s.role().name() + "@" + s.epoch())
                .containsExactly("FOLLOWER@0", "CANDIDATE@1", "LEADER@1", "down");
        assertThat(n1.get(2).endNanos()).isEqualTo(900 * MS);
        assertThat(t.lanes().get("n2"))
                .extracting(s -> s.role().name() + "@" + s.epoch())
                .containsExactly("FOLLOWER@0", "FOLLOWER@1", "LEADER@2");
        assertThat(t.markers()).extracting(Timeline.Marker::event).containsExactly("crash", "partition");
        assertThat(t.endNanos()).isEqualTo(1500 * MS);
    }

    @Test
    void lanesAreInNaturalNodeOrder() {
        Timeline t = Timeline.of(List.of(
                new HistoryEntry(1, "n10", "role", 0, "FOLLOWER"),
                new HistoryEntry(1, "n2", "role", 0, "FOLLOWER"),
                new HistoryEntry(1, "n1", "role", 0, "FOLLOWER")));

        assertThat(t.lanes().keySet()).containsExactly("n1", "n2", "n10");
    }

    @Test
    void aRunWithoutFailoversSaysSoInsteadOfDrawingAnEmptyHistogram() {
        SimulationSummary s = SimulationSummary.of("quorum", 3, FaultKind.all(), 1, 1, List.of(ok(1, 1, 5, 0)));

        String html = HtmlReport.render(s, ok(1, 1, 5, 0), "first seed");

        assertThat(html).contains("No fault hit a leader").contains("recorded no node events");
    }
}
