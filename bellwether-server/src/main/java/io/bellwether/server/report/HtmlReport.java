package io.bellwether.server.report;

import io.bellwether.Role;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.HistoryEntry;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.Violation;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link SimulationSummary} as one self-contained HTML page: inline CSS and SVG only, no scripts,
 * fonts or other URLs, so that it can be attached to an issue or opened offline. It shows the summary
 * figures, the leadership timeline of one run and a histogram of failover times.
 */
public final class HtmlReport {
    private static final int WIDTH = 1000;
    private static final int LABEL_WIDTH = 60;
    private static final int LANE_HEIGHT = 26;
    private static final int AXIS_HEIGHT = 24;
    private static final int MARKER_LABEL_HEIGHT = 16;

    private HtmlReport() {}

    /**
     * @param summary the exploration's figures
     * @param run the run whose timeline is drawn, re-run with its history kept
     * @param why why this run was chosen, shown under the timeline's heading
     */
    public static String render(SimulationSummary summary, RunResult run, String why) {
        StringBuilder h = new StringBuilder(64 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        h.append("<title>Bellwether simulation: ")
                .append(esc(summary.algorithm()))
                .append(", ")
                .append(summary.nodes())
                .append(" nodes</title>\n");
        h.append(
                """
                <style>
                body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2933;max-width:1100px}
                h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
                table{border-collapse:collapse;margin:8px 0}
                th,td{border:1px solid #d0d7de;padding:3px 10px;text-align:right}
                th:first-child,td:first-child{text-align:left}
                th{background:#f3f4f6}
                pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px}
                .ok{color:#1b7f3b;font-weight:bold}.bad{color:#b42318;font-weight:bold}
                .legend span{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px;border:1px solid #888}
                .note{color:#52606d;font-size:.9em}
                svg text{font-family:system-ui,sans-serif}
                </style>
                </head>
                <body>
                """);
        h.append("<h1>Bellwether simulation: ")
                .append(esc(summary.algorithm()))
                .append(", ")
                .append(summary.nodes())
                .append(" nodes</h1>\n");
        h.append("<p>Seeds ")
                .append(summary.seedStart())
                .append("..")
                .append(summary.seedStart() + summary.seeds() - 1)
                .append(" (")
                .append(summary.seeds())
                .append(" runs), faults <code>")
                .append(esc(summary.faultsText()))
                .append("</code>. ");
        if (summary.totalViolations() == 0) {
            h.append("<span class=\"ok\">No invariant was violated.</span></p>\n");
        } else {
            h.append("<span class=\"bad\">").append(summary.totalViolations()).append(" violation(s).</span></p>\n");
        }
        summaryTable(h, summary);
        timeline(h, run, why);
        histogram(h, summary.failover());
        violations(h, summary);
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    private static void summaryTable(StringBuilder h, SimulationSummary s) {
        h.append("<h2>Summary</h2>\n<table>\n");
        row(h, "runs", String.valueOf(s.runs()));
        row(
                h,
                "violations",
                s.violations().isEmpty() ? "0" : s.violations().size() + " (in " + s.violatingRuns() + " runs)");
        row(h, "elections", String.valueOf(s.elections()));
        row(
                h,
                "messages per election",
                s.messagesPerElection().isPresent()
                        ? fmt(s.messagesPerElection().getAsDouble())
                        : "-");
        Distribution c = s.convergence();
        row(
                h,
                "convergence after faults (ms)",
                c.isEmpty()
                        ? "-"
                        : "median " + ms(c.percentileNanos(50)) + ", max " + ms(c.maxNanos()) + " (" + s.notConverged()
                                + " runs did not converge)");
        s.exhaustive()
                .ifPresent(r -> row(
                        h,
                        "exhaustive (" + r.nodes() + " nodes, depth " + r.depth() + ")",
                        r.paths() + " paths, " + r.distinctStates() + " states, "
                                + r.violations().size() + " violations"));
        h.append("</table>\n");

        h.append(
                "<table>\n<tr><th>failover (virtual ms)</th><th>count</th><th>p50</th><th>p99</th><th>max</th></tr>\n");
        for (Map.Entry<FaultKind, Distribution> e : s.failoverByFault().entrySet()) {
            failoverRow(h, e.getKey().cliName(), e.getValue());
        }
        failoverRow(h, "all", s.failover());
        h.append("</table>\n");
    }

    private static void row(StringBuilder h, String label, String value) {
        h.append("<tr><td>")
                .append(esc(label))
                .append("</td><td>")
                .append(esc(value))
                .append("</td></tr>\n");
    }

    private static void failoverRow(StringBuilder h, String label, Distribution d) {
        h.append("<tr><td>")
                .append(esc(label))
                .append("</td><td>")
                .append(d.count())
                .append("</td>");
        if (d.isEmpty()) {
            h.append("<td>-</td><td>-</td><td>-</td>");
        } else {
            h.append(headline("<td>%s</td><td>%s</td><td>%s</td>", d));
        }
        h.append("</tr>\n");
    }

    private static void timeline(StringBuilder h, RunResult run, String why) {
        Timeline timeline = Timeline.of(run.history());
        h.append("<h2>Leadership timeline, seed ").append(run.seed()).append("</h2>\n");
        h.append("<p class=\"note\">").append(esc(why)).append("</p>\n");
        h.append("<p class=\"legend\">");
        for (Role role : List.of(Role.LEADER, Role.CANDIDATE, Role.FOLLOWER)) {
            h.append("<span style=\"background:")
                    .append(color(role, false))
                    .append("\"></span>")
                    .append(role.name().toLowerCase(Locale.ROOT));
        }
        h.append("<span style=\"background:").append(color(null, true)).append("\"></span>down");
        h.append(" &nbsp; labels: e<i>N</i> = epoch; dashed lines = faults (hover for details)</p>\n");
        if (timeline.lanes().isEmpty()) {
            h.append("<p>The run recorded no node events.</p>\n");
            return;
        }

        int lanes = timeline.lanes().size();
        int top = MARKER_LABEL_HEIGHT;
        int height = top + lanes * LANE_HEIGHT + AXIS_HEIGHT;
        double plotWidth = WIDTH - LABEL_WIDTH - 10;
        double scale = plotWidth / timeline.endNanos();
        openSvg(h, height);
        int lane = 0;
        for (Map.Entry<String, List<Timeline.Span>> e : timeline.lanes().entrySet()) {
            int y = top + lane * LANE_HEIGHT;
            h.append("<text x=\"4\" y=\"")
                    .append(y + LANE_HEIGHT / 2 + 4)
                    .append("\" font-size=\"12\">")
                    .append(esc(e.getKey()))
                    .append("</text>\n");
            h.append("<line x1=\"")
                    .append(LABEL_WIDTH)
                    .append("\" y1=\"")
                    .append(y + LANE_HEIGHT - 1)
                    .append("\" x2=\"")
                    .append(WIDTH - 10)
                    .append("\" y2=\"")
                    .append(y + LANE_HEIGHT - 1)
                    .append("\" stroke=\"#eee\"/>\n");
            for (Timeline.Span span : e.getValue()) {
                double x = LABEL_WIDTH + span.startNanos() * scale;
                double w = Math.max(0.5, (span.endNanos() - span.startNanos()) * scale);
                String label = span.down() ? "down" : span.role().name().toLowerCase(Locale.ROOT);
                h.append("<rect x=\"")
                        .append(fmt(x))
                        .append("\" y=\"")
                        .append(y + 3)
                        .append("\" width=\"")
                        .append(fmt(w))
                        .append("\" height=\"")
                        .append(LANE_HEIGHT - 7)
                        .append("\" fill=\"")
                        .append(color(span.role(), span.down()))
                        .append("\"><title>")
                        .append(esc(e.getKey() + " " + label + (span.down() ? "" : " epoch " + span.epoch()) + ", "
                                + ms(span.startNanos()) + "–" + ms(span.endNanos()) + " ms"))
                        .append("</title></rect>\n");
                if (!span.down() && w >= 22) {
                    h.append("<text x=\"")
                            .append(fmt(x + 3))
                            .append("\" y=\"")
                            .append(y + LANE_HEIGHT / 2 + 3)
                            .append("\" font-size=\"10\" fill=\"")
                            .append(span.role() == Role.LEADER ? "#fff" : "#222")
                            .append("\">e")
                            .append(span.epoch())
                            .append("</text>\n");
                }
            }
            lane++;
        }
        int bottom = top + lanes * LANE_HEIGHT;
        for (Timeline.Marker marker : timeline.markers()) {
            double x = LABEL_WIDTH + marker.timeNanos() * scale;
            h.append("<g><title>")
                    .append(esc(ms(marker.timeNanos()) + " ms: " + marker.event() + " " + marker.detail()))
                    .append("</title><line x1=\"")
                    .append(fmt(x))
                    .append("\" y1=\"")
                    .append(top - 2)
                    .append("\" x2=\"")
                    .append(fmt(x))
                    .append("\" y2=\"")
                    .append(bottom)
                    .append("\" stroke=\"#b42318\" stroke-dasharray=\"3,3\"/><text x=\"")
                    .append(fmt(x + 2))
                    // Labels of markers near the right edge extend leftwards so they are not cut off.
                    .append(x > WIDTH - 80 ? "\" text-anchor=\"end" : "")
                    .append("\" y=\"11\" font-size=\"9\" fill=\"#b42318\">")
                    .append(esc(marker.event()))
                    .append("</text></g>\n");
        }
        axis(h, bottom, LABEL_WIDTH, plotWidth, timeline.endNanos());
        h.append("</svg>\n");
    }

    private static void axis(StringBuilder h, int y, double x0, double plotWidth, long endNanos) {
        h.append("<line x1=\"")
                .append(fmt(x0))
                .append("\" y1=\"")
                .append(y)
                .append("\" x2=\"")
                .append(fmt(x0 + plotWidth))
                .append("\" y2=\"")
                .append(y)
                .append("\" stroke=\"#555\"/>\n");
        int ticks = 10;
        for (int i = 0; i <= ticks; i++) {
            double x = x0 + plotWidth * i / ticks;
            long t = endNanos * i / ticks;
            h.append("<text x=\"")
                    .append(fmt(x))
                    .append("\" y=\"")
                    .append(y + 14)
                    .append("\" font-size=\"10\" text-anchor=\"")
                    .append(i == ticks ? "end" : i == 0 ? "start" : "middle")
                    .append("\">")
                    .append(ms(t))
                    .append(i == ticks ? " ms" : "")
                    .append("</text>\n");
        }
    }

    private static void histogram(StringBuilder h, Distribution d) {
        h.append("<h2>Failover times (all faults that hit a leader)</h2>\n");
        if (d.isEmpty()) {
            h.append("<p>No fault hit a leader in these runs.</p>\n");
            return;
        }
        long[] values = d.sortedNanos();
        int bins = (int) Math.min(40, Math.max(5, Math.ceil(Math.sqrt(values.length))));
        long max = Math.max(1, d.maxNanos());
        double binWidth = (double) max / bins;
        int[] counts = new int[bins];
        for (long v : values) {
            counts[(int) Math.min(bins - 1, (long) (v / binWidth))]++;
        }
        int highest = 1;
        for (int c : counts) {
            highest = Math.max(highest, c);
        }
        int plotHeight = 160;
        int x0 = 50;
        double plotWidth = WIDTH - x0 - 20;
        double barWidth = plotWidth / bins;
        int height = plotHeight + 40;
        openSvg(h, height);
        for (int i = 0; i < bins; i++) {
            double barHeight = (double) counts[i] / highest * plotHeight;
            double x = x0 + i * barWidth;
            h.append("<rect x=\"")
                    .append(fmt(x + 1))
                    .append("\" y=\"")
                    .append(fmt(10 + plotHeight - barHeight))
                    .append("\" width=\"")
                    .append(fmt(Math.max(1, barWidth - 2)))
                    .append("\" height=\"")
                    .append(fmt(barHeight))
                    .append("\" fill=\"#3b82c4\"><title>")
                    .append(esc(
                            ms((long) (i * binWidth)) + "–" + ms((long) ((i + 1) * binWidth)) + " ms: " + counts[i]))
                    .append("</title></rect>\n");
        }
        h.append("<text x=\"4\" y=\"18\" font-size=\"10\">").append(highest).append("</text>\n");
        h.append("<text x=\"4\" y=\"").append(10 + plotHeight).append("\" font-size=\"10\">0</text>\n");
        axis(h, 10 + plotHeight, x0, plotWidth, max);
        h.append("</svg>\n");
        h.append("<p class=\"note\">")
                .append(d.count())
                .append(headline(" samples; p50 %s ms, p99 %s ms, max %s ms.</p>\n", d));
    }

    /** {@code template} with the p50, the p99 and the maximum of {@code d}, in ms, in place of its three %s. */
    private static String headline(String template, Distribution d) {
        return template.formatted(ms(d.percentileNanos(50)), ms(d.percentileNanos(99)), ms(d.maxNanos()));
    }

    private static void violations(StringBuilder h, SimulationSummary summary) {
        List<Violation> all = new java.util.ArrayList<>(summary.violations());
        summary.exhaustive().ifPresent(r -> all.addAll(r.violations()));
        if (all.isEmpty()) {
            return;
        }
        h.append("<h2>Violations</h2>\n");
        for (Violation v : all) {
            h.append("<h3>seed ")
                    .append(v.seed())
                    .append(": ")
                    .append(esc(v.invariant()))
                    .append("</h3>\n<p>")
                    .append(esc(v.message()))
                    .append("</p>\n<pre>");
            for (HistoryEntry entry : v.excerpt()) {
                h.append(esc(entry.toString())).append('\n');
            }
            h.append("</pre>\n<p>Replay: <code>").append(esc(v.replayCommand())).append("</code></p>\n");
        }
    }

    private static String color(Role role, boolean down) {
        if (down || role == null) {
            return "#52606d";
        }
        return switch (role) {
            case LEADER -> "#1b7f3b";
            case CANDIDATE -> "#f0a202";
            case FOLLOWER -> "#d9dee3";
            case DORMANT -> "#ffffff";
        };
    }

    /** Escapes text for HTML element content and attribute values. */
    public static String esc(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static String ms(long nanos) {
        return fmt(Distribution.millis(nanos));
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** Opens an SVG image {@link #WIDTH} wide and {@code height} high, its coordinates in pixels. */
    private static void openSvg(StringBuilder h, int height) {
        // Inline SVG in HTML needs no namespace declaration, which keeps the page free of URLs.
        h.append("<svg width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(height)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(height)
                .append("\" role=\"img\">\n");
    }
}
