package io.bellwether.bench.chaos;

import io.bellwether.bench.chaos.ChaosRecord.Attempt;
import io.bellwether.bench.chaos.ChaosRecord.Fault;
import io.bellwether.bench.chaos.ChaosRecord.Observation;
import io.bellwether.bench.chaos.ChaosRecord.Recovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Renders a {@link ChaosRecord} as one self-contained HTML page: the verdict, a summary, a timeline of every node's
 * role with the faults and the write attempts over it, and tables of the faults and of the epochs.
 *
 * <p>The page needs nothing outside itself: CSS and SVG are inline and there is no script (hovering over a segment,
 * a fault or a refused write shows its details through SVG {@code <title>}). The markup is well-formed XML (XHTML
 * compatible), and every string of the record is escaped, so node ids and descriptions cannot inject markup.
 *
 * <p>The size stays in the low megabytes for a ten-minute run: consecutive observations with the same role, leader
 * and epoch become one segment, segments narrower than a pixel are reduced to at most one per pixel column, and
 * accepted writes are counted per pixel column and drawn as one tick each. Every refused (stale) and unfinished
 * write is drawn on its own.
 *
 * <p>Stateless and thread-safe.
 */
public final class ChaosReport {
    static final int WIDTH = 1400;
    private static final int LEFT = 100;
    private static final int RIGHT = 20;
    private static final int PLOT_WIDTH = WIDTH - LEFT - RIGHT;
    private static final int LABEL_ROWS = 3;
    private static final int LABEL_ROW_HEIGHT = 14;
    private static final int PLOT_TOP = 12 + LABEL_ROWS * LABEL_ROW_HEIGHT;
    private static final int LANE_HEIGHT = 40;
    private static final int RECOVERY_ROW_HEIGHT = 18;

    /**
     * Leaders are coloured by epoch, cycling through these: none of them is the colour of another role or of a write
     * tick, and neighbouring epochs differ in hue.
     */
    static final String[] EPOCH_PALETTE = {"#1f77b4", "#8c564b", "#0e9e9e", "#7f7f00", "#3f51b5", "#2e8b57", "#5d6d7e"};

    private static final String CSS = String.join(
            "\n",
            "body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:24px;color:#222}",
            "h1{font-size:22px;margin:0 0 6px}",
            "h2{font-size:17px;margin:28px 0 8px}",
            ".meta{color:#555;margin:2px 0}",
            "pre.replay{background:#f4f4f4;border:1px solid #ddd;padding:8px 10px;white-space:pre-wrap;"
                    + "word-break:break-all}",
            ".verdict{font-size:34px;font-weight:700;margin:14px 0 6px}",
            ".verdict.ok{color:#1b8a2f}",
            ".verdict.bad{color:#c62828}",
            "ul.violations{color:#c62828;margin-top:4px}",
            "table{border-collapse:collapse;font-size:13px}",
            "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}",
            "th{background:#f4f4f4}",
            "td.num{text-align:right;font-variant-numeric:tabular-nums}",
            "td.ok{color:#1b8a2f}",
            "td.bad,tr.bad td{color:#c62828;font-weight:600}",
            "svg.timeline{border:1px solid #ddd;background:#fff}");

    /** In the SVG itself, so that the timeline also renders when it is taken out of the page. */
    private static final String SVG_CSS = String.join(
            "\n",
            ".timeline text{font-size:11px;font-family:system-ui,Helvetica,Arial,sans-serif}",
            ".lane-bg{fill:#fafafa}",
            ".lane-name{font-size:12px;font-weight:600}",
            ".grid{stroke:#e6e6e6}",
            ".axis{stroke:#888}",
            ".fault-band{fill-opacity:0.22;stroke-opacity:0.7;stroke-width:1}",
            ".fault-label{font-size:10px}",
            ".epoch-num{fill:#fff;font-size:10px;pointer-events:none}",
            ".accepted{stroke:#2ca02c;stroke-width:1;fill:none}",
            ".stale{stroke:#d62728;stroke-width:2}",
            ".unfinished{stroke:#e010e0;stroke-width:2}",
            ".recovery-ok{stroke:#1b8a2f;stroke-width:2}",
            ".recovery-bad{stroke:#c62828;stroke-width:2}",
            ".recovery-never{stroke:#c62828;stroke-width:2;stroke-dasharray:4 3}");

    private ChaosReport() {}

    /**
     * Writes the page of {@code record} to {@code file} in UTF-8, replacing the file if it exists.
     *
     * @param record the run to render
     * @param file where to write the page
     * @throws IOException if the file cannot be written
     */
    public static void write(ChaosRecord record, Path file) throws IOException {
        Files.writeString(file, html(record), StandardCharsets.UTF_8);
    }

