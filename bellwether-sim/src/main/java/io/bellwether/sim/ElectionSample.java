package io.bellwether.sim;

/**
 * The cost of one election, attributed message by message. A sample starts when a fault hits the leader of a
 * converged group (every live node names that leader at its epoch) and the group converges again on a new
 * leadership: exactly one live node is LEADER and every live node names it at its epoch. No other fault may
 * start or heal in between; a sample whose election is interrupted so is discarded.
 *
 * <p>What is counted:
 *
 * <ul>
 *   <li>{@link #messages}: every <em>election message</em> sent by any node from the fault until the election's
 *       traffic has died down: convergence, then {@value ElectionAccounting#ELECTION_QUIET_NANOS} ns (1 s) without an
 *       election message. Messages that are lost or sent to the crashed node count (they were sent), and so do
 *       retransmissions and the application-level acknowledgements of the classic algorithms. The tail after
 *       convergence matters: a ring member may learn the new leader from its heartbeat before the COORDINATOR
 *       announcement has gone round, and the announcement still costs its hops.
 *   <li>Election messages are all messages except the periodic ones, which flow whether or not an election is
 *       under way: heartbeats and their answers (quorum, bully, ring) and the invitation algorithm's probes
 *       ({@code AreYouThere}, {@code AreYouCoordinator} and their answers). A converged group sends no election
 *       messages, which is what lets the tail end. Periodic messages are counted apart in {@link #heartbeats},
 *       from the fault until convergence only, even where they carry the news of the new leader (as quorum and
 *       ring heartbeats do) or find the groups to merge (as invitation's probes do).
 * </ul>
 *
 * @param cause the fault that hit the leader
 * @param nanos from the fault until convergence (true simulated time)
 * @param messages election messages, tail included
 * @param heartbeats monitoring messages from the fault until convergence (not in {@code messages})
 * @param storeRequests lease store requests from the fault until convergence (lease runs; 0 otherwise)
 * @param leaderships leaderships announced from the fault until convergence; 1 when one node won at once
 * @param complete whether the tail ended (1 s without an election message) before the next fault or the end of
 *     the run; when false, {@code messages} may lack the last few
 */
public record ElectionSample(
        FaultKind cause,
        long nanos,
        long messages,
        long heartbeats,
        long storeRequests,
        int leaderships,
        boolean complete) {}
