package io.bellwether.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The lease node mains as the benchmark driver runs them: separate processes on the PostgreSQL at 127.0.0.1:5432
 * (db {@code test}, user {@code postgres}), each on tables of its own prefix, dropped afterwards. Without a
 * database there the process tests are skipped with a loud line (failed with {@code CI=true}).
 */
class LeaseNodesTest {
    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final Duration START_CEILING = Duration.ofSeconds(15);
    private static final Duration FAILOVER_CEILING = Duration.ofSeconds(10);

    private final List<NodeProcess> processes = new ArrayList<>();
    private final List<String> prefixes = new ArrayList<>();

    @BeforeAll
    static void database() {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 5432), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("PostgreSQL is not reachable on 127.0.0.1:5432");
        }
        if (!up) {
            System.err.println("!!! SKIPPING LeaseNodesTest: PostgreSQL is not reachable on 127.0.0.1:5432");
        }
        Assumptions.assumeTrue(up, "PostgreSQL on 127.0.0.1:5432");
    }

    @AfterEach
    void cleanUp() {
        for (NodeProcess p : processes) {
            p.process.destroyForcibly();
        }
        for (NodeProcess p : processes) {
            try {
                p.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (String prefix : prefixes) {
            LeaseNodes.dropTables(URL, prefix);
        }
    }

    static Stream<String> mainClasses() {
        return LeaseNodes.MAIN_CLASSES.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mainClasses")
    void theOtherNodeLeadsAfterTheLeaderIsKilledAndStatementsAreCounted(String mainClass) throws Exception {
        String prefix = prefix(mainClass);
        NodeProcess a = start(mainClass, "a", prefix, "2000");
        NodeProcess b = start(mainClass, "b", prefix, "2000");
        try {
            await().atMost(START_CEILING).until(() -> a.leading() || b.leading());
            // One snapshot: of the two, exactly one leads.
            boolean aLeads = a.leading();
            boolean bLeads = b.leading();
            assertThat(aLeads ^ bLeads).as("exactly one of a, b leads").isTrue();
            NodeProcess leader = aLeads ? a : b;
            NodeProcess survivor = aLeads ? b : a;
            await().atMost(START_CEILING)
                    .until(() -> leader.statements().stream().anyMatch(total -> total > 0));

            long killedAtNanos = wallNanos();
            // Through the handle: Process.destroyForcibly() would also close the pipes, and with them the log.
            leader.process.toHandle().destroyForcibly();
            assertThat(leader.process.waitFor(10, TimeUnit.SECONDS)).isTrue();

            await().atMost(FAILOVER_CEILING).until(survivor::leading);
            long tookOverAtNanos = survivor.lastLeaderNanos();
            assertThat(tookOverAtNanos)
                    .as("the survivor's leadership began after the kill")
                    .isGreaterThan(killedAtNanos);
            System.out.printf(
                    "%s: failover after kill -9 took %d ms%n",
                    mainClass, (tookOverAtNanos - killedAtNanos) / 1_000_000);

            await().atMost(START_CEILING).until(() -> {
                List<Long> totals = survivor.statements();
                return totals.size() >= 2 && totals.get(totals.size() - 1) > totals.get(0);
            });

            // SIGTERM: the leader gives the leadership up and says so before it exits.
            survivor.process.toHandle().destroy();
            assertThat(survivor.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            survivor.drained();
            assertThat(survivor.leading()).as("a follower line after SIGTERM").isFalse();
        } catch (AssertionError | Exception e) {
            a.printLog();
            b.printLog();
            throw e;
        }
    }

    @Test
    void aBadLeaseIsRefusedWithStatusTwoNamingTheArgument() throws Exception {
        for (String mainClass : LeaseNodes.MAIN_CLASSES) {
            NodeProcess p = start(mainClass, "a", "bwt_unused", "100");
            assertThat(p.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
            p.drained();
            assertThat(p.process.exitValue()).as(mainClass).isEqualTo(LeaseNodes.BAD_ARGUMENTS);
            assertThat(p.errText()).contains("LEASE_MILLIS").contains("500 to 600000");
        }
    }

    @Test
    void aBadTablePrefixIsRefusedWithStatusTwoNamingTheArgument() throws Exception {
        NodeProcess p = start(LeaseNodes.MAIN_CLASSES.get(0), "a", "Bad-Prefix", "2000");
        assertThat(p.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        p.drained();
        assertThat(p.process.exitValue()).isEqualTo(LeaseNodes.BAD_ARGUMENTS);
        assertThat(p.errText()).contains("TABLE_PREFIX").contains("'Bad-Prefix'");
    }

    @Test
    void argumentsAreCheckedOneByOne() {
        assertThat(LeaseNodes.NodeArgs.parse(new String[] {"n1", URL, "bwt_x", "500"})
                        .lease())
                .isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> LeaseNodes.NodeArgs.parse(new String[] {"n 1", URL, "bwt_x", "500"}))
                .hasMessageContaining("ID");
        assertThatThrownBy(() -> LeaseNodes.NodeArgs.parse(new String[] {"n1", "jdbc:h2:mem:x", "bwt_x", "500"}))
                .hasMessageContaining("JDBC_URL");
        assertThatThrownBy(() -> LeaseNodes.NodeArgs.parse(new String[] {"n1", URL, "bwt_x", "600001"}))
                .hasMessageContaining("LEASE_MILLIS");
        assertThatThrownBy(() -> LeaseNodes.NodeArgs.parse(new String[] {"n1", URL, "bwt_x", "two"}))
                .hasMessageContaining("LEASE_MILLIS");
        assertThatThrownBy(() -> LeaseNodes.NodeArgs.parse(new String[] {"n1", URL, "x\"; drop", "500"}))
                .hasMessageContaining("TABLE_PREFIX");
        assertThatThrownBy(() -> LeaseNodes.NodeArgs.parse(new String[] {"n1", URL}))
                .hasMessageContaining("4 arguments");
        assertThatThrownBy(() -> LeaseNodes.dropTables(URL, "a%"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TABLE_PREFIX");
    }

    @Test
    void countingDataSourceCountsEveryExecutionAndUnwrapsToTheDriver() throws SQLException {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setUrl(URL);
        CountingDataSource counting = CountingDataSource.wrap(pg);
        try (Connection c = counting.dataSource().getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                try (ResultSet rs = s.executeQuery("SELECT 2")) {
                    assertThat(rs.next()).isTrue();
                }
                assertThat(s.getConnection()).isSameAs(c);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT ?")) {
                ps.setInt(1, 3);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
            // Not statements: metadata, transaction control, unwrapping.
            c.getMetaData().getDatabaseProductName();
            c.setAutoCommit(false);
            c.commit();
            c.setAutoCommit(true);
            assertThat(c.unwrap(PGConnection.class)).isNotNull();
            assertThat(c.isWrapperFor(Connection.class)).isTrue();
        }
        assertThat(counting.statements()).isEqualTo(3);
    }

    @Test
    void dropTablesDropsOnlyThePrefixsTables() throws SQLException {
        String prefix = "bwt_drop_" + ProcessHandle.current().pid();
        String other = "bwt_keep_" + ProcessHandle.current().pid();
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setUrl(URL);
        try (Connection c = pg.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + prefix + "_one (x INT)");
            s.execute("CREATE TABLE IF NOT EXISTS " + prefix + "_two (x INT)");
            s.execute("CREATE TABLE IF NOT EXISTS " + other + " (x INT)");
            try {
                LeaseNodes.dropTables(URL, prefix);
                assertThat(tablesStartingWith(s, prefix)).isEmpty();
                assertThat(tablesStartingWith(s, other)).containsExactly(other);
            } finally {
                s.execute("DROP TABLE IF EXISTS " + other);
                s.execute("DROP TABLE IF EXISTS " + prefix + "_one");
                s.execute("DROP TABLE IF EXISTS " + prefix + "_two");
            }
        }
    }

    private static List<String> tablesStartingWith(Statement s, String prefix) throws SQLException {
        List<String> names = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables"
                + " WHERE table_schema = current_schema() ORDER BY table_name")) {
            while (rs.next()) {
                if (rs.getString(1).startsWith(prefix)) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /** A table prefix of this test process and system. */
    private String prefix(String mainClass) {
        String system = mainClass.substring(mainClass.lastIndexOf('.') + 1).toLowerCase(java.util.Locale.ROOT);
        String prefix =
                "bwt_" + system.substring(0, 2) + "_" + ProcessHandle.current().pid();
        prefixes.add(prefix);
        return prefix;
    }

    private NodeProcess start(String mainClass, String id, String prefix, String leaseMillis) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                mainClass,
                id,
                URL,
                prefix,
                leaseMillis);
        NodeProcess p = new NodeProcess(mainClass + " " + id, pb.start());
        processes.add(p);
        return p;
    }

    private static long wallNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** A node process and what it has printed so far. */
    private static final class NodeProcess {
        final String name;
        final Process process;
        final List<String> out = new CopyOnWriteArrayList<>();
        final List<String> err = new CopyOnWriteArrayList<>();
        private final Thread outReader;
        private final Thread errReader;

        NodeProcess(String name, Process process) {
            this.name = name;
            this.process = process;
            this.outReader = drain(process.getInputStream(), out, name + " stdout");
            this.errReader = drain(process.getErrorStream(), err, name + " stderr");
        }

        private static Thread drain(InputStream in, List<String> lines, String name) {
            Thread t = new Thread(
                    () -> {
                        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = r.readLine()) != null) {
                                lines.add(line);
                            }
                        } catch (IOException e) {
                            lines.add("(reading failed: " + e + ")");
                        }
                    },
                    name);
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** Waits (bounded) until both streams have been read to their end, after the process exited. */
        void drained() throws InterruptedException {
            outReader.join(5000);
            errReader.join(5000);
        }

        String errText() {
            return String.join("\n", err);
        }

        /** Whether the last of its leader and follower lines is a leader line. */
        boolean leading() {
            return lastRoleLine().map(l -> l.startsWith("bw-peer leader ")).orElse(false);
        }

        long lastLeaderNanos() {
            long nanos = -1;
            for (String line : out) {
                if (line.startsWith("bw-peer leader ")) {
                    nanos = Long.parseLong(line.substring("bw-peer leader ".length()));
                }
            }
            return nanos;
        }

        List<Long> statements() {
            List<Long> totals = new ArrayList<>();
            for (String line : out) {
                if (line.startsWith("bw-peer statements ")) {
                    totals.add(Long.parseLong(line.substring("bw-peer statements ".length())));
                }
            }
            return totals;
        }

        private Optional<String> lastRoleLine() {
            String last = null;
            for (String line : out) {
                if (line.startsWith("bw-peer leader ") || line.startsWith("bw-peer follower ")) {
                    last = line;
                }
            }
            return Optional.ofNullable(last);
        }

        void printLog() {
            System.err.println("----- " + name + " (" + (process.isAlive() ? "running" : "exit " + process.exitValue())
                    + ") stdout:");
            out.forEach(System.err::println);
            System.err.println("----- " + name + " stderr:");
            err.forEach(System.err::println);
        }
    }
}