    /**
     * The page of {@code record}: a complete, self-contained HTML document that is also well-formed XML.
     *
     * @param record the run to render
     * @return the page
     */
    public static String html(ChaosRecord record) {
        Objects.requireNonNull(record, "record");
        Timeline t = new Timeline(record);
        StringBuilder out = new StringBuilder(256 * 1024);
        out.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
                .append("<meta charset=\"utf-8\"/>\n<title>")
                .append(esc("Chaos run: " + algorithmLabel(record) + ", seed " + record.seed()))
                .append("</title>\n<style>\n")
                .append(CSS)
                .append("\n</style>\n</head>\n<body>\n");
        header(out, record);
        summary(out, record);
        out.append("<h2>Timeline</h2>\n");
        t.svg(out);
        out.append('\n');
        faultTable(out, record);
        epochTable(out, record);
        out.append("</body>\n</html>\n");
        return out.toString();
    }

    // ---- header, summary and tables ----

    private static String algorithmLabel(ChaosRecord r) {
        String store = str(r.store());
        return str(r.algorithm()) + (store.isEmpty() ? "" : " (" + store + ")");
    }

    private static void header(StringBuilder out, ChaosRecord r) {
        out.append("<h1>Chaos run: ").append(esc(algorithmLabel(r))).append("</h1>\n");
        out.append("<p class=\"meta\">mode <b>")
                .append(esc(str(r.mode())))
                .append("</b> · nodes <b>")
                .append(esc(String.join(", ", list(r.nodes()))))
                .append("</b> · seed <b>")
                .append(r.seed())
                .append("</b> · duration <b>")
                .append(seconds(r.endedNs() - r.startedNs(), 1))
                .append(" s</b> · started ")
                .append(esc(Instant.ofEpochSecond(0, 0).plusNanos(r.startedNs()).toString()))
                .append("</p>\n");
        out.append("<pre class=\"replay\"><code>").append(esc(str(r.replay()))).append("</code></pre>\n");
        List<String> violations = list(r.verdict() == null ? null : r.verdict().violations());
        if (violations.isEmpty()) {
            out.append("<div class=\"verdict ok\">no violation</div>\n");
        } else {
            out.append("<div class=\"verdict bad\">")
                    .append(violations.size())
                    .append(violations.size() == 1 ? " violation" : " violations")
                    .append("</div>\n<ul class=\"violations\">\n");
            for (String v : violations) {
                out.append("<li>").append(esc(str(v))).append("</li>\n");
            }
            out.append("</ul>\n");
        }
    }

    private static void summary(StringBuilder out, ChaosRecord r) {
        ChaosRecord.Verdict v = r.verdict();
        RecoveryStats s = RecoveryStats.of(r);
        out.append("<h2>Summary</h2>\n<table class=\"summary\">\n");
        row(out, "faults injected", Integer.toString(list(r.faults()).size()), false);
        row(out, "accepted writes", v == null ? "–" : Long.toString(v.accepted()), false);
        row(out, "stale attempts refused by the fence", v == null ? "–" : Long.toString(v.stale()), false);
        row(out, "overlaps caught by the fence", v == null ? "–" : Integer.toString(v.overlapsCaughtByFence()), false);
        row(out, "recoveries", Integer.toString(s.count), false);
        row(out, "convergence p50", s.converged == 0 ? "–" : millis(s.p50Ns) + " ms", false);
        row(out, "convergence max", s.converged == 0 ? "–" : millis(s.maxNs) + " ms", false);
        row(out, "recoveries over their bound", Integer.toString(s.exceeded), s.exceeded > 0);
        row(out, "recoveries that never converged", Integer.toString(s.never), s.never > 0);
        out.append("</table>\n");
    }

    private static void row(StringBuilder out, String name, String value, boolean bad) {
        out.append("<tr><th>")
                .append(esc(name))
                .append("</th><td class=\"num")
                .append(bad ? " bad" : "")
                .append("\">")
                .append(esc(value))
                .append("</td></tr>\n");
    }

    private static void faultTable(StringBuilder out, ChaosRecord r) {
        List<Fault> faults = list(r.faults());
        Map<Integer, Recovery> recoveries = recoveriesByFault(r);
        out.append("<h2>Faults</h2>\n");
        if (faults.isEmpty()) {
            out.append("<p>No fault was injected.</p>\n");
            return;
        }
        out.append("<table class=\"faults\">\n<tr><th>#</th><th>kind</th><th>description</th><th>targets</th>"
                + "<th>from (s)</th><th>healed (s)</th><th>converged after (ms)</th><th>bound (ms)</th>"
                + "<th>status</th></tr>\n");
        for (int i = 0; i < faults.size(); i++) {
            Fault f = faults.get(i);
            Recovery rec = recoveries.get(i);
            out.append("<tr><td class=\"num\">").append(i).append("</td><td>");
            out.append(esc(str(f.kind()))).append("</td><td>").append(esc(str(f.description())));
            List<String> targets = list(f.targets());
            out.append("</td><td>").append(esc(targets.isEmpty() ? "all" : String.join(", ", targets)));
            out.append("</td><td class=\"num\">").append(seconds(f.fromNs() - r.startedNs(), 3));
            out.append("</td><td class=\"num\">")
                    .append(f.toNs() >= f.fromNs() ? seconds(f.toNs() - r.startedNs(), 3) : "not healed");
            if (rec == null) {
                out.append("</td><td class=\"num\">–</td><td class=\"num\">–</td><td>–</td></tr>\n");
                continue;
            }
            if (rec.convergedNs() == 0) {
                out.append("</td><td class=\"num bad\">never");
            } else {
                out.append("</td><td class=\"num\">").append(millis(convergence(f, rec)));
            }
            out.append("</td><td class=\"num\">").append(millis(rec.boundNs()));
            switch (status(f, rec)) {
                case OK -> out.append("</td><td class=\"ok\">OK");
                case EXCEEDED -> out.append("</td><td class=\"bad\">exceeded");
                case NEVER -> out.append("</td><td class=\"bad\">not converged");
            }
            out.append("</td></tr>\n");
        }
        out.append("</table>\n");
    }

