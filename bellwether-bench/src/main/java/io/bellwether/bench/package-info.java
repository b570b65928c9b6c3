/**
 * Measurements, run by hand and never during the build: JMH micro-benchmarks, failover of real node processes and
 * of lease elections on real stores, idle cost, and the simulated comparison of the algorithms. How to run each,
 * and the measured results, are in {@code docs/benchmarks.md} and {@code docs/algorithms.md}.
 */
package io.bellwether.bench;
