package io.bellwether.sim;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One election, measured alone: every node of the group starts, the group settles on a leader that every node
 * names, then one fault hits that leader and nothing else happens until the group has converged on a new
 * leader. The result is one {@link ElectionSample}: what one election costs at this group size, free of the
 * overlapping faults of a random run. Invariant checkers watch the whole trial; the config's fault kinds and
 * phases are ignored.
 *
 * <p>Deterministic: the same config, seed and trigger give the same sample. Thread-safe: trials share nothing.
 */
public final class ElectionTrial {
    /** The faults that can start a trial's election: they take the leader away for good. */
    public static final Set<FaultKind> TRIGGERS = EnumSet.of(FaultKind.CRASH, FaultKind.SILENT_CRASH, FaultKind.STOP);

    /** How long the group may take to settle on its first leader (virtual time). */
    static final long SETTLE_LIMIT_NANOS = 60_000_000_000L;
    /** How long the first leader must stay, named by every node, before the trigger (virtual time). */
    static final long STABLE_NANOS = 1_000_000_000L;
    /** How long the election may take after the trigger before the trial gives up (virtual time). */
    static final long ELECTION_LIMIT_NANOS = 60_000_000_000L;

    private static final long STEP_NANOS = 10_000_000L;

    private ElectionTrial() {}

    /**
     * The outcome of one trial.
     *
     * @param seed the seed
     * @param trigger the fault that hit the leader
     * @param sample the measured election; empty if the group never settled, the election did not converge
     *     within {@link #ELECTION_LIMIT_NANOS}, or an invariant was violated
     * @param violation the first violated invariant, or empty
     * @param settledNanos virtual time from the start until the trigger
     */
    public record Result(
            long seed,
            FaultKind trigger,
            Optional<ElectionSample> sample,
            Optional<Violation> violation,
            long settledNanos) {
        public Result {
            Objects.requireNonNull(trigger, "trigger");
            Objects.requireNonNull(sample, "sample");
            Objects.requireNonNull(violation, "violation");
        }
    }

    /**
     * Runs one trial.
     *
     * @throws IllegalArgumentException if {@code trigger} is not one of {@link #TRIGGERS}
     */
    public static Result run(SimulationConfig config, long seed, FaultKind trigger) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(trigger, "trigger");
        if (!TRIGGERS.contains(trigger)) {
            throw new IllegalArgumentException(
                    "trigger = " + trigger.cliName() + " is not allowed: allowed " + FaultKind.toList(TRIGGERS));
        }
        Engine e = new Engine(config, seed, false, false, 2048);
        e.replayOverride = "ElectionTrial.run(SimulationConfig.forAlgorithm(\"" + config.algorithm() + "\", "
                + config.nodes() + ", Set.of()), " + seed + ", FaultKind." + trigger.name() + ")";
        e.recorder.add(
                0,
                Recorder.NETWORK,
                "start",
                0,
                -1,
                config.algorithm() + " nodes=" + config.nodes() + " election trial, trigger=" + trigger.cliName()
                        + " seed=" + seed);
        try {
            e.driver.startAll();
        } catch (RuntimeException ex) {
            e.violate("no-exceptions", "an exception escaped while starting the nodes: " + ex, new int[0]);
        }
        int leader = settle(e);
        long settled = e.now;
        if (leader >= 0 && e.violation == null) {
            SimNode node = e.nodes[leader];
            e.recorder.add(e.now, Recorder.NETWORK, trigger.cliName(), 0, -1, "the leader " + node.id);
            e.accounting.openElectionWindow(trigger);
            switch (trigger) {
                case CRASH -> e.driver.crash(node, false);
                case SILENT_CRASH -> e.driver.crash(node, true);
                case STOP -> e.driver.stop(node);
                default -> throw new IllegalStateException("trigger " + trigger);
            }
            long limit = e.now + ELECTION_LIMIT_NANOS;
            while (e.violation == null && e.accounting.measuringElection() && e.now < limit) {
                e.runUntil(Math.min(limit, e.now + STEP_NANOS));
            }
            e.accounting.endElectionWindow();
        }
        Optional<Violation> violation = Optional.ofNullable(e.violation);
        Optional<ElectionSample> sample = violation.isPresent() || e.accounting.electionSamples.isEmpty()
                ? Optional.empty()
                : Optional.of(e.accounting.electionSamples.get(0));
        return new Result(seed, trigger, sample, violation, settled);
    }

    /**
     * Runs seeds {@code seedStart ..< seedStart + trials} on {@code threads} threads; results in seed order,
     * independent of the number of threads.
     */
    public static List<Result> run(
            SimulationConfig config, long seedStart, int trials, FaultKind trigger, int threads) {
        if (trials < 0 || threads < 1) {
            throw new IllegalArgumentException(
                    "trials = " + trials + ", threads = " + threads + " are invalid: need trials >= 0, threads >= 1");
        }
        return ParallelRuns.run(
                trials,
                threads,
                "bellwether-trial",
                i -> run(config, seedStart + i, trigger),
                () -> {},
                "trials interrupted",
                "a trial failed: ");
    }

    /**
     * Runs until one leader, named by every node, has stayed so for {@link #STABLE_NANOS}; returns it, or -1 if
     * that did not happen within {@link #SETTLE_LIMIT_NANOS} (or an invariant broke).
     */
    private static int settle(Engine e) {
        int leader = -1;
        long epoch = 0;
        long since = -1;
        while (e.violation == null && e.now < SETTLE_LIMIT_NANOS) {
            e.runUntil(e.now + STEP_NANOS);
            int now = e.accounting.convergedLeader();
            if (now < 0) {
                since = -1;
                continue;
            }
            long nowEpoch = e.nodes[now].state.epoch();
            if (since < 0 || now != leader || nowEpoch != epoch) {
                leader = now;
                epoch = nowEpoch;
                since = e.now;
            } else if (e.now - since >= STABLE_NANOS) {
                return leader;
            }
        }
        return -1;
    }
}
