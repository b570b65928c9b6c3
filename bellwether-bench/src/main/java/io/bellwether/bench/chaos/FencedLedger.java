package io.bellwether.bench.chaos;

import io.bellwether.StaleTokenException;
import io.bellwether.store.jdbc.FencingGuard;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The PostgreSQL tables a fenced writer ({@link FencedWriter}, {@link FencedTaskNode}) writes to, and its write loop.
 * For a table prefix {@code P}:
 *
 * <ul>
 *   <li>{@code P_fence}: the {@link FencingGuard}'s table; every write is fenced under the one resource {@value
 *       #RESOURCE};
 *   <li>{@code P_writes}: the fenced data, {@code (epoch, node, counter)}, one row per accepted write, with the
 *       writer's pid, the wall-clock time (ns since 1970, {@code CLOCK_REALTIME}, which every process on the machine
 *       shares) at which its check passed, and, on a writer's first accepted write, the other-epoch writer processes
 *       alive at that moment ({@link #otherWriters});
 *   <li>{@code P_attempts}: every attempt, recorded (outside the fenced transaction) before it starts and again with
 *       its outcome ({@code accepted}, {@code stale}) when it ends, so a writer killed mid-attempt still leaves the
 *       attempt's start;
 *   <li>{@code P_commands}: one row per writer process as it starts, with the other-epoch writers alive then.
 * </ul>
 *
 * The serial {@code seq} of {@code P_writes} is drawn while the writer holds the fence row's lock (the check takes it
 * and keeps it to the commit), so for fenced writes it is the commit order.
 */
final class FencedLedger {
    static final String PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    /** The one fenced resource every write goes under. */
    static final String RESOURCE = "ledger";

    /** The writers' pace: one attempt, then this long before the next. */
    static final long PACE_MILLIS = 50;

    final String prefix;
    final FencingGuard guard;

    FencedLedger(String prefix) {
        if (!prefix.matches("[a-z][a-z0-9_]{0,40}")) {
            throw new IllegalArgumentException(
                    "prefix must be a lower-case SQL identifier of 1 to 41 characters, was '" + prefix + "'");
        }
        this.prefix = prefix;
        this.guard = FencingGuard.onTable(prefix + "_fence");
    }

    String writes() {
        return prefix + "_writes";
    }

    String attempts() {
        return prefix + "_attempts";
    }

    String commands() {
        return prefix + "_commands";
    }

    /** The lease table, for the lease-mode tests. */
    String lease() {
        return prefix + "_lease";
    }

    void create() throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement()) {
            guard.createTable(c);
            s.execute("CREATE TABLE " + writes() + " (seq BIGSERIAL PRIMARY KEY, epoch BIGINT NOT NULL,"
                    + " node TEXT NOT NULL, counter BIGINT NOT NULL, pid BIGINT NOT NULL, written_ns BIGINT NOT NULL,"
                    + " others TEXT)");
            s.execute("CREATE TABLE " + attempts() + " (id BIGSERIAL PRIMARY KEY, epoch BIGINT NOT NULL,"
                    + " node TEXT NOT NULL, counter BIGINT NOT NULL, pid BIGINT NOT NULL, started_ns BIGINT NOT NULL,"
                    + " ended_ns BIGINT, outcome TEXT)");
            s.execute("CREATE TABLE " + commands() + " (epoch BIGINT NOT NULL, node TEXT NOT NULL,"
                    + " pid BIGINT NOT NULL, started_ns BIGINT NOT NULL, others TEXT NOT NULL)");
        }
    }

    void drop() throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL);
                Statement s = c.createStatement()) {
            for (String table : List.of(guard.table(), writes(), attempts(), commands(), lease())) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** Now, in ns since 1970 on the machine's real-time clock (the same for every process on it). */
    static long nowNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Decides before each attempt whether the writer still acts; false ends the loop. */
    @FunctionalInterface
    interface Gate {
        boolean open();
    }

    /**
     * Writes {@code (epoch, node, counter)} through the fence every {@value #PACE_MILLIS} ms while {@code gate} is
     * open, until an attempt is refused as stale (a superseded writer stops, as {@code docs/fencing.md} says) or the
     * thread is interrupted.
     *
     * @param scanFor when present, the main class of writer processes: on its first accepted write, the writer lists
     *     the live processes of that class writing to this ledger under another epoch ({@link #otherWriters})
     * @return the outcome of the last attempt: {@code "stale"}, or {@code "stopped"} when the gate closed
     */
    String writeLoop(long epoch, String node, Gate gate, Optional<String> scanFor)
            throws SQLException, InterruptedException {
        long pid = ProcessHandle.current().pid();
        try (Connection log = DriverManager.getConnection(PG_URL + "&ApplicationName=" + prefix + "-log-" + epoch);
                Connection c = DriverManager.getConnection(PG_URL + "&ApplicationName=" + prefix + "-" + epoch)) {
            c.setAutoCommit(false);
            boolean first = true;
            for (long counter = 1; !Thread.currentThread().isInterrupted(); counter++) {
                if (!gate.open()) {
                    return "stopped";
                }
                long attempt = begin(log, epoch, node, counter, pid);
                String outcome;
                try {
                    guard.check(c, RESOURCE, epoch);
                    long written = nowNanos();
                    String others = first && scanFor.isPresent() ? otherWriters(scanFor.get(), epoch) : null;
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + writes()
                            + " (epoch, node, counter, pid, written_ns, others) VALUES (?, ?, ?, ?, ?, ?)")) {
                        ps.setLong(1, epoch);
                        ps.setString(2, node);
                        ps.setLong(3, counter);
                        ps.setLong(4, pid);
                        ps.setLong(5, written);
                        ps.setString(6, others);
                        ps.executeUpdate();
                    }
                    c.commit();
                    outcome = "accepted";
                    first = false;
                } catch (StaleTokenException stale) {
                    c.rollback();
                    outcome = "stale";
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                }
                end(log, attempt, outcome);
                if (outcome.equals("stale")) {
                    return outcome;
                }
                Thread.sleep(PACE_MILLIS); // the workload's pace, not a wait for anything
            }
            return "stopped";
        }
    }

    private long begin(Connection log, long epoch, String node, long counter, long pid) throws SQLException {
        try (PreparedStatement ps = log.prepareStatement("INSERT INTO " + attempts()
                + " (epoch, node, counter, pid, started_ns) VALUES (?, ?, ?, ?, ?) RETURNING id")) {
            ps.setLong(1, epoch);
            ps.setString(2, node);
            ps.setLong(3, counter);
            ps.setLong(4, pid);
            ps.setLong(5, nowNanos());
            try (ResultSet r = ps.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private void end(Connection log, long attempt, String outcome) throws SQLException {
        try (PreparedStatement ps =
                log.prepareStatement("UPDATE " + attempts() + " SET ended_ns = ?, outcome = ? WHERE id = ?")) {
            ps.setLong(1, nowNanos());
            ps.setString(2, outcome);
            ps.setLong(3, attempt);
            ps.executeUpdate();
        }
    }

    /** Records that a writer process of {@code epoch} started, with the other-epoch writers alive at that moment. */
    void recordStart(long epoch, String node, String mainClass) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL);
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + commands()
                        + " (epoch, node, pid, started_ns, others) VALUES (?, ?, ?, ?, ?)")) {
            ps.setLong(1, epoch);
            ps.setString(2, node);
            ps.setLong(3, ProcessHandle.current().pid());
            ps.setLong(4, nowNanos());
            ps.setString(5, otherWriters(mainClass, epoch));
            ps.executeUpdate();
        }
    }

    /** A live writer process, as the process table shows it. */
    record Writer(long pid, long epoch, char state, long pgid) {
        @Override
        public String toString() {
            return pid + ":" + epoch + ":" + state;
        }
    }

    /**
     * The writer processes of this ledger, from {@code /proc}: every live process (not a zombie) whose arguments name
     * {@code mainClass} and this ledger's prefix and whose environment has {@code BELLWETHER_EPOCH}. That covers the
     * command from the moment {@code bellwether run} starts it (its {@code setsid} and gate stages carry the same
     * arguments and environment) to its end.
     */
    List<Writer> writers(String mainClass) {
        List<Writer> found = new ArrayList<>();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path dir : proc) {
                Optional<Writer> w = writer(dir, mainClass);
                w.ifPresent(found::add);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return found;
    }

    private Optional<Writer> writer(Path dir, String mainClass) {
        try {
            List<String> args = Arrays.asList(
                    new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8).split("\0"));
            if (!args.contains(mainClass) || !args.contains(prefix)) {
                return Optional.empty();
            }
            String epoch = null;
            for (String var :
                    new String(Files.readAllBytes(dir.resolve("environ")), StandardCharsets.UTF_8).split("\0")) {
                if (var.startsWith("BELLWETHER_EPOCH=")) {
                    epoch = var.substring("BELLWETHER_EPOCH=".length());
                }
            }
            if (epoch == null) {
                return Optional.empty();
            }
            String stat = Files.readString(dir.resolve("stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            char state = fields[0].charAt(0);
            if (state == 'Z' || state == 'X') {
                return Optional.empty();
            }
            return Optional.of(new Writer(
                    Long.parseLong(dir.getFileName().toString()),
                    Long.parseLong(epoch),
                    state,
                    Long.parseLong(fields[2])));
        } catch (IOException | RuntimeException gone) {
            return Optional.empty(); // ended while being read, or not ours to read
        }
    }

    /** The live writers of another epoch than {@code epoch}, as {@code "pid:epoch:state ..."} (empty if none). */
    String otherWriters(String mainClass, long epoch) {
        StringBuilder out = new StringBuilder();
        for (Writer w : writers(mainClass)) {
            if (w.epoch() != epoch) {
                out.append(out.length() == 0 ? "" : " ").append(w);
            }
        }
        return out.toString();
    }
}