    private static void epochTable(StringBuilder out, ChaosRecord r) {
        record Key(long epoch, String node) {}
        final class Row {
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            long accepted;
            long stale;
            long unfinished;
        }
        Map<Key, Row> rows = new TreeMap<>(Comparator.comparingLong(Key::epoch).thenComparing(Key::node));
        Map<Long, Integer> writersPerEpoch = new HashMap<>();
        for (Attempt a : list(r.attempts())) {
            Key key = new Key(a.epoch(), str(a.node()));
            Row row = rows.get(key);
            if (row == null) {
                row = new Row();
                rows.put(key, row);
                writersPerEpoch.merge(a.epoch(), 1, Integer::sum);
            }
            row.first = Math.min(row.first, a.startedNs());
            row.last = Math.max(row.last, a.startedNs());
            switch (outcome(a)) {
                case ACCEPTED -> row.accepted++;
                case STALE -> row.stale++;
                case UNFINISHED -> row.unfinished++;
            }
        }
        out.append("<h2>Epochs</h2>\n");
        if (rows.isEmpty()) {
            out.append("<p>No write was attempted.</p>\n");
            return;
        }
        out.append("<table class=\"epochs\">\n<tr><th>epoch</th><th>node</th><th>first attempt (s)</th>"
                + "<th>last attempt (s)</th><th>accepted</th><th>stale</th><th>unfinished</th></tr>\n");
        for (Map.Entry<Key, Row> e : rows.entrySet()) {
            Key k = e.getKey();
            Row row = e.getValue();
            // Two writers in one epoch is what the fence exists to make harmless; make it stand out.
            boolean shared = writersPerEpoch.get(k.epoch()) > 1;
            out.append(shared ? "<tr class=\"bad\">" : "<tr>")
                    .append("<td class=\"num\"><span style=\"color:")
                    .append(epochColour(k.epoch()))
                    .append("\">■</span> ")
                    .append(k.epoch())
                    .append("</td><td>")
                    .append(esc(k.node()))
                    .append("</td><td class=\"num\">")
                    .append(seconds(row.first - r.startedNs(), 3))
                    .append("</td><td class=\"num\">")
                    .append(seconds(row.last - r.startedNs(), 3))
                    .append("</td><td class=\"num\">")
                    .append(row.accepted)
                    .append("</td><td class=\"num")
                    .append(row.stale > 0 ? " bad" : "")
                    .append("\">")
                    .append(row.stale)
                    .append("</td><td class=\"num\">")
                    .append(row.unfinished)
                    .append("</td></tr>\n");
        }
        out.append("</table>\n");
    }

    // ---- recoveries ----

    enum RecoveryStatus {
        OK,
        EXCEEDED,
        NEVER
    }

    static RecoveryStatus status(Fault f, Recovery rec) {
        if (rec.convergedNs() == 0) {
            return RecoveryStatus.NEVER;
        }
        return convergence(f, rec) > rec.boundNs() ? RecoveryStatus.EXCEEDED : RecoveryStatus.OK;
    }

    /** How long after the heal the members agreed; 0 if they already agreed before it was healed. */
    static long convergence(Fault f, Recovery rec) {
        return Math.max(0, rec.convergedNs() - f.toNs());
    }

    private static Map<Integer, Recovery> recoveriesByFault(ChaosRecord r) {
        Map<Integer, Recovery> byFault = new HashMap<>();
        if (r.verdict() != null) {
            for (Recovery rec : list(r.verdict().recoveries())) {
                byFault.putIfAbsent(rec.fault(), rec);
            }
        }
        return byFault;
    }

    /** Count, median and maximum of the convergence times, and how many recoveries failed their bound. */
    static final class RecoveryStats {
        int count;
        int converged;
        long p50Ns;
        long maxNs;
        int exceeded;
        int never;

        static RecoveryStats of(ChaosRecord r) {
            RecoveryStats s = new RecoveryStats();
            List<Fault> faults = list(r.faults());
            List<Long> times = new ArrayList<>();
            for (Recovery rec :
                    r.verdict() == null ? List.<Recovery>of() : list(r.verdict().recoveries())) {
                s.count++;
                if (rec.fault() < 0 || rec.fault() >= faults.size()) {
                    continue;
                }
                Fault f = faults.get(rec.fault());
                switch (status(f, rec)) {
                    case NEVER -> s.never++;
                    case EXCEEDED -> s.exceeded++;
                    case OK -> {}
                }
                if (rec.convergedNs() != 0) {
                    times.add(convergence(f, rec));
                }
            }
            times.sort(null);
            s.converged = times.size();
            if (!times.isEmpty()) {
                // Nearest rank: the smallest time at least half of the recoveries were as fast as.
                s.p50Ns = times.get((times.size() + 1) / 2 - 1);
                s.maxNs = times.get(times.size() - 1);
            }
            return s;
        }
    }

