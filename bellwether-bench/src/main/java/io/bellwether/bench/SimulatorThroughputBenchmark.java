package io.bellwether.bench;

import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.SimulationConfig;
import io.bellwether.sim.Simulator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How fast the simulator runs: one whole 5-node quorum run with every fault kind per invocation. Besides runs
 * per second, JMH reports the auxiliary counter {@code events}, normalised per second: simulator events per
 * second, the figure that decides how many seeds CI can afford.
 *
 * <p>Run: {@code java -jar bellwether-bench/target/benchmarks.jar SimulatorThroughputBenchmark}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
@State(Scope.Thread)
public class SimulatorThroughputBenchmark {
    /** Seeds cycle through a fixed set so that every fork measures the same runs. */
    private static final int SEED_CYCLE = 64;

    private SimulationConfig config;
    private long invocation;

    /** Counters JMH reports next to the primary result. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Counters {
        /** Simulator events processed; reported per second. */
        public long events;

        /** Messages sent by all nodes; reported per second. */
        public long messages;

        @Setup(Level.Iteration)
        public void reset() {
            events = 0;
            messages = 0;
        }
    }

    @Setup
    public void setUp() {
        config = SimulationConfig.forAlgorithm("quorum", 5, FaultKind.all());
    }

    @Benchmark
    public RunResult quorumFiveNodesAllFaults(Counters counters) {
        long seed = 1 + (invocation++ % SEED_CYCLE);
        RunResult result = Simulator.run(config, seed, false);
        counters.events += result.events();
        counters.messages += result.totalMessages();
        return result;
    }
}
