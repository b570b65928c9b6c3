package io.bellwether.examples.jobs;

import io.bellwether.Election;
import io.bellwether.Leadership;
import io.bellwether.StaleTokenException;
import io.bellwether.spring.CurrentLeadership;
import io.bellwether.spring.LeaderOnly;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The leader-only job: every {@code jobs.interval} (1 s by default), on the instance that leads, one row in
 * {@code job_runs}. On the other instances the call is skipped by {@code @LeaderOnly} before it starts.
 */
@Component
public class RecordRunJob {
    private static final Logger log = LoggerFactory.getLogger(RecordRunJob.class);

    private final JobRuns runs;
    private final String node;

    /**
     * @param runs the job's table
     * @param election the starter's election, for this instance's node name
     */
    public RecordRunJob(JobRuns runs, Election election) {
        this.runs = runs;
        this.node = election.self().value();
    }

    /** One run: writes a row under this instance's leadership, fenced by its epoch. */
    @LeaderOnly
    @Scheduled(fixedDelayString = "${jobs.interval:1s}")
    public void run() {
        Leadership leadership = CurrentLeadership.require();
        try {
            leadership.checkValid(); // fails fast in the common case; the guard covers the rest
            JobRun run = runs.append(leadership.epoch(), node);
            log.info("job run #{} written by {} in epoch {}", run.counter(), run.node(), run.epoch());
        } catch (StaleTokenException e) {
            // A later leadership has written: this one is over, whatever this instance still believes.
            log.warn(
                    "job run refused: {} offered epoch {}, but {} has accepted epoch {}",
                    node,
                    e.offeredToken(),
                    e.resource(),
                    e.highestToken());
        }
    }
}
