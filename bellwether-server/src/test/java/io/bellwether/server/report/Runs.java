package io.bellwether.server.report;

import io.bellwether.sim.FailoverSample;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.HistoryEntry;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.Violation;
import java.util.List;

/** Synthetic run results, so that reports can be tested without running the simulator. */
final class Runs {
    private Runs() {}

    static final long MS = 1_000_000L;

    static RunResult ok(long seed, int elections, long electionMessages, long convergenceNanos, FailoverSample... f) {
        return new RunResult(
                seed,
                List.of(),
                elections,
                electionMessages,
                electionMessages * 3,
                List.of(f),
                1000,
                convergenceNanos,
                List.of(),
                0,
                0,
                0,
                0,
                List.of());
    }

    static RunResult violating(long seed, String invariant, String message) {
        Violation violation = new Violation(
                invariant,
                seed,
                message,
                List.of(
                        new HistoryEntry(10 * MS, "n1", "role", 2, "CANDIDATE -> LEADER"),
                        new HistoryEntry(12 * MS, "n2", "role", 2, "CANDIDATE -> LEADER")),
                "./bellwether simulate --nodes 5 --seed-start " + seed + " --seeds 1");
        return new RunResult(seed, List.of(violation), 2, 10, 30, List.of(), 500, -1, List.of(), 0, 0, 0, 0, List.of());
    }

    static FailoverSample failover(FaultKind kind, long millis, long messages) {
        return new FailoverSample(kind, millis * MS, messages);
    }
}
