package io.bellwether.bench;

import io.bellwether.sim.FaultKind;
import io.bellwether.sim.HistoryEntry;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.SimulationConfig;
import io.bellwether.sim.Simulator;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One SHA-256 digest per simulated run of every algorithm and variant, over its whole history and its counters:
 * the check that a refactoring changed no behaviour. Run it before and after and compare the two outputs; any
 * difference in any event, message, timer, role or epoch of any run shows as a different line.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.HistoryDigest [SEED ...]}
 * (default seeds 1 2 3 42 20261125; 5 nodes, every fault kind that applies, default phases). Prints one line per
 * run: {@code <run> <seed> <history entries> <sha-256>}. Exits 2 on a seed that is not a number.
 */
public final class HistoryDigest {
    static final long[] DEFAULT_SEEDS = {1, 2, 3, 42, 20261125};
    static final int NODES = 5;

    private HistoryDigest() {}

    public static void main(String[] args) {
        long[] seeds = DEFAULT_SEEDS;
        if (args.length > 0) {
            seeds = new long[args.length];
            for (int i = 0; i < args.length; i++) {
                try {
                    seeds[i] = Long.parseLong(args[i]);
                } catch (NumberFormatException e) {
                    System.err.println("seed '" + args[i] + "' is not a whole number");
                    System.exit(2);
                }
            }
        }
        print(seeds, System.out);
    }

    /** Prints the digest line of every run of {@link SimulationConfig#ALGORITHMS} for each of {@code seeds}. */
    static void print(long[] seeds, PrintStream out) {
        for (String run : SimulationConfig.ALGORITHMS) {
            SimulationConfig config = SimulationConfig.forAlgorithm(run, NODES, FaultKind.all());
            for (long seed : seeds) {
                RunResult r = Simulator.run(config, seed, true);
                out.println(run + " " + seed + " " + r.history().size() + " " + digest(r));
            }
        }
    }

    /** The SHA-256 of a run's history lines and its counters, in hex. */
    static String digest(RunResult r) {
        List<String> lines = new ArrayList<>(r.history().size() + 2);
        for (HistoryEntry e : r.history()) {
            lines.add(e.toString());
        }
        lines.add("violations=" + r.violations());
        lines.add("elections=" + r.elections() + " msgs=" + r.electionMessages() + "/" + r.totalMessages()
                + " events=" + r.events() + " conv=" + r.convergenceNanos() + " fenced=" + r.fencedWrites() + "/"
                + r.staleWritesRejected() + " two=" + r.twoLeaderNanos() + "/" + r.twoLeaderEpisodes()
                + " failovers=" + r.failovers() + " samples=" + r.electionSamples());
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String line : lines) {
                sha.update(line.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