    // ---- attempts ----

    enum Outcome {
        ACCEPTED,
        STALE,
        UNFINISHED
    }

    static Outcome outcome(Attempt a) {
        String o = str(a.outcome());
        if (o.equals("accepted")) {
            return Outcome.ACCEPTED;
        }
        if (o.equals("stale")) {
            return Outcome.STALE;
        }
        return Outcome.UNFINISHED;
    }

    static String epochColour(long epoch) {
        return EPOCH_PALETTE[(int) Math.floorMod(epoch, (long) EPOCH_PALETTE.length)];
    }

    // ---- the timeline ----

    /** The SVG timeline: lanes, role segments, fault bands, recoveries, write attempts, axis and legend. */
    private static final class Timeline {
        private final ChaosRecord r;
        private final List<String> lanes;
        private final Map<String, Integer> laneOf = new HashMap<>();
        private final long t0;
        private final long span;
        private final int lanesBottom;
        private final int recoveryY;
        private final int axisY;
        private final int legendY;
        private final int height;

        Timeline(ChaosRecord r) {
            this.r = r;
            this.lanes = new ArrayList<>();
            for (String n : list(r.nodes())) {
                addLane(str(n));
            }
            // A node the harness observed but did not list still gets a lane, so nothing is silently lost.
            for (Observation o : list(r.observations())) {
                addLane(str(o.node()));
            }
            for (Attempt a : list(r.attempts())) {
                addLane(str(a.node()));
            }
            long end = r.endedNs();
            if (end <= r.startedNs()) {
                for (Observation o : list(r.observations())) {
                    end = Math.max(end, o.atNs());
                }
                for (Attempt a : list(r.attempts())) {
                    end = Math.max(end, Math.max(a.startedNs(), a.endedNs()));
                }
            }
            this.t0 = r.startedNs();
            this.span = Math.max(1_000_000L, end - t0);
            this.lanesBottom = PLOT_TOP + lanes.size() * LANE_HEIGHT;
            this.recoveryY = lanesBottom + 4;
            this.axisY = recoveryY + RECOVERY_ROW_HEIGHT;
            this.legendY = axisY + 34;
            this.height = legendY + 44;
        }

        private void addLane(String node) {
            if (!laneOf.containsKey(node)) {
                laneOf.put(node, lanes.size());
                lanes.add(node);
            }
        }

        /** The x coordinate of a time, clamped to the plot. */
        double x(long ns) {
            double frac = (double) (ns - t0) / span;
            return LEFT + Math.max(0, Math.min(1, frac)) * PLOT_WIDTH;
        }

        /** The pixel column of a time, 0 to {@code PLOT_WIDTH - 1}. */
        int column(long ns) {
            return (int) Math.min(PLOT_WIDTH - 1, Math.max(0, Math.floor(x(ns) - LEFT)));
        }

        int laneTop(int lane) {
            return PLOT_TOP + lane * LANE_HEIGHT;
        }

        void svg(StringBuilder out) {
            out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"")
                    .append(WIDTH)
                    .append("\" height=\"")
                    .append(height)
                    .append("\" viewBox=\"0 0 ")
                    .append(WIDTH)
                    .append(' ')
                    .append(height)
                    .append("\">\n<style>\n")
                    .append(SVG_CSS)
                    .append(
                            "\n</style>\n<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\""
                                    + " patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#777\"/>"
                                    + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#333\" stroke-width=\"3\"/>"
                                    + "</pattern></defs>\n");
            grid(out);
            for (int i = 0; i < lanes.size(); i++) {
                laneBackground(out, i);
            }
            segments(out);
            faults(out);
            recoveries(out);
            attempts(out);
            axis(out);
            legend(out);
            out.append("</svg>");
        }

        private void grid(StringBuilder out) {
            double stepS = niceStep(span / 1e9 / 12);
            out.append("<g class=\"ticks\">\n");
            for (int k = 0; k * stepS <= span / 1e9 + 1e-9 && k < 1000; k++) {
                double s = k * stepS;
                double xx = LEFT + s * 1e9 / span * PLOT_WIDTH;
                out.append("<line class=\"grid\" x1=\"");
                num(out, xx).append("\" x2=\"");
                num(out, xx)
                        .append("\" y1=\"")
                        .append(PLOT_TOP)
                        .append("\" y2=\"")
                        .append(axisY)
                        .append("\"/>");
                out.append("<line class=\"axis\" x1=\"");
                num(out, xx).append("\" x2=\"");
                num(out, xx)
                        .append("\" y1=\"")
                        .append(axisY)
                        .append("\" y2=\"")
                        .append(axisY + 5)
                        .append("\"/>");
                out.append("<text x=\"");
                num(out, xx)
                        .append("\" y=\"")
                        .append(axisY + 17)
                        .append("\" text-anchor=\"middle\">")
                        .append(tickLabel(s, stepS))
                        .append("</text>\n");
            }
            out.append("</g>\n");
        }

