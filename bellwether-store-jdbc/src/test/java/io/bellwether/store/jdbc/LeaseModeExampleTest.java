package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.bellwether.Election;
import io.bellwether.NodeId;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.state.InMemoryStateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Lease mode in your application", run: an election in lease mode on the application's own
 * DataSource (an in-memory H2 pool here), whose leader task runs with the lease's token. The README quotes the
 * region between the {@code [readme:lease-mode]} markers, and {@link #theReadmeQuotesThisTestsCode} keeps the two
 * the same.
 */
class LeaseModeExampleTest {
    static final Path README = Path.of("..", "README.md");
    static final Path SOURCE =
            Path.of("src", "test", "java", "io", "bellwether", "store", "jdbc", "LeaseModeExampleTest.java");

    private final HikariDataSource dataSource = applicationPool();
    private final CompletableFuture<Long> sentWithToken = new CompletableFuture<>();

    private static HikariDataSource applicationPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:readme_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    @AfterEach
    void closePool() {
        dataSource.close();
    }

    /** The application's leader-only work: here it only tells the test which token it ran with. */
    void sendDueInvoices(DataSource dataSource, long token) {
        sentWithToken.complete(token);
    }

    @Test
    void theReadmeExampleElectsOnTheApplicationsDataSourceAndRunsItsTask() throws Exception {
        String hostname = "node-a";
        // [readme:lease-mode]
        // The application's own pool: the store borrows connections from it and never closes it.
        JdbcLeaseStore store = JdbcLeaseStore.builder()
                .dataSource(dataSource)
                .createSchema(true)
                .build();
        // No transport and no member list: the members elect through the store. The group names the lease.
        Election election = Election.builder()
                .group("invoices")
                .self(NodeId.of(hostname))
                .algorithm(LeaseConfig.builder().store(store).build())
                .stateStore(new InMemoryStateStore())
                .build();
        // Runs while this member holds the lease; interrupted before the lease can lapse.
        election.runWhileLeader(leadership -> {
            while (!Thread.currentThread().isInterrupted()) {
                sendDueInvoices(dataSource, leadership.epoch()); // the epoch is the fencing token
                Thread.sleep(1_000);
            }
        });
        election.start();
        // On shutdown: election.close() releases the lease at once, then store.close().
        // [/readme:lease-mode]
        try {
            assertThat(sentWithToken.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        } finally {
            election.close();
            store.close();
        }
        assertThat(dataSource.isClosed()).isFalse();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT holder, token FROM bellwether_lease WHERE grp = 'invoices'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).startsWith("node-a-");
            assertThat(rs.getLong(2)).isEqualTo(1);
        }
    }

    @Test
    void theReadmeQuotesThisTestsCode() throws Exception {
        String readme = Files.readString(README);
        String source = Files.readString(SOURCE);
        String begin = "// [readme:lease-mode]\n";
        String end = "        // [/readme:lease-mode]";
        int from = source.indexOf(begin) + begin.length();
        String code = source.substring(from, source.indexOf(end, from)).replaceAll("(?m)^        ", "");
        assertThat(readme)
                .as("README.md quotes the region readme:lease-mode of %s", SOURCE)
                .contains(code);
    }
}
