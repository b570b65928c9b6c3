/**
 * {@code bellwether chaos}: real node processes on loopback behind fault-injecting proxies ({@link
 * io.bellwether.bench.chaos.ChaosNetwork}), a seeded fault schedule ({@link io.bellwether.bench.chaos.Nemesis}), leader
 * work that writes through the fencing guard into PostgreSQL ({@link io.bellwether.bench.chaos.FencedLedger}), a
 * checker that reads the whole history afterwards ({@link io.bellwether.bench.chaos.ChaosChecker}) and an HTML report
 * ({@link io.bellwether.bench.chaos.ChaosReport}); {@link io.bellwether.bench.chaos.ChaosHarness} runs them and {@link
 * io.bellwether.bench.chaos.ChaosCommand} is the command line. See docs/reliability.md.
 */
package io.bellwether.bench.chaos;
