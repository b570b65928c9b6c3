package io.bellwether.bench.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the fenced writers left in a {@link FencedLedger}, and the checks over it: no stale write accepted, no two
 * epochs' runs overlapping in real time, no writer of another epoch alive when a writer starts or first writes.
 */
final class FencedHistory {
    record Write(long seq, long epoch, String node, long counter, long pid, long writtenNs, String others) {}

    record Attempt(long epoch, String node, long counter, long pid, long startedNs, long endedNs, String outcome) {
        /** When the attempt was last seen under way: its end, or its start if it never recorded one (killed). */
        long lastNs() {
            return endedNs > 0 ? endedNs : startedNs;
        }
    }

    record Start(long epoch, String node, long pid, long startedNs, String others) {}

    /**
     * One epoch's run, in ns since 1970: from its first accepted write to its last ({@code acceptedOnly}), or from
     * the start of its first attempt to the end of its last.
     */
    record Run(long epoch, long fromNs, long toNs, boolean acceptedOnly) {}

    final List<Write> writes = new ArrayList<>();
    final List<Attempt> attempts = new ArrayList<>();
    final List<Start> starts = new ArrayList<>();

    static FencedHistory load(FencedLedger ledger) throws SQLException {
        FencedHistory h = new FencedHistory();
        try (Connection c = DriverManager.getConnection(FencedLedger.PG_URL);
                Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT seq, epoch, node, counter, pid, written_ns, others FROM "
                    + ledger.writes() + " ORDER BY seq")) {
                while (r.next()) {
                    h.writes.add(new Write(
                            r.getLong(1),
                            r.getLong(2),
                            r.getString(3),
                            r.getLong(4),
                            r.getLong(5),
                            r.getLong(6),
                            r.getString(7)));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT epoch, node, counter, pid, started_ns,"
                    + " COALESCE(ended_ns, 0), COALESCE(outcome, '') FROM " + ledger.attempts() + " ORDER BY id")) {
                while (r.next()) {
                    h.attempts.add(new Attempt(
                            r.getLong(1),
                            r.getString(2),
                            r.getLong(3),
                            r.getLong(4),
                            r.getLong(5),
                            r.getLong(6),
                            r.getString(7)));
                }
            }
            try (ResultSet r = s.executeQuery(
                    "SELECT epoch, node, pid, started_ns, others FROM " + ledger.commands() + " ORDER BY started_ns")) {
                while (r.next()) {
                    h.starts.add(new Start(r.getLong(1), r.getString(2), r.getLong(3), r.getLong(4), r.getString(5)));
                }
            }
        }
        return h;
    }

    long accepted() {
        return writes.size();
    }

    long stale() {
        return attempts.stream().filter(a -> a.outcome().equals("stale")).count();
    }

    long staleOf(long epoch) {
        return attempts.stream()
                .filter(a -> a.epoch() == epoch && a.outcome().equals("stale"))
                .count();
    }

    /**
     * Every broken rule, described; empty when the history holds.
     *
     * @param paused the epochs whose writer the test stopped (SIGSTOP) together with its node: such a writer may
     *     resume and try to write after another epoch's writer started, and only the fence stops it, so only the span
     *     of its accepted writes is checked, and it is not counted as a live other-epoch writer
     */
    List<String> violations(Set<Long> paused) {
        List<String> out = new ArrayList<>();
        // (a) The fence: in commit order, no accepted write of an epoch lower than one already accepted.
        long highest = -1;
        for (Write w : writes) {
            if (w.epoch() < highest) {
                out.add("stale write accepted: " + w + " after a write of epoch " + highest);
            }
            highest = Math.max(highest, w.epoch());
        }
        // (b) No two epochs' runs overlap in real time: the span of each epoch's accepted writes, and for a writer
        // the test did not pause, the span of all its attempts (a paused writer resumes, by design, while another
        // epoch's writer runs; a writer waiting for the fence row held by a paused one starts its attempt early).
        overlaps(acceptedRuns(), out);
        overlaps(attemptRuns(paused), out);
        // (c) When a writer starts, and when its first write is accepted, no writer of another epoch is alive.
        for (Start s : starts) {
            live(s.others(), paused).forEach(o -> out.add("writer " + o + " alive as " + s + " started"));
        }
        Map<Long, Write> firsts = new TreeMap<>();
        writes.forEach(w -> firsts.putIfAbsent(w.epoch(), w));
        for (Write w : firsts.values()) {
            live(w.others(), paused)
                    .forEach(o -> out.add(
                            "writer " + o + " alive at the first accepted write of epoch " + w.epoch() + ": " + w));
        }
        return out;
    }

    private void overlaps(List<Run> runs, List<String> out) {
        for (int i = 0; i < runs.size(); i++) {
            for (int j = i + 1; j < runs.size(); j++) {
                Run a = runs.get(i);
                Run b = runs.get(j);
                if (a.fromNs() <= b.toNs() && b.fromNs() <= a.toNs()) {
                    out.add("runs overlap in real time: " + describe(a) + " and " + describe(b));
                }
            }
        }
    }

    /** Each epoch's accepted writes, from the first to the last. */
    List<Run> acceptedRuns() {
        Map<Long, long[]> spans = new TreeMap<>();
        for (Write w : writes) {
            widen(spans, w.epoch(), w.writtenNs(), w.writtenNs());
        }
        return sorted(spans, true);
    }

    /** Each epoch's attempts, from the first one's start to the last one's end, but for the epochs {@code except}. */
    List<Run> attemptRuns(Set<Long> except) {
        Map<Long, long[]> spans = new TreeMap<>();
        for (Attempt a : attempts) {
            if (!except.contains(a.epoch())) {
                widen(spans, a.epoch(), a.startedNs(), a.lastNs());
            }
        }
        return sorted(spans, false);
    }

    private static List<Run> sorted(Map<Long, long[]> spans, boolean acceptedOnly) {
        List<Run> runs = new ArrayList<>();
        spans.forEach((epoch, span) -> runs.add(new Run(epoch, span[0], span[1], acceptedOnly)));
        runs.sort(Comparator.comparingLong(Run::fromNs));
        return runs;
    }

    private static void widen(Map<Long, long[]> spans, long epoch, long from, long to) {
        long[] span = spans.computeIfAbsent(epoch, e -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        span[0] = Math.min(span[0], from);
        span[1] = Math.max(span[1], to);
    }

    private long origin() {
        return attempts.stream().mapToLong(Attempt::startedNs).min().orElse(0);
    }

    private String describe(Run r) {
        long origin = origin();
        return String.format(
                "epoch %d %s [%.3f s, %.3f s]",
                r.epoch(),
                r.acceptedOnly() ? "wrote" : "attempted",
                (r.fromNs() - origin) / 1e9,
                (r.toNs() - origin) / 1e9);
    }

    /** The entries {@code "pid:epoch:state"} of {@code others} whose epoch is not one the test paused. */
    private static List<String> live(String others, Set<Long> paused) {
        List<String> out = new ArrayList<>();
        if (others == null || others.isBlank()) {
            return out;
        }
        for (String o : others.trim().split(" ")) {
            if (!paused.contains(Long.parseLong(o.split(":")[1]))) {
                out.add(o);
            }
        }
        return out;
    }

    /** One line per epoch: node, accepted writes, stale attempts, and when it attempted and wrote. */
    String summary(Set<Long> paused) {
        StringBuilder out = new StringBuilder();
        Map<Long, Run> accepted = new TreeMap<>();
        acceptedRuns().forEach(r -> accepted.put(r.epoch(), r));
        for (Run r : attemptRuns(Set.of())) {
            String node = attempts.stream()
                    .filter(a -> a.epoch() == r.epoch())
                    .map(Attempt::node)
                    .findFirst()
                    .orElse("?");
            out.append(String.format(
                    "  epoch %d on %s: %d accepted, %d stale; %s; %s%s%n",
                    r.epoch(),
                    node,
                    writes.stream().filter(w -> w.epoch() == r.epoch()).count(),
                    staleOf(r.epoch()),
                    describe(r),
                    accepted.containsKey(r.epoch()) ? describe(accepted.get(r.epoch())) : "no accepted write",
                    paused.contains(r.epoch()) ? "; paused with its node" : ""));
        }
        return out.toString();
    }
}
