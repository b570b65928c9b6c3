package io.bellwether.examples.jobs;

import io.bellwether.StaleTokenException;
import io.bellwether.store.jdbc.FencingGuard;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job's table, {@code job_runs (counter, epoch, node, ran_at)}, written only through a {@link FencingGuard}:
 * each write checks the writer's epoch against the highest epoch the table has accepted, in the write's own
 * transaction, so that a leader that has been superseded (paused past its lease, say) cannot add a row after its
 * successor has added one.
 */
// A @Component rather than a @Repository: the job must see the guard's StaleTokenException as it is, untranslated.
@Component
public class JobRuns implements InitializingBean {
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final FencingGuard guard;
    private final String table;

    /**
     * @param jdbc the application's {@code JdbcTemplate}
     * @param transactionManager the application's transaction manager, over the same {@code DataSource}
     * @param table the job's table ({@code jobs.table}): letters, digits and {@code _}, not starting with a digit,
     *     at most 63 characters
     * @param fenceTable the fencing guard's table ({@code jobs.fence-table}), the same kind of name
     * @throws IllegalArgumentException if a table name is not such a name
     */
    public JobRuns(
            JdbcTemplate jdbc,
            PlatformTransactionManager transactionManager,
            @Value("${jobs.table:job_runs}") String table,
            @Value("${jobs.fence-table:" + FencingGuard.DEFAULT_TABLE + "}") String fenceTable) {
        this.table = checkTableName("jobs.table", table);
        this.guard = FencingGuard.onTable(checkTableName("jobs.fence-table", fenceTable));
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    private static String checkTableName(String key, String value) {
        if (value == null || !TABLE_NAME.matcher(value).matches()) {
            throw new IllegalArgumentException(key + " = '" + value + "' is not a table name: allowed are letters,"
                    + " digits and '_', not starting with a digit, at most 63 characters");
        }
        return value;
    }

    /** Creates both tables if they do not exist yet. */
    @Override
    public void afterPropertiesSet() {
        try {
            createTables();
        } catch (DataAccessException e) {
            // Instances started together race to create the tables, and PostgreSQL can fail the loser of two
            // concurrent CREATE TABLE IF NOT EXISTS; once the winner has committed, the statement is a no-op.
            createTables();
        }
    }

    private void createTables() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS " + table + " (counter BIGINT NOT NULL PRIMARY KEY,"
                + " epoch BIGINT NOT NULL, node VARCHAR(64) NOT NULL, ran_at TIMESTAMP NOT NULL)");
        jdbc.execute((ConnectionCallback<Void>) c -> {
            guard.createTable(c);
            return null;
        });
    }

    /**
     * Appends the next run, numbered one above the table's highest, if {@code epoch} is not lower than the highest
     * epoch the table has accepted. The check and the insert are one transaction: both commit, or neither.
     *
     * @param epoch the writer's leadership epoch, its fencing token
     * @param node the writer's node name
     * @return the row written
     * @throws StaleTokenException if a later leadership has written: nothing was written
     */
    public JobRun append(long epoch, String node) {
        return transactions.execute(status -> {
            // The guard locks the table's fence row until the transaction ends: the fenced writers are serialised,
            // so MAX(counter) + 1 below cannot be taken twice.
            jdbc.execute((ConnectionCallback<Void>) c -> {
                guard.check(c, table, epoch);
                return null;
            });
            Long highest = jdbc.queryForObject("SELECT MAX(counter) FROM " + table, Long.class);
            JobRun run = new JobRun(highest == null ? 1 : highest + 1, epoch, node, Instant.now());
            jdbc.update(
                    "INSERT INTO " + table + " (counter, epoch, node, ran_at) VALUES (?, ?, ?, ?)",
                    run.counter(),
                    run.epoch(),
                    run.node(),
                    Timestamp.from(run.ranAt()));
            return run;
        });
    }

    /** Every row, in the order of their counters. */
    public List<JobRun> all() {
        return jdbc.query(
                "SELECT counter, epoch, node, ran_at FROM " + table + " ORDER BY counter",
                (rs, i) -> new JobRun(
                        rs.getLong(1),
                        rs.getLong(2),
                        rs.getString(3),
                        rs.getTimestamp(4).toInstant()));
    }
}
