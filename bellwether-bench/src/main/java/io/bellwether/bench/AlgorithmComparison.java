package io.bellwether.bench;

import io.bellwether.bully.BullyAlgorithm;
import io.bellwether.elector.Trait;
import io.bellwether.ring.RingAlgorithm;
import io.bellwether.sim.ElectionSample;
import io.bellwether.sim.ElectionTrial;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RandomExplorer;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.SimulationConfig;
import java.io.PrintStream;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * All simulated algorithms side by side, by group size, as the markdown tables of {@code docs/algorithms.md}:
 * messages per election, time until every survivor knows the new leader after the leader fails, time to
 * converge after partitions heal, and time spent with two acting leaders under partitions; then Bully's and
 * Ring's measured message counts against their formulas.
 *
 * <p>Two kinds of measurement per size and algorithm:
 *
 * <ul>
 *   <li><b>Election trials</b> ({@link ElectionTrial}): the group settles on a leader, the leader fails, nothing
 *       else happens; one {@link ElectionSample} per trial. Half the trials crash the leader's process (peers see
 *       the connections close: {@link FaultKind#CRASH}), half make it vanish silently (peers must time out:
 *       {@link FaultKind#SILENT_CRASH}), on the same seeds.
 *   <li><b>Partition runs</b> ({@link RandomExplorer}): the simulator's default phases (30 s of overlapping
 *       {@link FaultKind#PARTITION} faults, then 10 s quiet), not for lease, whose nodes talk only to a store.
 * </ul>
 *
 * <p>Usage: {@code AlgorithmComparison [--sizes 3,5,9,17,33,65] [--trials N] [--seeds N] [--seed-start S]};
 * without {@code --trials} / {@code --seeds} the counts shrink with the size (see {@link #defaultTrials}, {@link
 * #defaultSeeds}). Exits 1 if any trial or run violated an invariant, 2 on a bad argument.
 */
public final class AlgorithmComparison {
    static final List<Integer> DEFAULT_SIZES = List.of(3, 5, 9, 17, 33, 65);
    static final List<FaultKind> TRIGGERS = List.of(FaultKind.CRASH, FaultKind.SILENT_CRASH);
    static final String USAGE =
            "usage: AlgorithmComparison [--sizes 3,5,9,17,33,65] [--trials N] [--seeds N] [--seed-start S]";

    private AlgorithmComparison() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Election trials per trigger when none are asked for: cheap (one election each), so many. */
    static int defaultTrials(int nodes) {
        if (nodes <= 17) {
            return 100;
        }
        if (nodes <= 33) {
            return 50;
        }
        return 20;
    }

    /** Partition runs when none are asked for: a run costs 40 s of virtual time, and more with n. */
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
        if (nodes <= 33) {
            return 25;
        }
        return 5;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        List<Integer> sizes = DEFAULT_SIZES;
        int trials = -1;
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
                    case "--trials" -> trials = parseInt("--trials", v, 1, 1_000_000);
                    case "--seeds" -> seeds = parseInt("--seeds", v, 1, 1_000_000);
                    case "--seed-start" -> seedStart = parseLong("--seed-start", v);
                    default -> throw new IllegalArgumentException(
                            "unknown argument '" + a + "': allowed --sizes, --trials, --seeds, --seed-start");
                }
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        int threads = Runtime.getRuntime().availableProcessors();
        long started = System.nanoTime();
        out.printf(
                Locale.ROOT,
                "Simulated, default configs; %s, %d cores, Java %s.%n%n",
                LocalDate.now(),
                threads,
                System.getProperty("java.version"));
        out.println("| algorithm | n | election msgs: best / median / worst"
                + " | periodic msgs meanwhile (median)"
                + " | crash → all know the new leader: p50 / max ms"
                + " | silent crash → all know: p50 / max ms"
                + " | trials (seeds)"
                + " | partitions healed → converged: p50 / max ms"
                + " | two leaders, ms per partition run (mean)"
                + " | partition runs (seeds) | violations |");
        out.println("|---|---:|---|---:|---|---|---|---|---:|---|---:|");
        long violations = 0;
        Map<Integer, Map<String, Row>> rows = new LinkedHashMap<>();
        for (int n : sizes) {
            int t = trials > 0 ? trials : defaultTrials(n);
            int k = seeds > 0 ? seeds : defaultSeeds(n);
            for (String algorithm : SimulationConfig.ALGORITHMS) {
                long rowStarted = System.nanoTime();
                Row row = measure(algorithm, n, seedStart, t, k, threads);
                rows.computeIfAbsent(n, x -> new LinkedHashMap<>()).put(algorithm, row);
                violations += row.violations;
                out.println(row.markdown());
                err.printf(
                        Locale.ROOT,
                        "%s n=%d: %d trials per trigger, %d partition runs in %.1f s%n",
                        algorithm,
                        n,
                        t,
                        k,
                        (System.nanoTime() - rowStarted) / 1e9);
            }
        }
        out.println();
        out.println("Times are virtual (simulated) milliseconds. Election messages: every message but heartbeats and"
                + " periodic probes, from the leader's failure until 1 s after the group converged without one"
                + " more; lease elects by store requests, counted instead.");
        out.println();
        printFormulas(rows, out);
        out.println();
        out.printf(Locale.ROOT, "Wall time: %.0f s.%n", (System.nanoTime() - started) / 1e9);
        if (violations > 0) {
            err.println(violations + " trial(s) or run(s) violated an invariant: replay them with the command"
                    + " in the violation.");
            return 1;
        }
        return 0;
    }

    /** Bully's and Ring's measured counts, by trigger, next to the formulas of docs/algorithms.md. */
    static void printFormulas(Map<Integer, Map<String, Row>> rows, PrintStream out) {
        out.println("| n | bully, crash: measured best / median / worst | bully (n−1)² + 2n − 3"
                + " | bully, silent crash: measured | ring, crash: measured best / median / worst | ring 6n − 4"
                + " | ring, silent crash: measured | ring, one initiator: 4n |");
        out.println("|---:|---|---:|---|---|---:|---|---:|");
        for (Map.Entry<Integer, Map<String, Row>> e : rows.entrySet()) {
            int n = e.getKey();
            Row bully = e.getValue().get(BullyAlgorithm.INSTANCE.name());
            Row ring = e.getValue().get(RingAlgorithm.INSTANCE.name());
            if (bully == null || ring == null) {
                continue;
            }
            out.printf(
                    Locale.ROOT,
                    "| %d | %s | %d | %s | %s | %d | %s | %d |%n",
                    n,
                    spread(bully.messages.get(FaultKind.CRASH)),
                    bullyWorstCase(n),
                    spread(bully.messages.get(FaultKind.SILENT_CRASH)),
                    spread(ring.messages.get(FaultKind.CRASH)),
                    ringAllInitiate(n),
                    spread(ring.messages.get(FaultKind.SILENT_CRASH)),
                    ringOneInitiator(n));
        }
    }

    /**
     * Garcia-Molina's worst case after the top node crashes, with every survivor electing at once, as our
     * bully sends it: n(n−1)/2 ELECTIONs (to every higher id, the dead one included), (n−1)(n−2)/2 OKs (the OK
     * is the ELECTION's acknowledgement), n−1 COORDINATORs (to every other member, the dead one included) and
     * n−2 acknowledgements.
     */
    static long bullyWorstCase(long n) {
        return (n - 1) * (n - 1) + 2 * n - 3;
    }

    /**
     * Chang–Roberts with every survivor initiating, on a ring ordered by id (its best arrangement): each lower
     * election stops after one hop, the highest survivor's goes round, then the COORDINATOR goes round; m = n−1
     * survivors make 3m−1 hops, each acknowledged (6m − 2 messages), plus the two tries of the ELECTION's and
     * the COORDINATOR's hop to the crashed node before it is skipped (4): 6n − 4.
     */
    static long ringAllInitiate(long n) {
        return 6 * n - 4;
    }

    /** One initiator: the ELECTION's and the COORDINATOR's laps of n−1 acknowledged hops, plus 2 × 2 tries. */
    static long ringOneInitiator(long n) {
        return 4 * (n - 1) + 4;
    }

    static Row measure(String algorithm, int n, long seedStart, int trials, int seeds, int threads) {
        Row row = new Row(algorithm, n, seedStart, trials, seeds);
        SimulationConfig config = SimulationConfig.forAlgorithm(algorithm, n, Set.of());
        for (FaultKind trigger : TRIGGERS) {
            List<Long> messages = new ArrayList<>();
            List<Long> nanos = new ArrayList<>();
            for (ElectionTrial.Result r : ElectionTrial.run(config, seedStart, trials, trigger, threads)) {
                if (r.violation().isPresent()) {
                    row.violations++;
                    continue;
                }
                if (r.sample().isEmpty()) {
                    row.noElection++;
                    continue;
                }
                ElectionSample s = r.sample().get();
                messages.add(row.usesStore ? s.storeRequests() : s.messages());
                row.periodic.add(s.heartbeats());
                nanos.add(s.nanos());
                if (!s.complete()) {
                    row.incomplete++;
                }
            }
            row.messages.put(trigger, messages);
            row.nanos.put(trigger, nanos);
        }
        if (FaultKind.PARTITION.appliesTo(algorithm)) {
            List<RunResult> partition = RandomExplorer.explore(
                            SimulationConfig.forAlgorithm(algorithm, n, EnumSet.of(FaultKind.PARTITION)),
                            seedStart,
                            seeds,
                            threads,
                            p -> {})
                    .runs();
            row.partitionRuns = partition.size();
            for (RunResult r : partition) {
                if (!r.ok()) {
                    row.violations++;
                }
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

    /** One table row; filled by {@link #measure}. */
    static final class Row {
        final String algorithm;
        final int nodes;
        final long seedStart;
        final int trials;
        final int seeds;
        /** Runs that elect through a store (lease): their store requests are counted instead of messages. */
        final boolean usesStore;

        final Map<FaultKind, List<Long>> messages = new LinkedHashMap<>();
        final Map<FaultKind, List<Long>> nanos = new LinkedHashMap<>();
        final List<Long> periodic = new ArrayList<>();
        final List<Long> convergence = new ArrayList<>();
        int noElection;
        int incomplete;
        int notConverged;
        int partitionRuns;
        long twoLeaderNanos;
        long violations;

        Row(String algorithm, int nodes, long seedStart, int trials, int seeds) {
            this.algorithm = algorithm;
            this.nodes = nodes;
            this.seedStart = seedStart;
            this.trials = trials;
            this.seeds = seeds;
            this.usesStore = SimulationConfig.variantOf(algorithm).has(Trait.USES_STORE);
        }

        List<Long> allMessages() {
            List<Long> all = new ArrayList<>();
            messages.values().forEach(all::addAll);
            return all;
        }

        String markdown() {
            List<Long> all = allMessages();
            String msgs = all.isEmpty() ? "-" : (usesStore ? "n/a (store requests: " + spread(all) + ")" : spread(all));
            if (incomplete > 0) {
                msgs += " (" + incomplete + " cut short)";
            }
            return String.format(
                    Locale.ROOT,
                    "| %s | %d | %s | %s | %s | %s | %d × 2 (%s) | %s | %s | %s | %d |",
                    algorithm,
                    nodes,
                    msgs,
                    usesStore || periodic.isEmpty() ? "n/a" : String.valueOf(percentile(periodic, 50)),
                    times(nanos.get(FaultKind.CRASH)),
                    times(nanos.get(FaultKind.SILENT_CRASH)),
                    trials,
                    range(seedStart, trials) + (noElection > 0 ? ", " + noElection + " no election" : ""),
                    partitionRuns == 0
                            ? "n/a"
                            : (convergence.isEmpty()
                                            ? "-"
                                            : ms(percentile(convergence, 50)) + " / "
                                                    + ms(percentile(convergence, 100)))
                                    + (notConverged > 0 ? " (" + notConverged + " never)" : ""),
                    partitionRuns == 0 ? "n/a" : ms(twoLeaderNanos / partitionRuns),
                    partitionRuns == 0 ? "n/a" : seeds + " (" + range(seedStart, seeds) + ")",
                    violations);
        }
    }

    private static String range(long start, int count) {
        return start + ".." + (start + count - 1);
    }

    static String spread(List<Long> values) {
        if (values == null || values.isEmpty()) {
            return "-";
        }
        return percentile(values, 0) + " / " + percentile(values, 50) + " / " + percentile(values, 100);
    }

    private static String times(List<Long> nanos) {
        if (nanos == null || nanos.isEmpty()) {
            return "-";
        }
        return ms(percentile(nanos, 50)) + " / " + ms(percentile(nanos, 100));
    }

    /** The p-th percentile by the nearest-rank method (p = 50 is the lower median, 0 the minimum). */
    static long percentile(List<Long> values, int p) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
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
