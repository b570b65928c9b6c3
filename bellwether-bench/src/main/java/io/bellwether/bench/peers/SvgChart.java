package io.bellwether.bench.peers;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The failover distributions side by side as a self-contained SVG: one panel per scenario, one row per system in it,
 * each trial a dot and the middle half a box with the median marked, on a logarithmic time axis from 1 ms to 100 s
 * (the figures span that much). Every row is a {@code <g class="series">} with {@code data-system} and {@code
 * data-scenario} attributes.
 */
public final class SvgChart {
    private static final int WIDTH = 960;
    private static final int LABEL = 200;
    private static final int PLOT_LEFT = LABEL + 10;
    private static final int PLOT_RIGHT = WIDTH - 90;
    private static final int ROW = 26;
    private static final int PANEL_HEAD = 34;
    private static final int AXIS = 30;
    private static final double MIN_MS = 1;
    private static final double MAX_MS = 100_000;
    private static final String[] COLOURS = {
        "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"
    };

    private SvgChart() {}

    /**
     * The chart.
     *
     * @param title the line at the top (machine and run)
     * @param scenarios the panels, in order
     * @param systems the rows of each panel, in order (each keeps its colour across panels)
     * @param results by scenario, then system; a missing entry draws an empty row
     */
    public static String render(
            String title, List<String> scenarios, List<String> systems, Map<String, Map<String, PeerStats>> results) {
        int panelHeight = PANEL_HEAD + systems.size() * ROW + AXIS;
        List<String> titleLines = wrap(title, 120);
        int titleHeight = 12 + 18 * titleLines.size();
        int height = titleHeight + scenarios.size() * panelHeight + 20;
        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                        + " font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH,
                height,
                WIDTH,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        for (int i = 0; i < titleLines.size(); i++) {
            svg.append(text(
                    10,
                    22 + 18 * i,
                    escape(titleLines.get(i)),
                    i == 0 ? "font-size=\"13\" font-weight=\"bold\"" : "font-size=\"12\""));
        }
        int top = titleHeight;
        for (String scenario : scenarios) {
            Map<String, PeerStats> bySystem = results.getOrDefault(scenario, Map.of());
            svg.append(text(10, top + 20, escape(scenario), "font-size=\"13\" font-weight=\"bold\""));
            int plotTop = top + PANEL_HEAD;
            int plotBottom = plotTop + systems.size() * ROW;
            for (double ms = MIN_MS; ms <= MAX_MS; ms *= 10) {
                double x = x(ms);
                svg.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>%n",
                        x,
                        plotTop,
                        x,
                        plotBottom));
                svg.append(text(x, plotBottom + 16, axisLabel(ms), "text-anchor=\"middle\" fill=\"#444\""));
            }
            for (int i = 0; i < systems.size(); i++) {
                String system = systems.get(i);
                String colour = COLOURS[i % COLOURS.length];
                int y = plotTop + i * ROW + ROW / 2;
                svg.append(String.format(
                        Locale.ROOT,
                        "<g class=\"series\" data-system=\"%s\" data-scenario=\"%s\">%n",
                        escape(system),
                        escape(scenario)));
                svg.append(text(LABEL, y + 4, escape(system), "text-anchor=\"end\""));
                PeerStats stats = bySystem.get(system);
                if (stats != null) {
                    row(svg, stats, y, colour);
                }
                svg.append("</g>\n");
            }
            top += panelHeight;
        }
        svg.append(text(
                10,
                height - 6,
                "Each dot one trial (signal to the next leader line); box: 25th to 75th percentile, bar: median;"
                        + " log scale.",
                "fill=\"#444\" font-size=\"11\""));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void row(StringBuilder svg, PeerStats stats, int y, String colour) {
        long[] sorted = stats.distribution().sortedNanos();
        if (sorted.length > 0) {
            double q1 = x(millisAt(sorted, 25));
            double q3 = x(millisAt(sorted, 75));
            double median = x(millisAt(sorted, 50));
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>%n",
                    x(sorted[0] / 1e6),
                    y,
                    x(sorted[sorted.length - 1] / 1e6),
                    y,
                    colour));
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.25\""
                            + " stroke=\"%s\"/>%n",
                    q1,
                    y - 8,
                    Math.max(1, q3 - q1),
                    16,
                    colour,
                    colour));
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                    median,
                    y - 10,
                    median,
                    y + 10,
                    colour));
            long[] values = stats.values();
            for (int i = 0; i < values.length; i++) {
                // Spread vertically by trial number so that equal values stay visible.
                int dy = (i % 5 - 2) * 3;
                svg.append(String.format(
                        Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%d\" r=\"2.5\" fill=\"%s\" fill-opacity=\"0.7\"/>%n",
                        x(values[i] / 1e6),
                        y + dy,
                        colour));
            }
        }
        String note = String.format(Locale.ROOT, "n=%d", stats.trials());
        if (stats.timeouts() > 0) {
            note += String.format(Locale.ROOT, ", %d timeout", stats.timeouts());
        }
        if (stats.error() != null && sorted.length == 0) {
            note = "failed";
        }
        svg.append(text(PLOT_RIGHT + 8, y + 4, escape(note), "fill=\"#444\" font-size=\"11\""));
    }

    /** Splits text at spaces into lines of at most {@code width} characters (a longer word gets a line of its own). */
    static List<String> wrap(String text, int width) {
        List<String> lines = new java.util.ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0 || lines.isEmpty()) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static double millisAt(long[] sorted, double percent) {
        int rank = Math.max(1, (int) Math.ceil(percent / 100.0 * sorted.length));
        return sorted[rank - 1] / 1e6;
    }

    /** The horizontal position of a duration; values outside 1 ms to 100 s sit at the ends. */
    static double x(double ms) {
        double clamped = Math.min(MAX_MS, Math.max(MIN_MS, ms));
        double fraction = Math.log10(clamped / MIN_MS) / Math.log10(MAX_MS / MIN_MS);
        return PLOT_LEFT + fraction * (PLOT_RIGHT - PLOT_LEFT);
    }

    private static String axisLabel(double ms) {
        return ms >= 1000 ? String.format(Locale.ROOT, "%.0f s", ms / 1000) : String.format(Locale.ROOT, "%.0f ms", ms);
    }

    private static String text(double x, double y, String content, String attributes) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>%n", x, y, attributes, content);
    }

    /** Escapes text for XML content and attribute values. */
    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
