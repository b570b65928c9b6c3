package io.bellwether.bench.scale;

import io.bellwether.server.report.Distribution;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** The markdown table {@link ScaleGroups} prints: one row per measured group count. */
final class ScaleTable {
    /** The columns, in order. */
    static final List<String> COLUMNS = List.of(
            "groups per process",
            "time until all led and agreed",
            "threads per process",
            "RSS MiB",
            "idle CPU % of a core",
            "groups led per member, fewest – most",
            "every member paused at once: groups re-agreed after the resume p50 / p99 / max",
            "kill -9 of the busiest member: its groups re-led p50 / p99 / max",
            "load average before");

    private ScaleTable() {}

    /** The header line and the separator line. */
    static String header() {
        StringBuilder s = new StringBuilder("|");
        for (String c : COLUMNS) {
            s.append(' ').append(c).append(" |");
        }
        s.append("\n|");
        for (int i = 0; i < COLUMNS.size(); i++) {
            s.append(i == 0 ? "---|" : "---:|");
        }
        return s.toString();
    }

    /** One result's row. */
    static String row(ScaleResult r) {
        String agreed = r.agreedNanos().isPresent()
                ? String.format(Locale.ROOT, "%.1f s", r.agreedNanos().getAsLong() / 1e9)
                : "never: " + grouped(r.agreedGroups()) + " of " + grouped(r.groups()) + " led after "
                        + r.ceiling().toSeconds() + " s"
                        + (r.peakAgreedGroups() > r.agreedGroups()
                                ? " (at most " + grouped(r.peakAgreedGroups()) + " at once)"
                                : "");
        String failover = r.failover()
                .map(f -> {
                    if (f.reledNanos().isEmpty()) {
                        return "none of " + f.notReled() + " re-led";
                    }
                    Distribution d = Distribution.of(
                            f.reledNanos().stream().mapToLong(Long::longValue).toArray());
                    String s = String.format(
                            Locale.ROOT,
                            "%.0f / %.0f / %.0f ms (%d groups)",
                            Distribution.millis(d.percentileNanos(50)),
                            Distribution.millis(d.percentileNanos(99)),
                            Distribution.millis(d.maxNanos()),
                            d.count());
                    return f.notReled() == 0 ? s : s + "; " + f.notReled() + " not re-led";
                })
                .orElse("—");
        String paused = r.pause()
                .map(p -> {
                    String head = String.format(
                            Locale.ROOT, "%.1f s pause: ", p.pause().toMillis() / 1e3);
                    String tail = p.changedLeader() + " new leaders"
                            + (p.notReagreed() == 0 ? "" : "; " + p.notReagreed() + " not re-agreed");
                    if (p.reagreedNanos().isEmpty()) {
                        return head + "none re-elected, " + tail;
                    }
                    Distribution d = Distribution.of(p.reagreedNanos().stream()
                            .mapToLong(Long::longValue)
                            .toArray());
                    return head
                            + String.format(
                                    Locale.ROOT,
                                    "%.0f / %.0f / %.0f ms (%d groups, ",
                                    Distribution.millis(d.percentileNanos(50)),
                                    Distribution.millis(d.percentileNanos(99)),
                                    Distribution.millis(d.maxNanos()),
                                    d.count())
                            + tail + ")";
                })
                .orElse("—");
        return "| "
                + String.join(
                        " | ",
                        grouped(r.groups()),
                        agreed,
                        range(r, m -> m.threads(), "%.0f"),
                        range(r, ScaleResult.MemberUsage::residentMiB, "%.0f"),
                        range(r, ScaleResult.MemberUsage::idleCpuPercent, "%.1f"),
                        r.ledPerMember().isEmpty()
                                ? "—"
                                : java.util.Collections.min(r.ledPerMember()) + " – "
                                        + java.util.Collections.max(r.ledPerMember()),
                        paused,
                        failover,
                        String.format(Locale.ROOT, "%.2f", r.loadAverage()))
                + " |";
    }

    /** {@code n} with a space between groups of three digits, as in {@code 10 000}. */
    static String grouped(int n) {
        return String.format(Locale.ROOT, "%,d", n).replace(',', ' ');
    }

    /** The smallest and largest of the members' figures, {@code min–max}, or one figure when they are equal. */
    private static String range(ScaleResult r, ToDoubleFunction<ScaleResult.MemberUsage> figure, String format) {
        double min = r.members().stream().mapToDouble(figure).min().orElse(Double.NaN);
        double max = r.members().stream().mapToDouble(figure).max().orElse(Double.NaN);
        String lo = String.format(Locale.ROOT, format, min);
        String hi = String.format(Locale.ROOT, format, max);
        return lo.equals(hi) ? lo : lo + "–" + hi;
    }
}
