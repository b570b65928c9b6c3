package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.StaleTokenException;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.spi.ForwardingLeaseStore;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.state.InMemoryStateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The example of {@code docs/fencing.md}, run: two lease elections on H2; the old leader's write passes {@code
 * checkValid()}, then its process pauses (its thread waits on a latch, its lease store stops answering) until the
 * lease has passed to the other member, which writes; then the old write resumes. Unguarded, the stale write
 * lands; guarded, it is refused. The doc quotes the regions between the {@code [fencing:...]} markers, and {@link
 * #theDocumentationQuotesThisTestsCode} checks that it still does, word for word.
 */
class FencingExampleTest {
    static final long CEILING_SECONDS = 60;
    static final Path DOC = Path.of("..", "docs", "fencing.md");
    static final Path SOURCE =
            Path.of("src", "test", "java", "io", "bellwether", "store", "jdbc", "FencingExampleTest.java");

    final String url =
            "jdbc:h2:mem:bw_fence_example_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
    final List<AutoCloseable> closeables = new ArrayList<>();
    final InProcessNetwork network = new InProcessNetwork();
    final FencingGuard guard = FencingGuard.create();

    /** Armed for the old leader's write: where a GC pause or SIGSTOP strikes. */
    volatile CountDownLatch pausedAfterCheck = new CountDownLatch(0);

    volatile CountDownLatch resume = new CountDownLatch(0);

    @BeforeEach
    void createTables() throws SQLException {
        try (Connection c = connection();
                Statement s = c.createStatement()) {
            guard.createTable(c);
            s.execute("CREATE TABLE invoices (id VARCHAR(100) PRIMARY KEY, epoch BIGINT NOT NULL)");
        }
    }

    @AfterEach
    void close() throws Exception {
        resume.countDown();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        network.close();
    }

    Connection connection() throws SQLException {
        return DriverManager.getConnection(url);
    }

    /** The point in a write where the pause strikes: does nothing unless the test armed it. */
    void pauseHere() {
        CountDownLatch r = resume;
        pausedAfterCheck.countDown();
        try {
            r.await(CEILING_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // [fencing:unguarded]
    void recordInvoiceUnguarded(Leadership leadership, String invoice) throws SQLException {
        leadership.checkValid(); // passes: this member leads, right now
        pauseHere(); // a GC pause or SIGSTOP: the lease lapses, another member leads and writes
        try (Connection c = connection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO invoices (id, epoch) VALUES (?, ?)")) {
            ps.setString(1, invoice);
            ps.setLong(2, leadership.epoch());
            ps.executeUpdate(); // lands, although this member has not led for a while
        }
    }
    // [/fencing:unguarded]

    // [fencing:guarded]
    void recordInvoice(Leadership leadership, String invoice) throws SQLException {
        leadership.checkValid(); // still worth it: fails fast in the common case
        pauseHere(); // the same pause
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            try {
                guard.check(c, "invoices", leadership.epoch()); // throws StaleTokenException if superseded
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO invoices (id, epoch) VALUES (?, ?)")) {
                    ps.setString(1, invoice);
                    ps.setLong(2, leadership.epoch());
                    ps.executeUpdate();
                }
                c.commit(); // check and write commit together, or not at all
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }
    // [/fencing:guarded]

    interface Write {
        void run(Leadership leadership, String invoice) throws SQLException;
    }

    /**
     * The scenario of the doc: returns how the old leader's write ended (null when it landed, else its failure)
     * after the new leader has written.
     */
    Throwable oldLeaderWritesAcrossAPause(Write write) throws Exception {
        PausableStore storeOfA = new PausableStore(store());
        CompletableFuture<Leadership> a = elect(NodeId.of("a"), storeOfA);
        Leadership old = a.get(CEILING_SECONDS, TimeUnit.SECONDS);
        CompletableFuture<Leadership> b = elect(NodeId.of("b"), store());

        CountDownLatch oldResumes = new CountDownLatch(1);
        pausedAfterCheck = new CountDownLatch(1);
        resume = oldResumes;
        CompletableFuture<Void> oldWrite = CompletableFuture.runAsync(() -> {
            try {
                write.run(old, "from-old-leader");
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
        assertThat(pausedAfterCheck.await(CEILING_SECONDS, TimeUnit.SECONDS)).isTrue(); // past checkValid()
        storeOfA.pause(); // the whole process pauses: its renewals stop too
        pausedAfterCheck = new CountDownLatch(0);
        resume = new CountDownLatch(0);

        Leadership current = b.get(CEILING_SECONDS, TimeUnit.SECONDS); // the lease lapsed; b leads
        assertThat(current.epoch()).isGreaterThan(old.epoch());
        write.run(current, "from-new-leader");
        storeOfA.resume();
        oldResumes.countDown(); // the old leader's process resumes
        try {
            oldWrite.get(CEILING_SECONDS, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void checkValidAloneLetsAWriteThatWasInFlightDuringAPauseLandAfterTheNewLeadersWrite() throws Exception {
        Throwable outcome = oldLeaderWritesAcrossAPause(this::recordInvoiceUnguarded);

        assertThat(outcome).isNull();
        assertThat(invoices()).containsExactly("from-new-leader", "from-old-leader"); // the stale write landed
    }

    @Test
    void theGuardRefusesTheWriteThatWasInFlightDuringThePause() throws Exception {
        Throwable outcome = oldLeaderWritesAcrossAPause(this::recordInvoice);

        assertThat(outcome).isInstanceOf(StaleTokenException.class);
        StaleTokenException stale = (StaleTokenException) outcome;
        assertThat(stale.highestToken()).isGreaterThan(stale.offeredToken());
        assertThat(invoices()).containsExactly("from-new-leader");
    }

    @Test
    void theDocumentationQuotesThisTestsCode() throws Exception {
        String doc = Files.readString(DOC);
        String source = Files.readString(SOURCE);
        for (String region : List.of("unguarded", "guarded")) {
            String begin = "// [fencing:" + region + "]\n";
            String end = "    // [/fencing:" + region + "]";
            int from = source.indexOf(begin) + begin.length();
            String code = source.substring(from, source.indexOf(end, from)).replaceAll("(?m)^    ", "");
            assertThat(doc)
                    .as("docs/fencing.md quotes region %s of %s", region, SOURCE)
                    .contains(code);
        }
    }

    List<String> invoices() throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = connection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM invoices ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    LeaseStore store() {
        JdbcLeaseStore s = JdbcLeaseStore.builder()
                .url(url)
                .table("bw_fence_example_lease")
                .createSchema(true)
                .build();
        closeables.add(s);
        return s;
    }

    CompletableFuture<Leadership> elect(NodeId self, LeaseStore store) {
        LeaseConfig config = LeaseConfig.builder()
                .store(store)
                .duration(Duration.ofSeconds(1))
                .build();
        Election e = Election.builder()
                .group("invoices")
                .self(self)
                .member(self, NodeAddress.parse("127.0.0.1:7101"))
                .algorithm(config)
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(self))
                .seed(self.value().hashCode())
                .build();
        CompletableFuture<Leadership> elected = new CompletableFuture<>();
        e.addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                elected.complete(leadership);
            }
        });
        closeables.add(e);
        e.start();
        return elected;
    }

    /** A lease store that stops answering while its process is "paused", as a SIGSTOPped member's would. */
    static final class PausableStore extends ForwardingLeaseStore {
        private volatile CompletableFuture<Void> running = CompletableFuture.completedFuture(null);

        PausableStore(LeaseStore delegate) {
            super(delegate);
        }

        void pause() {
            running = new CompletableFuture<>();
        }

        void resume() {
            running.complete(null);
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            return running.thenCompose(v -> delegate.acquireOrRenew(group, holder, token, d));
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return running.thenCompose(v -> delegate.release(group, holder, token));
        }
    }
}