        private void laneBackground(StringBuilder out, int lane) {
            int y = laneTop(lane);
            out.append("<g class=\"lane\" data-node=\"")
                    .append(esc(lanes.get(lane)))
                    .append("\"><rect class=\"lane-bg\" x=\"")
                    .append(LEFT)
                    .append("\" y=\"")
                    .append(y + 2)
                    .append("\" width=\"")
                    .append(PLOT_WIDTH)
                    .append("\" height=\"")
                    .append(LANE_HEIGHT - 4)
                    .append("\"/><text class=\"lane-name\" x=\"")
                    .append(LEFT - 8)
                    .append("\" y=\"")
                    .append(y + LANE_HEIGHT / 2 + 4)
                    .append("\" text-anchor=\"end\">")
                    .append(esc(truncate(lanes.get(lane), 14)))
                    .append("<title>")
                    .append(esc(lanes.get(lane)))
                    .append("</title></text></g>\n");
        }

        /** One lane's role: (role, leader, epoch) and the time it held from. */
        private record Segment(String role, String leader, long epoch, long fromNs, long toNs) {
            boolean sameState(Observation o) {
                return role.equals(str(o.role())) && Objects.equals(leader, o.leader()) && epoch == o.epoch();
            }

            /** Whether the state is worth more than its share of a pixel column: anything but following. */
            int weight() {
                return role.equals("FOLLOWER") ? 0 : 1;
            }
        }

        private void segments(StringBuilder out) {
            Map<String, List<Observation>> byNode = new LinkedHashMap<>();
            for (Observation o : list(r.observations())) {
                byNode.computeIfAbsent(str(o.node()), k -> new ArrayList<>()).add(o);
            }
            out.append("<g class=\"roles\">\n");
            for (Map.Entry<String, List<Observation>> e : byNode.entrySet()) {
                List<Observation> obs = e.getValue();
                obs.sort(Comparator.comparingLong(Observation::atNs));
                List<Segment> segs = coalesce(obs);
                int y = laneTop(laneOf.get(e.getKey())) + 6;
                drawLane(out, e.getKey(), segs, y);
            }
            out.append("</g>\n");
        }

        /** Consecutive observations of one state become one segment, ending at the next different observation. */
        static List<Segment> coalesce(List<Observation> obs) {
            List<Segment> segs = new ArrayList<>();
            Segment cur = null;
            for (Observation o : obs) {
                if (cur != null && cur.sameState(o)) {
                    cur = new Segment(cur.role, cur.leader, cur.epoch, cur.fromNs, o.atNs());
                    continue;
                }
                if (cur != null) {
                    segs.add(new Segment(cur.role, cur.leader, cur.epoch, cur.fromNs, o.atNs()));
                }
                cur = new Segment(str(o.role()), o.leader(), o.epoch(), o.atNs(), o.atNs());
            }
            if (cur != null) {
                segs.add(cur);
            }
            return segs;
        }

        /**
         * Draws the segments of one lane. A segment at least a pixel wide is drawn as it is, with its details as a
         * title; narrower ones are reduced to one per pixel column (the one that is not following, else the
         * longest), so a flapping node costs at most a rectangle per column.
         */
        private void drawLane(StringBuilder out, String node, List<Segment> segs, int y) {
            Segment pending = null;
            int pendingColumn = -1;
            for (Segment s : segs) {
                double x1 = x(s.fromNs);
                double x2 = x(s.toNs);
                if (x2 - x1 >= 1) {
                    if (pending != null) {
                        rect(out, node, pending, LEFT + pendingColumn, 1, y, false);
                        pending = null;
                    }
                    rect(out, node, s, x1, x2 - x1, y, true);
                    continue;
                }
                int col = column(s.fromNs);
                if (pending != null && col == pendingColumn) {
                    if (s.weight() > pending.weight()
                            || (s.weight() == pending.weight() && s.toNs - s.fromNs > pending.toNs - pending.fromNs)) {
                        pending = s;
                    }
                    continue;
                }
                if (pending != null) {
                    rect(out, node, pending, LEFT + pendingColumn, 1, y, false);
                }
                pending = s;
                pendingColumn = col;
            }
            if (pending != null) {
                rect(out, node, pending, LEFT + pendingColumn, 1, y, false);
            }
        }

        private void rect(StringBuilder out, String node, Segment s, double x, double w, int y, boolean title) {
            String role = s.role;
            out.append("<rect class=\"role role-").append(roleClass(role)).append("\" x=\"");
            num(out, x).append("\" y=\"").append(y).append("\" width=\"");
            num(out, Math.max(w, 1)).append("\" height=\"20\" fill=\"").append(roleFill(role, s.epoch));
            if (!title) {
                out.append("\"/>\n");
                return;
            }
            out.append("\"><title>").append(esc(node)).append(": ").append(esc(role));
            if (s.epoch != 0) {
                out.append(", epoch ").append(s.epoch);
            }
            if (s.leader != null && !role.equals("LEADER")) {
                out.append(", leader ").append(esc(s.leader));
            }
            out.append(", ")
                    .append(seconds(s.fromNs - t0, 3))
                    .append("–")
                    .append(seconds(s.toNs - t0, 3))
                    .append(" s</title></rect>\n");
            String label = Long.toString(s.epoch);
            if (role.equals("LEADER") && w >= label.length() * 7 + 6) {
                out.append("<text class=\"epoch-num\" x=\"");
                num(out, x + 3)
                        .append("\" y=\"")
                        .append(y + 14)
                        .append("\">")
                        .append(label)
                        .append("</text>\n");
            }
        }

