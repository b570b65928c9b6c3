package io.bellwether.examples.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.StaleTokenException;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The job's write, on its own: the fencing check and the insert commit together, or neither does. */
class JobRunsTest {
    private JdbcTemplate jdbc;
    private JobRuns runs;

    @BeforeEach
    void database() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:job-runs-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        jdbc = new JdbcTemplate(dataSource);
        runs = new JobRuns(jdbc, new DataSourceTransactionManager(dataSource), "job_runs", "job_fence");
        runs.afterPropertiesSet();
    }

    @Test
    void runsAreNumberedAcrossLeadersAndALaterEpochIsAccepted() {
        runs.append(5, "n1");
        runs.append(5, "n1");
        runs.append(6, "n2");

        assertThat(runs.all())
                .extracting(JobRun::counter, JobRun::epoch, JobRun::node)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, 5L, "n1"),
                        org.assertj.core.groups.Tuple.tuple(2L, 5L, "n1"),
                        org.assertj.core.groups.Tuple.tuple(3L, 6L, "n2"));
    }

    @Test
    void aWriteOfAnEpochLowerThanOneAlreadyWrittenIsRefusedAndLeavesNoRow() {
        runs.append(5, "n1");
        runs.append(6, "n2");

        assertThatThrownBy(() -> runs.append(5, "n1")).isInstanceOfSatisfying(StaleTokenException.class, e -> {
            assertThat(e.offeredToken()).isEqualTo(5);
            assertThat(e.highestToken()).isEqualTo(6);
        });

        assertThat(runs.all()).extracting(JobRun::epoch).containsExactly(5L, 6L);
        assertThat(jdbc.queryForObject("SELECT token FROM job_fence WHERE resource = 'job_runs'", Long.class))
                .isEqualTo(6);
    }

    @Test
    void aTableNameThatIsNotAnIdentifierIsRefusedNamingItsProperty() {
        assertThatThrownBy(() -> new JobRuns(jdbc, null, "job_runs; DROP TABLE x", "job_fence"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobs.table")
                .hasMessageContaining("job_runs; DROP TABLE x");
        assertThatThrownBy(() -> new JobRuns(jdbc, null, "job_runs", "9fence"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobs.fence-table");
    }
}
