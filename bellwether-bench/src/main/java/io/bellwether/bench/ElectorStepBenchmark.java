package io.bellwether.bench;

import io.bellwether.sim.FaultKind;
import io.bellwether.sim.RunResult;
import io.bellwether.sim.SimulationConfig;
import io.bellwether.sim.Simulator;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one elector step per peer algorithm: a fault-free simulated run of 3 members (40 virtual seconds, an
 * election then a steady leader), where nearly every event is one step of one elector — a heartbeat, its answer, a
 * timer. JMH reports runs per second and the auxiliary counter {@code events} per second; one event's time is the
 * elector's step plus the simulator's bookkeeping (its queue, the history), so it bounds the step from above.
 *
 * <p>Run: {@code java -jar bellwether-bench/target/benchmarks.jar ElectorStepBenchmark}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
@State(Scope.Thread)
public class ElectorStepBenchmark {
    private static final int SEED_CYCLE = 64;

    /** The peer algorithm. */
    @Param({"quorum", "bully", "ring", "invitation"})
    public String algorithm;

    private SimulationConfig config;
    private long invocation;

    /** Counters JMH reports next to the primary result. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Counters {
        /** Simulator events, each one elector step; reported per second. */
        public long events;

        @Setup(Level.Iteration)
        public void reset() {
            events = 0;
        }
    }

    @Setup
    public void setUp() {
        config = SimulationConfig.forAlgorithm(algorithm, 3, EnumSet.noneOf(FaultKind.class));
    }

    @Benchmark
    public RunResult steadyRun(Counters counters) {
        RunResult result = Simulator.run(config, 1 + (invocation++ % SEED_CYCLE), false);
        counters.events += result.events();
        return result;
    }
}
