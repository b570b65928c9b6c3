package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Groups above 64 nodes, where a single {@code long} bit set per node would wrap node 64 onto node 0: the
 * engine's reachability must keep them apart, and every algorithm must run a 65-node group to one leader.
 */
class LargeGroupSimulationTest {
    private static final int N = 65;

    @Test
    void aSideWithNodesZeroAnd64CountsBothTowardsItsMajority() {
        Engine e = new Engine(
                SimulationConfig.forAlgorithm("quorum", N, EnumSet.noneOf(FaultKind.class)), 1, false, false, 16);
        e.driver.startAll();
        // Node indexes {0, 33..64} (33 nodes, a majority of 65) | {1..32} (32 nodes).
        for (int a = 0; a < N; a++) {
            for (int b = 0; b < N; b++) {
                if (bigSide(a) != bigSide(b)) {
                    e.net.blocked[a][b]++;
                }
            }
        }

        assertThat(e.net.isCutOff(0)).as("node 0, on the 33-node side").isFalse();
        assertThat(e.net.isCutOff(64)).as("node 64, on the 33-node side").isFalse();
        assertThat(e.net.isCutOff(1)).as("node 1, on the 32-node side").isTrue();
        long[] words = new long[Network.reachableWords(N)];
        e.net.reachable(0, words);
        assertThat(members(words)).containsExactlyElementsOf(bigSideMembers());
        e.net.reachable(64, words);
        assertThat(members(words)).containsExactlyElementsOf(bigSideMembers());
        e.net.reachable(1, words);
        assertThat(members(words)).hasSize(32).doesNotContain(0, 64);
    }

    @Test
    void isolatingNode64CutsOnlyIt() {
        Engine e = new Engine(
                SimulationConfig.forAlgorithm("quorum", N, EnumSet.noneOf(FaultKind.class)), 1, false, false, 16);
        e.driver.startAll();
        for (int b = 0; b < 64; b++) {
            e.net.blocked[64][b]++;
            e.net.blocked[b][64]++;
        }

        assertThat(e.net.isCutOff(64)).isTrue();
        assertThat(e.net.isCutOff(0)).isFalse();
        long[] words = new long[Network.reachableWords(N)];
        e.net.reachable(64, words);
        assertThat(members(words)).containsExactly(64);
        e.net.reachable(0, words);
        assertThat(members(words)).hasSize(64).doesNotContain(64);
    }

    static List<String> algorithms() {
        return SimulationConfig.ALGORITHMS;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("algorithms")
    void a65NodeGroupOfEveryAlgorithmConvergesOnOneLeaderUnderCrashesAndPartitions(String algorithm) {
        EnumSet<FaultKind> faults = EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION, FaultKind.ISOLATE);
        faults.removeIf(k -> !k.appliesTo(algorithm));
        SimulationConfig config = SimulationConfig.forAlgorithm(algorithm, N, faults)
                .withPhases(Duration.ofSeconds(4), SimulationConfig.DEFAULT_QUIET_PHASE);
        long seed = 1;

        RunResult r = Simulator.run(config, seed, false);

        assertThat(r.violations()).as("replay: %s", config.replayCommand(seed)).isEmpty();
        assertThat(r.convergenceNanos()).as("converged after the faults").isNotNegative();
        assertThat(r.elections()).isPositive();
    }

    private static boolean bigSide(int i) {
        return i == 0 || i >= 33;
    }

    private static List<Integer> bigSideMembers() {
        List<Integer> m = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            if (bigSide(i)) {
                m.add(i);
            }
        }
        return m;
    }

    private static List<Integer> members(long[] words) {
        List<Integer> m = new ArrayList<>();
        for (int i = 0; i < words.length * 64; i++) {
            if ((words[i >>> 6] & (1L << (i & 63))) != 0) {
                m.add(i);
            }
        }
        return m;
    }
}
