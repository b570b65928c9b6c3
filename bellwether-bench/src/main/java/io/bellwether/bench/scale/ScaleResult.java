package io.bellwether.bench.scale;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one run of {@link ScaleTrial} measured for one group count.
 *
 * @param groups groups per member process
 * @param nodes member processes
 * @param agreedNanos from starting the processes until every group had one leader all members agreed on; empty if
 *     that did not happen within {@code ceiling}
 * @param agreedGroups groups with an agreed leader when the wait ended
 * @param peakAgreedGroups the most groups with an agreed leader at once during the wait, as the driver polled them
 * @param ceiling how long the wait for agreement could last
 * @param members each member's threads, memory and idle CPU, in member order
 * @param ledPerMember how many groups each member led at the end of the idle period, in member order
 * @param pause every member stopped at once and resumed; empty when not all groups agreed or no pause was asked
 * @param failover the kill -9 of the member leading the most groups; empty when not all groups agreed
 * @param loadAverage the machine's 1-minute load average just before the processes started
 */
record ScaleResult(
        int groups,
        int nodes,
        OptionalLong agreedNanos,
        int agreedGroups,
        int peakAgreedGroups,
        Duration ceiling,
        List<MemberUsage> members,
        List<Integer> ledPerMember,
        Optional<Pause> pause,
        Optional<Failover> failover,
        double loadAverage) {

    /**
     * One member process over the idle period.
     *
     * @param threads its threads at the end of the idle period
     * @param residentMiB its resident memory then, in MiB
     * @param idleCpuPercent its CPU time over the idle period, in percent of one core
     */
    record MemberUsage(int threads, double residentMiB, double idleCpuPercent) {}

    /**
     * Every member stopped (SIGSTOP) at once for {@code pause}, then resumed (SIGCONT).
     *
     * @param pause how long they were stopped
     * @param reagreedNanos for each group whose agreed leader some member learned anew after the resume (the same
     *     leader again or another): from the resume to the last member's stamp on the leader they agree on now
     * @param notReagreed groups without an agreed leader when the wait ended
     * @param changedLeader groups whose agreed leader or epoch is not the one before the pause
     */
    record Pause(Duration pause, List<Long> reagreedNanos, int notReagreed, int changedLeader) {}

    /**
     * The kill -9 of the member leading the most groups.
     *
     * @param victim the member killed
     * @param reledNanos for each group it led and another member led within the ceiling: from the signal to the new
     *     leader's own stamp on its election
     * @param notReled groups it led that no other member led within the ceiling
     */
    record Failover(String victim, List<Long> reledNanos, int notReled) {}
}
