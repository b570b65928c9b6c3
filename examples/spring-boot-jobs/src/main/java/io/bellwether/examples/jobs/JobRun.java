package io.bellwether.examples.jobs;

import java.time.Instant;

/**
 * One row of the job's table.
 *
 * @param counter the run's number, counted across every leader: 1, 2, 3, ...
 * @param epoch the leadership (fencing token) under which it ran
 * @param node the instance that ran it
 * @param ranAt when it was written
 */
public record JobRun(long counter, long epoch, String node, Instant ranAt) {}
