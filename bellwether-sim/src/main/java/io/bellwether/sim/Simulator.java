package io.bellwether.sim;

import java.util.List;

/**
 * Runs one seeded simulation: every node of {@link SimulationConfig#nodes()} runs a real elector created by
 * the config's spec, on a virtual clock, under a fault phase of overlapping random faults followed by a quiet
 * phase in which everything is healed and every node runs. Online invariant checkers watch the run.
 *
 * <p>Deterministic: the same config and seed give the same history, byte for byte. A run stops at its first
 * violation: later events would mostly show consequences of the first broken invariant, and the excerpt of
 * the first one is what a reader needs.
 *
 * <p>Thread-safe: runs share nothing, so many may run in parallel.
 */
public final class Simulator {
    private Simulator() {}

    /**
     * Runs one seed.
     *
     * @param keepHistory whether to return the whole history (costly; for replays and tests)
     */
    public static RunResult run(SimulationConfig config, long seed, boolean keepHistory) {
        return run(config, seed, keepHistory, e -> {});
    }

    /** As {@link #run(SimulationConfig, long, boolean)}, letting a test alter the engine (a mutant store). */
    static RunResult run(
            SimulationConfig config, long seed, boolean keepHistory, java.util.function.Consumer<Engine> setup) {
        Engine e = new Engine(config, seed, keepHistory, false, 2048);
        setup.accept(e);
        long faultPhase = config.faultPhase().toNanos();
        long quietPhase = config.quietPhase().toNanos();
        FaultInjector faults = new FaultInjector(e);
        faults.plan(faultPhase, quietPhase);
        e.recorder.add(0, Recorder.NETWORK, "start", 0, -1, describe(config, seed));
        try {
            e.driver.startAll();
        } catch (RuntimeException ex) {
            e.violate("no-exceptions", "an exception escaped while starting the nodes: " + ex, new int[0]);
        }
        long end = faultPhase + quietPhase;
        e.runUntil(end);
        if (e.violation == null) {
            e.invariants.onRunEnd();
        }
        e.accounting.closeLeaderOverlap();
        e.accounting.endElectionWindow();
        List<Violation> violations = e.violation == null ? List.of() : List.of(e.violation);
        return new RunResult(
                seed,
                violations,
                e.accounting.elections,
                e.accounting.electionMessages,
                e.accounting.totalMessages,
                e.accounting.failovers,
                e.events,
                e.invariants.convergenceNanos(),
                e.recorder.history(),
                e.fenced == null ? 0 : e.fenced.accepted,
                e.fenced == null ? 0 : e.fenced.staleRejected,
                e.accounting.twoLeaderNanos,
                e.accounting.twoLeaderEpisodes,
                e.accounting.electionSamples);
    }

    private static String describe(SimulationConfig config, long seed) {
        return config.algorithm() + " nodes=" + config.nodes() + " faults="
                + FaultKind.toList(SimulationConfig.ordered(config.faults())) + " seed=" + seed;
    }
}
