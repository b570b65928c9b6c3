/**
 * The deterministic simulator: it runs the real electors of an algorithm on a virtual clock over a simulated
 * network and store, injects faults (crashes, partitions, loss, duplication, reordering, pauses, clock drift),
 * and checks the safety invariants at every event. Users describe a run with
 * {@link io.bellwether.sim.SimulationConfig} and run it with {@link io.bellwether.sim.Simulator} (one seed),
 * {@link io.bellwether.sim.RandomExplorer} (many seeds) or {@link io.bellwether.sim.ExhaustiveExplorer} (every
 * interleaving of a small group); a {@link io.bellwether.sim.RunResult} carries the history and any
 * {@link io.bellwether.sim.Violation}. The same seed always gives the same history. The engine, fault injector
 * and checkers are package-private.
 */
package io.bellwether.sim;
