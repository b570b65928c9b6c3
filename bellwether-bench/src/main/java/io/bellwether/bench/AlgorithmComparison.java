package io.bellwether.bench;

import io.bellwether.sim.FailoverSample;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RandomExplorer;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.SimulationConfig;
import java.io.PrintStream;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * All simulated algorithms side by side, by group size, as the markdown table of {@code docs/algorithms.md}:
 * messages per election, time to elect after a crash, time to converge after partitions heal, and time spent
 * with two acting leaders under partitions.
 *
 * <p>For every size and algorithm it runs two seeded explorations with the simulator's default phases (30 s of
 * faults, 10 s quiet): one with {@link FaultKind#CRASH} only and one with {@link FaultKind#PARTITION} only (not
 * for lease, whose nodes talk to a store rather than to each other). Fewer seeds run for large groups, since a
 * run's cost grows with n² messages.
 *
 * <p>Usage: {@code AlgorithmComparison [--sizes 3,5,9,17,33] [--seeds N] [--seed-start S]}; without {@code
 * --seeds} the count depends on the size (see {@link #defaultSeeds}). Exits 1 if any run violated an
 * invariant, 2 on a bad argument.
 */
public final class AlgorithmComparison {
    static final List<Integer> DEFAULT_SIZES = List.of(3, 5, 9, 17, 33);

    private AlgorithmComparison() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Seeds per exploration when none are asked for: enough for percentiles at small n, a few at large n. */
    static int defaultSeeds(int nodes) {
        if (nodes <= 5) {
            return 200;
        }
        if (nodes <= 9) {
            return 100;
        }
        if (nodes <= 17) {
            return 50;
        }
        return 25;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        List<Integer> sizes = DEFAULT_SIZES;
        int seeds = -1;
        long seedStart = 1;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--sizes" -> sizes = parseSizes(v);
                    case "--seeds" -> seeds = parseInt("--seeds", v, 1, 1_000_000);
                    case "--seed-start" -> seedStart = parseLong("--seed-start", v);
                    default -> throw new IllegalArgumentException(
                            "unknown argument '" + a + "': allowed --sizes, --seeds, --seed-start");
                }
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println("usage: AlgorithmComparison [--sizes 3,5,9,17,33] [--seeds N] [--seed-start S]");
            return 2;
        }
        int threads = Runtime.getRuntime().availableProcessors();
        out.printf(
                Locale.ROOT,
                "Simulated, default configs and phases (30 s faults + 10 s quiet); %s, %d cores, Java %s.%n%n",
                LocalDate.now(),
                threads,
                System.getProperty("java.version"));
        out.println("| algorithm | n | seeds | election msgs / election: best / median / worst"
                + " | all msgs per crash failover: best / median / worst"
                + " | crash → elected p50 / p99 ms (failovers)"
                + " | quiet start → converged p50 / max ms | two leaders ms per partition run (mean) | violations |");
        out.println("|---|---:|---|---|---|---|---|---:|---:|");
        long violations = 0;
        for (int n : sizes) {
            int k = seeds > 0 ? seeds : defaultSeeds(n);
            for (String algorithm : SimulationConfig.ALGORITHMS) {
                long started = System.nanoTime();
                Row row = measure(algorithm, n, seedStart, k, threads);
                violations += row.violations;
                out.println(row.markdown());
                err.printf(
                        Locale.ROOT,
                        "%s n=%d: %d seeds in %.1f s%n",
                        algorithm,
                        n,
                        k,
                        (System.nanoTime() - started) / 1e9);
            }
        }
        out.println();
        out.println("Times are virtual (simulated) milliseconds. Election messages exclude heartbeats and their"
                + " acks, and include every other message (election, answers, announcements, per-message acks).");
        if (violations > 0) {
            err.println(violations + " run(s) violated an invariant: replay them with `./bellwether simulate`.");
            return 1;
        }
        return 0;
    }

    static Row measure(String algorithm, int n, long seedStart, int seeds, int threads) {
        Row row = new Row(algorithm, n, seedStart, seeds);
        List<RunResult> crash = RandomExplorer.explore(
                        SimulationConfig.forAlgorithm(algorithm, n, EnumSet.of(FaultKind.CRASH)),
                        seedStart,
                        seeds,
                        threads,
                        p -> {})
                .runs();
        row.add(crash);
        for (RunResult r : crash) {
            for (FailoverSample f : r.failovers()) {
                if (f.cause() == FaultKind.CRASH) {
                    row.failoverNanos.add(f.nanos());
                    row.failoverMessages.add(f.messages());
                }
            }
        }
        if (FaultKind.PARTITION.appliesTo(algorithm)) {
            List<RunResult> partition = RandomExplorer.explore(
                            SimulationConfig.forAlgorithm(algorithm, n, EnumSet.of(FaultKind.PARTITION)),
                            seedStart,
                            seeds,
                            threads,
                            p -> {})
                    .runs();
            row.add(partition);
            row.partitionRuns = partition.size();
            for (RunResult r : partition) {
                if (r.convergenceNanos() >= 0) {
                    row.convergence.add(r.convergenceNanos());
                } else {
                    row.notConverged++;
                }
                row.twoLeaderNanos += r.twoLeaderNanos();
            }
        }
        return row;
    }

    /** One table row; lists are filled by {@link #measure}. */
    static final class Row {
        final String algorithm;
        final int nodes;
        final long seedStart;
        final int seeds;
        final List<Double> perElection = new ArrayList<>();
        final List<Long> failoverNanos = new ArrayList<>();
        final List<Long> failoverMessages = new ArrayList<>();
        final List<Long> convergence = new ArrayList<>();
        int notConverged;
        int partitionRuns;
        long twoLeaderNanos;
        long violations;

        Row(String algorithm, int nodes, long seedStart, int seeds) {
            this.algorithm = algorithm;
            this.nodes = nodes;
            this.seedStart = seedStart;
            this.seeds = seeds;
        }

        void add(List<RunResult> runs) {
            for (RunResult r : runs) {
                if (!r.ok()) {
                    violations++;
                }
                if (r.elections() > 0) {
                    perElection.add((double) r.electionMessages() / r.elections());
                }
            }
        }

        String markdown() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %d | %d..%d | %s | %s | %s | %s | %s | %d |",
                    algorithm,
                    nodes,
                    seedStart,
                    seedStart + seeds - 1,
                    perElection.isEmpty() || "lease".equals(algorithm)
                            // lease nodes never message each other: their elections are store writes
                            ? "n/a"
                            : String.format(
                                    Locale.ROOT,
                                    "%.0f / %.0f / %.0f",
                                    min(perElection),
                                    median(perElection),
                                    max(perElection)),
                    failoverMessages.isEmpty()
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%d / %d / %d",
                                    percentile(failoverMessages, 0),
                                    percentile(failoverMessages, 50),
                                    percentile(failoverMessages, 100)),
                    failoverNanos.isEmpty()
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%s / %s (%d)",
                                    ms(percentile(failoverNanos, 50)),
                                    ms(percentile(failoverNanos, 99)),
                                    failoverNanos.size()),
                    partitionRuns == 0
                            ? "n/a"
                            : (convergence.isEmpty()
                                            ? "-"
                                            : ms(percentile(convergence, 50)) + " / "
                                                    + ms(percentile(convergence, 100)))
                                    + (notConverged > 0 ? " (" + notConverged + " never)" : ""),
                    partitionRuns == 0 ? "n/a" : ms(twoLeaderNanos / partitionRuns),
                    violations);
        }
    }

    static long percentile(List<Long> values, int p) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static double median(List<Double> values) {
        double[] sorted =
                values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.0f", nanos / 1e6);
    }

    static List<Integer> parseSizes(String text) {
        List<Integer> sizes = new ArrayList<>();
        for (String part : text.split(",")) {
            sizes.add(parseInt("--sizes", part.trim(), 1, SimulationConfig.MAX_NODES));
        }
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("--sizes must list at least one size, was '" + text + "'");
        }
        return List.copyOf(sizes);
    }

    static int parseInt(String name, String value, int min, int max) {
        try {
            int v = Integer.parseInt(value);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through to the error naming the allowed range
        }
        throw new IllegalArgumentException(
                name + " must be a whole number " + min + " to " + max + ", was '" + value + "'");
    }

    static long parseLong(String name, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + value + "'");
        }
    }
}