        private void faults(StringBuilder out) {
            List<Fault> faults = list(r.faults());
            double[] rowEnd = new double[LABEL_ROWS];
            java.util.Arrays.fill(rowEnd, Double.NEGATIVE_INFINITY);
            out.append("<g class=\"faults\">\n");
            for (int i = 0; i < faults.size(); i++) {
                Fault f = faults.get(i);
                String kind = str(f.kind());
                String colour = faultColour(kind);
                double x1 = x(f.fromNs());
                long healed = f.toNs() >= f.fromNs() ? f.toNs() : t0 + span;
                double w = Math.max(2, x(healed) - x1);
                List<Integer> hit = new ArrayList<>();
                for (String target : list(f.targets())) {
                    Integer lane = laneOf.get(str(target));
                    if (lane != null && !hit.contains(lane)) {
                        hit.add(lane);
                    }
                }
                if (hit.isEmpty()) {
                    // No target, or targets that are not nodes (a store): the whole cluster is affected.
                    for (int l = 0; l < lanes.size(); l++) {
                        hit.add(l);
                    }
                }
                out.append("<g class=\"fault\"><title>#")
                        .append(i)
                        .append(' ')
                        .append(esc(kind))
                        .append(": ")
                        .append(esc(str(f.description())))
                        .append(" (")
                        .append(seconds(f.fromNs() - t0, 3))
                        .append("–")
                        .append(seconds(f.toNs() - t0, 3))
                        .append(" s)</title>");
                for (int lane : hit) {
                    out.append("<rect class=\"fault-band\" x=\"");
                    num(out, x1).append("\" y=\"").append(laneTop(lane)).append("\" width=\"");
                    num(out, w)
                            .append("\" height=\"")
                            .append(LANE_HEIGHT)
                            .append("\" fill=\"")
                            .append(colour)
                            .append("\" stroke=\"")
                            .append(colour)
                            .append("\"/>");
                }
                // Labels go in the first row where they do not overwrite the previous label.
                double labelWidth = kind.length() * 6.2 + 6;
                int row = 0;
                for (int k = 0; k < LABEL_ROWS; k++) {
                    if (rowEnd[k] <= x1) {
                        row = k;
                        break;
                    }
                    if (rowEnd[k] < rowEnd[row]) {
                        row = k;
                    }
                }
                rowEnd[row] = x1 + labelWidth;
                boolean flip = x1 + labelWidth > WIDTH;
                int ly = 10 + (row + 1) * LABEL_ROW_HEIGHT;
                out.append("<line x1=\"");
                num(out, x1).append("\" x2=\"");
                num(out, x1)
                        .append("\" y1=\"")
                        .append(ly - 10)
                        .append("\" y2=\"")
                        .append(PLOT_TOP)
                        .append("\" stroke=\"")
                        .append(colour)
                        .append("\"/><text class=\"fault-label\" x=\"");
                num(out, flip ? x1 - 2 : x1 + 2)
                        .append("\" y=\"")
                        .append(ly)
                        .append(flip ? "\" text-anchor=\"end" : "")
                        .append("\" fill=\"")
                        .append(colour)
                        .append("\">")
                        .append(esc(truncate(kind, 20)))
                        .append("</text></g>\n");
            }
            out.append("</g>\n");
        }

        private void recoveries(StringBuilder out) {
            List<Fault> faults = list(r.faults());
            out.append("<g class=\"recoveries\"><text x=\"")
                    .append(LEFT - 8)
                    .append("\" y=\"")
                    .append(recoveryY + 11)
                    .append("\" text-anchor=\"end\" fill=\"#555\">recovery</text>\n");
            if (r.verdict() != null) {
                for (Recovery rec : list(r.verdict().recoveries())) {
                    if (rec.fault() < 0 || rec.fault() >= faults.size()) {
                        continue;
                    }
                    Fault f = faults.get(rec.fault());
                    RecoveryStatus st = status(f, rec);
                    long end;
                    if (st == RecoveryStatus.NEVER) {
                        end = rec.fault() + 1 < faults.size()
                                ? faults.get(rec.fault() + 1).fromNs()
                                : t0 + span;
                    } else {
                        end = Math.max(rec.convergedNs(), f.toNs());
                    }
                    double x1 = x(f.toNs());
                    double x2 = Math.max(x(end), x1 + 2);
                    int y = recoveryY + 7;
                    out.append("<g><title>#").append(rec.fault()).append(' ').append(esc(str(f.kind())));
                    if (st == RecoveryStatus.NEVER) {
                        out.append(": no agreement on one leader after the heal");
                    } else {
                        out.append(": agreed on one leader ")
                                .append(millis(convergence(f, rec)))
                                .append(" ms after the heal");
                    }
                    out.append(" (bound ").append(millis(rec.boundNs())).append(" ms)</title><line class=\"");
                    out.append(
                                    switch (st) {
                                        case OK -> "recovery-ok";
                                        case EXCEEDED -> "recovery-bad";
                                        case NEVER -> "recovery-never";
                                    })
                            .append("\" x1=\"");
                    num(out, x1).append("\" x2=\"");
                    num(out, x2)
                            .append("\" y1=\"")
                            .append(y)
                            .append("\" y2=\"")
                            .append(y)
                            .append("\"/>");
                    out.append("<line class=\"")
                            .append(st == RecoveryStatus.OK ? "recovery-ok" : "recovery-bad")
                            .append("\" x1=\"");
                    num(out, x2).append("\" x2=\"");
                    num(out, x2)
                            .append("\" y1=\"")
                            .append(y - 5)
                            .append("\" y2=\"")
                            .append(y + 5)
                            .append("\"/></g>\n");
                }
            }
            out.append("</g>\n");
        }

