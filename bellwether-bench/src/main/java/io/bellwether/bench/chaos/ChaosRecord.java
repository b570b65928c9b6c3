package io.bellwether.bench.chaos;

import java.util.List;

/**
 * Everything one chaos run recorded, and the checker's verdict on it: what the HTML report draws and the
 * summary prints. Every time is in nanoseconds since 1970 on the machine's real-time clock ({@code CLOCK_REALTIME},
 * which every process on the machine shares).
 *
 * @param algorithm the algorithm the nodes ran ({@code quorum}, {@code lease}, {@code bully}, {@code ring}, {@code
 *     invitation})
 * @param store for {@code lease}, the store ({@code postgres}, {@code redis}); empty otherwise
 * @param mode how the leader's work ran: {@code task} (a {@code runWhileLeader} task in the node) or {@code command}
 *     ({@code bellwether run})
 * @param seed the seed of the fault schedule
 * @param replay the command line that replays this schedule
 * @param nodes the member ids, in order
 * @param startedNs when the first node was started
 * @param endedNs when the run ended (the last observation)
 * @param faults the faults injected, in the order they began
 * @param observations what each node's {@code /status} said, in time order
 * @param attempts every write attempt of the leaders' work, in the order they began
 * @param verdict the checker's findings
 */
public record ChaosRecord(
        String algorithm,
        String store,
        String mode,
        long seed,
        String replay,
        List<String> nodes,
        long startedNs,
        long endedNs,
        List<Fault> faults,
        List<Observation> observations,
        List<Attempt> attempts,
        Verdict verdict) {

    /**
     * One fault of the schedule.
     *
     * @param kind its kind: {@code kill}, {@code pause}, {@code partition}, {@code one-way}, {@code isolate},
     *     {@code flap}, {@code delay}, {@code throttle}, {@code store-outage}
     * @param description what was done, for people ({@code "pause n2 (the leader) for 2.4 s"})
     * @param targets the nodes it hit (for a partition: the nodes of the minority side)
     * @param fromNs when it began
     * @param toNs when it was healed: the node restarted or resumed, the network restored
     */
    public record Fault(String kind, String description, List<String> targets, long fromNs, long toNs) {}

    /**
     * One poll of one node's {@code /status}.
     *
     * @param node the node polled
     * @param atNs when its answer arrived
     * @param role {@code LEADER}, {@code FOLLOWER}, {@code CANDIDATE} or another role the node reports; or, when it
     *     did not answer, {@code DOWN} (its process was not running), {@code PAUSED} (stopped by the harness) or
     *     {@code UNREACHABLE} (running but no answer in time)
     * @param leader the leader the node knows, or null
     * @param epoch the epoch it reports (0 when it reports none)
     */
    public record Observation(String node, long atNs, String role, String leader, long epoch) {}

    /**
     * One write attempt of a leader's work through the fencing guard.
     *
     * @param epoch the leadership's epoch, the fencing token
     * @param node the node whose work made it
     * @param counter the writer's counter
     * @param startedNs when it began
     * @param endedNs when it ended, or 0 if it never recorded an end (its process died)
     * @param outcome {@code accepted}, {@code stale} (refused by the fence) or empty (never ended)
     */
    public record Attempt(long epoch, String node, long counter, long startedNs, long endedNs, String outcome) {}

    /**
     * How long after a fault was healed every running member agreed on one leader that said it led.
     *
     * @param fault the index of the fault in {@link ChaosRecord#faults()}
     * @param convergedNs when they agreed, or 0 if they did not before the next fault began or the run ended
     * @param boundNs the bound the checker holds it to
     */
    public record Recovery(int fault, long convergedNs, long boundNs) {}

    /**
     * The checker's findings.
     *
     * @param violations every broken rule, described; empty when the run held
     * @param recoveries one per fault
     * @param overlapsCaughtByFence the overlaps in real time between two epochs' writers that involved a writer paused
     *     longer than the margin, where only the fence stood between the stale writer and the data
     * @param accepted accepted writes
     * @param stale attempts the fence refused
     */
    public record Verdict(
            List<String> violations, List<Recovery> recoveries, int overlapsCaughtByFence, long accepted, long stale) {}
}
