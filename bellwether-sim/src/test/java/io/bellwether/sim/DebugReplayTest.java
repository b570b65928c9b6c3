package io.bellwether.sim;

import org.junit.jupiter.api.Test;

class DebugReplayTest {
    @Test
    void replay() {
        String alg = System.getProperty("dbg.alg", "ring");
        long seed = Long.getLong("dbg.seed", 1);
        int tail = Integer.getInteger("dbg.tail", 150);
        String filter = System.getProperty("dbg.filter", "");
        RunResult r = Simulator.run(SimulationConfig.forAlgorithm(alg, 5, FaultKind.all()), seed, true);
        System.out.println(r.violations());
        var h = r.history().stream().filter(e -> filter.isEmpty() || !e.event().matches(filter)).toList();
        long from = Long.getLong("dbg.from", -1);
        var sel = from >= 0 ? h.stream().filter(e -> e.timeNanos() >= from * 1_000_000).limit(tail).toList() : h.subList(Math.max(0, h.size() - tail), h.size());
        sel.forEach(System.out::println);
    }
}