        /**
         * Accepted writes as one tick per lane and pixel column (a single path per lane); every stale and unfinished
         * attempt on its own, drawn last so nothing covers it.
         */
        private void attempts(StringBuilder out) {
            List<Attempt> attempts = list(r.attempts());
            int[][] acceptedPerColumn = new int[lanes.size()][PLOT_WIDTH];
            int[] acceptedPerLane = new int[lanes.size()];
            List<Attempt> notAccepted = new ArrayList<>();
            for (Attempt a : attempts) {
                int lane = laneOf.get(str(a.node()));
                if (outcome(a) == Outcome.ACCEPTED) {
                    acceptedPerColumn[lane][column(a.startedNs())]++;
                    acceptedPerLane[lane]++;
                } else {
                    notAccepted.add(a);
                }
            }
            out.append("<g class=\"attempts\">\n");
            for (int lane = 0; lane < lanes.size(); lane++) {
                if (acceptedPerLane[lane] == 0) {
                    continue;
                }
                int y = laneTop(lane) + 28;
                out.append("<path class=\"accepted\" d=\"");
                for (int c = 0; c < PLOT_WIDTH; c++) {
                    if (acceptedPerColumn[lane][c] > 0) {
                        out.append('M').append(LEFT + c).append(".5 ").append(y).append("v8");
                    }
                }
                out.append("\"><title>")
                        .append(esc(lanes.get(lane)))
                        .append(": ")
                        .append(acceptedPerLane[lane])
                        .append(" accepted writes</title></path>\n");
            }
            for (Attempt a : notAccepted) {
                int top = laneTop(laneOf.get(str(a.node())));
                boolean stale = outcome(a) == Outcome.STALE;
                double xx = x(a.startedNs());
                out.append("<line class=\"")
                        .append(stale ? "stale" : "unfinished")
                        .append("\" x1=\"");
                num(out, xx).append("\" x2=\"");
                num(out, xx)
                        .append("\" y1=\"")
                        .append(top + (stale ? 1 : 4))
                        .append("\" y2=\"")
                        .append(top + LANE_HEIGHT - 1)
                        .append("\"><title>")
                        .append(stale ? "stale (refused by the fence)" : "unfinished")
                        .append(": ")
                        .append(esc(str(a.node())))
                        .append(", epoch ")
                        .append(a.epoch())
                        .append(", counter ")
                        .append(a.counter())
                        .append(", began ")
                        .append(seconds(a.startedNs() - t0, 3))
                        .append(" s");
                if (a.endedNs() != 0) {
                    out.append(", ended ").append(seconds(a.endedNs() - t0, 3)).append(" s");
                }
                if (!stale && !str(a.outcome()).isEmpty()) {
                    out.append(", outcome ").append(esc(a.outcome()));
                }
                out.append("</title></line>\n");
            }
            out.append("</g>\n");
        }

        private void axis(StringBuilder out) {
            out.append("<line class=\"axis\" x1=\"")
                    .append(LEFT)
                    .append("\" x2=\"")
                    .append(LEFT + PLOT_WIDTH)
                    .append("\" y1=\"")
                    .append(axisY)
                    .append("\" y2=\"")
                    .append(axisY)
                    .append("\"/>\n<text x=\"")
                    .append(LEFT - 8)
                    .append("\" y=\"")
                    .append(axisY + 17)
                    .append("\" text-anchor=\"end\" fill=\"#555\">seconds</text>\n");
        }

