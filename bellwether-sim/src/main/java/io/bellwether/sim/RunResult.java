package io.bellwether.sim;

import java.util.List;

/**
 * The outcome of one simulated run (one seed).
 *
 * @param seed the seed
 * @param violations broken invariants (empty when the run was correct)
 * @param elections leaderships won during the run
 * @param electionMessages election messages: every message but the periodic ones (heartbeats and their answers,
 *     the invitation algorithm's AreYouThere and AreYouCoordinator probes and their answers); see {@link
 *     ElectionSample}
 * @param totalMessages all messages sent
 * @param failovers one sample per fault that hit a leader and was followed by a new election
 * @param events events the simulator processed
 * @param convergenceNanos from the end of the fault phase to a single leader known by every live node, or -1
 * @param history the whole history, when the run was asked to keep it; otherwise empty
 * @param fencedWrites lease runs: leader writes the fenced resource accepted (0 for other algorithms)
 * @param staleWritesRejected lease runs: writes the fenced resource rejected because a newer token had
 *     written (stale leaders saved by fencing; 0 for other algorithms)
 * @param twoLeaderNanos virtual time during which two or more running, unpaused nodes had announced LEADER at
 *     once (the price of split brain: expected under partitions for bully and ring, which do not prevent it;
 *     for quorum and lease only the brief moment before a deposed leader learns it, whose validity has already
 *     ended)
 * @param twoLeaderEpisodes how many separate periods with two or more such leaders there were
 * @param electionSamples the elections measured message by message: one per fault that hit the leader of a
 *     converged group and was followed by convergence on a new leader before any other fault (see {@link
 *     ElectionSample})
 */
public record RunResult(
        long seed,
        List<Violation> violations,
        int elections,
        long electionMessages,
        long totalMessages,
        List<FailoverSample> failovers,
        long events,
        long convergenceNanos,
        List<HistoryEntry> history,
        long fencedWrites,
        long staleWritesRejected,
        long twoLeaderNanos,
        int twoLeaderEpisodes,
        List<ElectionSample> electionSamples) {
    /** Copies the lists, so that a result cannot change after the run. */
    public RunResult {
        violations = List.copyOf(violations);
        failovers = List.copyOf(failovers);
        history = List.copyOf(history);
        electionSamples = List.copyOf(electionSamples);
    }

    /** Whether the run broke no invariant. */
    public boolean ok() {
        return violations.isEmpty();
    }
}
