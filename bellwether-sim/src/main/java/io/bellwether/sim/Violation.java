package io.bellwether.sim;

import java.util.List;

/**
 * A broken invariant in one simulated run.
 *
 * @param invariant the invariant's short name, e.g. {@code one-leader-per-term}
 * @param seed the run's seed
 * @param message what was seen, naming nodes, terms and times
 * @param excerpt the shortest part of the history that shows it
 * @param replayCommand one command line that replays this run
 */
public record Violation(String invariant, long seed, String message, List<HistoryEntry> excerpt, String replayCommand) {
    public Violation {
        excerpt = List.copyOf(excerpt);
    }
}