        private void legend(StringBuilder out) {
            String[][] items = {
                {"epochs", "", "leader (colour = epoch)"},
                {"rect", roleFill("FOLLOWER", 0), "follower"},
                {"rect", roleFill("CANDIDATE", 0), "candidate / other"},
                {"rect", roleFill("DOWN", 0), "down"},
                {"rect", roleFill("PAUSED", 0), "paused"},
                {"rect", roleFill("UNREACHABLE", 0), "unreachable"},
                {"band", "#d62728", "fault (hover: details)"},
                {"tick", "accepted", "accepted writes"},
                {"tick", "stale", "stale write (fenced)"},
                {"tick", "unfinished", "unfinished write"},
                {"tick", "recovery-ok", "recovery within bound"},
                {"tick", "recovery-bad", "recovery over bound"},
            };
            out.append("<g class=\"legend\">\n");
            int perRow = 6;
            int colWidth = (WIDTH - LEFT) / perRow;
            for (int i = 0; i < items.length; i++) {
                int lx = LEFT + (i % perRow) * colWidth;
                int ly = legendY + (i / perRow) * 20;
                String[] it = items[i];
                switch (it[0]) {
                    case "epochs" -> {
                        for (int k = 0; k < 4; k++) {
                            out.append("<rect x=\"")
                                    .append(lx + k * 6)
                                    .append("\" y=\"")
                                    .append(ly)
                                    .append("\" width=\"6\" height=\"12\" fill=\"")
                                    .append(EPOCH_PALETTE[k])
                                    .append("\"/>");
                        }
                    }
                    case "rect" -> out.append("<rect x=\"")
                            .append(lx)
                            .append("\" y=\"")
                            .append(ly)
                            .append("\" width=\"22\" height=\"12\" fill=\"")
                            .append(it[1])
                            .append("\" stroke=\"#999\" stroke-width=\"0.5\"/>");
                    case "band" -> out.append("<rect class=\"fault-band\" x=\"")
                            .append(lx)
                            .append("\" y=\"")
                            .append(ly)
                            .append("\" width=\"22\" height=\"12\" fill=\"")
                            .append(it[1])
                            .append("\" stroke=\"")
                            .append(it[1])
                            .append("\"/>");
                    default -> out.append("<line class=\"")
                            .append(it[1])
                            .append("\" x1=\"")
                            .append(lx + 11)
                            .append("\" x2=\"")
                            .append(lx + 11)
                            .append("\" y1=\"")
                            .append(ly - 1)
                            .append("\" y2=\"")
                            .append(ly + 13)
                            .append("\"/>");
                }
                out.append("<text x=\"")
                        .append(lx + 28)
                        .append("\" y=\"")
                        .append(ly + 10)
                        .append("\">")
                        .append(esc(it[2]))
                        .append("</text>\n");
            }
            out.append("</g>\n");
        }
    }

    static String roleFill(String role, long epoch) {
        return switch (role) {
            case "LEADER" -> epochColour(epoch);
            case "FOLLOWER" -> "#d9d9d9";
            case "DOWN" -> "#000000";
            case "PAUSED" -> "#f28c28";
            case "UNREACHABLE" -> "url(#hatch)";
            default -> "#f2c94c";
        };
    }

    private static String roleClass(String role) {
        return switch (role) {
            case "LEADER", "FOLLOWER", "DOWN", "PAUSED", "UNREACHABLE" -> role.toLowerCase(Locale.ROOT);
            default -> "other";
        };
    }

    static String faultColour(String kind) {
        return switch (kind) {
            case "kill" -> "#d62728";
            case "pause" -> "#f28c28";
            case "partition", "one-way", "isolate" -> "#1f5fbf";
            case "flap" -> "#8e44ad";
            case "delay", "throttle" -> "#16a085";
            case "store-outage" -> "#6d4c41";
            default -> "#555555";
        };
    }

    // ---- formatting ----

    /** A tick step of 1, 2 or 5 times a power of ten seconds, at least {@code raw}. */
    static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String tickLabel(double s, double step) {
        int decimals = step >= 1 ? 0 : (int) Math.ceil(-Math.log10(step) - 1e-9);
        return String.format(Locale.ROOT, "%." + decimals + "f", s);
    }

    /** Appends a coordinate with at most one decimal. */
    private static StringBuilder num(StringBuilder out, double v) {
        long tenths = Math.round(v * 10);
        if (tenths < 0) {
            out.append('-');
            tenths = -tenths;
        }
        out.append(tenths / 10);
        if (tenths % 10 != 0) {
            out.append('.').append(tenths % 10);
        }
        return out;
    }

    private static String seconds(long ns, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", ns / 1e9);
    }

    private static String millis(long ns) {
        return Long.toString(Math.round(ns / 1e6));
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    private static String str(String s) {
        return s == null ? "" : s;
    }

    private static <T> List<T> list(List<T> l) {
        return l == null ? List.of() : l;
    }

    /**
     * Escapes text for HTML and XML content and attribute values. Characters XML does not allow (control
     * characters, lone surrogates) become U+FFFD, so the page stays well-formed whatever the harness recorded.
     */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep = null;
            switch (c) {
                case '&' -> rep = "&amp;";
                case '<' -> rep = "&lt;";
                case '>' -> rep = "&gt;";
                case '"' -> rep = "&quot;";
                case '\'' -> rep = "&#39;";
                default -> {
                    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF) {
                        rep = "\uFFFD";
                    } else if (Character.isHighSurrogate(c)) {
                        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                            if (b != null) {
                                b.append(c).append(s.charAt(i + 1));
                            }
                            i++;
                            continue;
                        }
                        rep = "\uFFFD";
                    } else if (Character.isLowSurrogate(c)) {
                        rep = "\uFFFD";
                    }
                }
            }
            if (rep != null) {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                b.append(rep);
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }
}
