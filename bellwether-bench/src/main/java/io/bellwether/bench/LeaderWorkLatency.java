package io.bellwether.bench;

import io.bellwether.Election;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.server.report.Distribution;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.testkit.Ports;
import io.bellwether.transport.tcp.TcpTransport;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * How fast the leader's work follows leadership, for {@code runWhileLeader} tasks on the quorum elector with its
 * default timings. Two measurements, each over ROUNDS rounds:
 *
 * <ul>
 *   <li><b>loss</b>: three members in one process on the in-process network; the leader is cut off from both
 *       others, so it loses its quorum. Measured: from its leadership's revocation ({@code revoked()} completing) to
 *       its task seeing the interrupt, and the margin left from that interrupt to the end of the leadership's
 *       validity (which must be positive: the task stops while the leadership is still valid).
 *   <li><b>resign</b>: three members on loopback TCP (127.0.0.1, one process, in-memory state); the leader calls
 *       {@code resign()}. Measured: from the call to the successor's task starting, and the gap from the old task's
 *       interrupt to the new task's start (which must be positive: the two never run at once).
 * </ul>
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.LeaderWorkLatency [ROUNDS]}
 * (default 200). Exits 2 on a bad argument, 1 if a round breaks a must (an interrupt after validity, two tasks at
 * once) or a round does not settle within its bound.
 */
public final class LeaderWorkLatency {
    static final int DEFAULT_ROUNDS = 200;
    static final Duration SETTLE = Duration.ofSeconds(10);

    /** A task that notes when it starts and when it sees its interrupt, per epoch. */
    static final class Probe {
        final Map<Long, Long> started = new ConcurrentHashMap<>();
        final Map<Long, Long> interrupted = new ConcurrentHashMap<>();
        final Map<Long, Long> revoked = new ConcurrentHashMap<>();
        final Map<Long, Long> validUntil = new ConcurrentHashMap<>();

        void run(Leadership l) {
            started.put(l.epoch(), System.nanoTime());
            l.revoked().whenComplete((r, e) -> {
                long now = System.nanoTime();
                revoked.put(l.epoch(), now);
                validUntil.put(l.epoch(), l.validUntilNanos());
            });
            try {
                new java.util.concurrent.CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.put(l.epoch(), System.nanoTime());
            }
        }
    }

    private LeaderWorkLatency() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        OptionalInt roundsArg = Args.onlyCount(
                args,
                "ROUNDS",
                DEFAULT_ROUNDS,
                100_000,
                "LeaderWorkLatency [ROUNDS]  (default " + DEFAULT_ROUNDS + ")",
                err);
        if (roundsArg.isEmpty()) {
            return 2;
        }
        int rounds = roundsArg.getAsInt();
        out.printf(
                "LeaderWorkLatency: %d rounds each, quorum defaults, 3 members, %s, Java %s, %d cores%n",
                rounds,
                LocalDate.now(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        boolean ok = loss(rounds, out, err);
        ok &= resign(rounds, out, err);
        return ok ? 0 : 1;
    }

    // ---------------------------------------------------------------- loss of quorum

    private static boolean loss(int rounds, PrintStream out, PrintStream err) throws Exception {
        List<NodeId> ids = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            members.put(ids.get(i), new NodeAddress("127.0.0.1", 7101 + i)); // never dialled: in-process network
        }
        long[] toInterrupt = new long[rounds];
        long[] margin = new long[rounds];
        boolean ok = true;
        try (InProcessNetwork network = new InProcessNetwork()) {
            Map<NodeId, Election> elections = start(ids, members, network::transport, "loss");
            Map<NodeId, Probe> probes = probes(elections);
            try {
                for (int r = 0; r < rounds; r++) {
                    Map.Entry<NodeId, Leadership> leader = awaitLeader(elections, -1);
                    long epoch = leader.getValue().epoch();
                    Probe probe = probes.get(leader.getKey());
                    network.isolate(leader.getKey());
                    long deadline = System.nanoTime() + SETTLE.toNanos();
                    while (!(probe.interrupted.containsKey(epoch) && probe.revoked.containsKey(epoch))) {
                        if (System.nanoTime() > deadline) {
                            err.println("loss round " + r + ": the isolated leader's task was not interrupted");
                            return false;
                        }
                        Thread.sleep(1); // a benchmark's pacing: nothing here is a test's synchronisation
                    }
                    toInterrupt[r] = probe.interrupted.get(epoch) - probe.revoked.get(epoch);
                    margin[r] = probe.validUntil.get(epoch) - probe.interrupted.get(epoch);
                    if (margin[r] <= 0) {
                        err.printf(
                                "loss round %d: the task saw its interrupt %.3f ms after validity ended%n",
                                r, -margin[r] / 1e6);
                        ok = false;
                    }
                    network.heal(leader.getKey());
                    awaitLeader(elections, epoch);
                }
            } finally {
                elections.values().forEach(Election::close);
            }
        }
        Distribution interrupt = Distribution.of(toInterrupt);
        Distribution left = Distribution.of(margin);
        out.println();
        out.println("| leadership lost (quorum) | rounds | p50 ms | p99 ms | max ms |");
        out.println("|---|---:|---:|---:|---:|");
        row(out, "revoked() → task interrupted", interrupt);
        out.printf(
                Locale.ROOT,
                "| validity left at the interrupt (min %.1f ms) | %d | %.1f | %.1f | %.1f |%n",
                Distribution.millis(left.minNanos()),
                left.count(),
                Distribution.millis(left.percentileNanos(50)),
                Distribution.millis(left.percentileNanos(99)),
                Distribution.millis(left.maxNanos()));
        return ok;
    }

    // ---------------------------------------------------------------- resign

    private static boolean resign(int rounds, PrintStream out, PrintStream err) throws Exception {
        List<NodeId> ids = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (NodeId id : ids) {
            members.put(id, new NodeAddress("127.0.0.1", Ports.free()));
        }
        byte[] secret = "a-benchmark-secret-of-32-bytes!!".getBytes(StandardCharsets.US_ASCII);
        List<TcpTransport> transports = new ArrayList<>();
        Function<NodeId, io.bellwether.spi.Transport> tcp = id -> {
            TcpTransport t = TcpTransport.builder()
                    .cluster("bench")
                    .self(id)
                    .members(members)
                    .secret(secret)
                    .build();
            t.start();
            transports.add(t);
            return t;
        };
        long[] toSuccessor = new long[rounds];
        long[] gap = new long[rounds];
        boolean ok = true;
        Map<NodeId, Election> elections = start(ids, members, tcp, "resign");
        Map<NodeId, Probe> probes = probes(elections);
        try {
            for (int r = 0; r < rounds; r++) {
                Map.Entry<NodeId, Leadership> leader = awaitLeader(elections, -1);
                // Let the previous round's hold-off end, so each resign finds two members free to succeed.
                Thread.sleep(HOLD_OFF.toMillis() + 50);
                leader = awaitLeader(elections, -1);
                long epoch = leader.getValue().epoch();
                long t0 = System.nanoTime();
                elections.get(leader.getKey()).resign(HOLD_OFF);
                Map.Entry<NodeId, Leadership> next = awaitLeader(elections, epoch);
                Probe successor = probes.get(next.getKey());
                long until = System.nanoTime() + SETTLE.toNanos();
                while (!successor.started.containsKey(next.getValue().epoch())) {
                    if (System.nanoTime() > until) {
                        err.println("resign round " + r + ": the successor's task did not start");
                        return false;
                    }
                    Thread.sleep(0, 100_000);
                }
                long startedAt = successor.started.get(next.getValue().epoch());
                Long stoppedAt = probes.get(leader.getKey()).interrupted.get(epoch);
                toSuccessor[r] = startedAt - t0;
                if (stoppedAt == null || startedAt <= stoppedAt) {
                    err.printf("resign round %d: the successor's task started before the old one stopped%n", r);
                    ok = false;
                    gap[r] = stoppedAt == null ? 0 : startedAt - stoppedAt;
                } else {
                    gap[r] = startedAt - stoppedAt;
                }
            }
        } finally {
            elections.values().forEach(Election::close);
            transports.forEach(TcpTransport::close);
        }
        out.println();
        out.println("| resign() on loopback TCP | rounds | p50 ms | p99 ms | max ms |");
        out.println("|---|---:|---:|---:|---:|");
        row(out, "resign() → successor's task started", Distribution.of(toSuccessor));
        row(out, "old task interrupted → new task started", Distribution.of(gap));
        return ok;
    }

    static final Duration HOLD_OFF = Duration.ofMillis(100);

    // ---------------------------------------------------------------- shared

    private static Map<NodeId, Election> start(
            List<NodeId> ids,
            Map<NodeId, NodeAddress> members,
            Function<NodeId, io.bellwether.spi.Transport> transport,
            String group) {
        Map<NodeId, Election> elections = new LinkedHashMap<>();
        for (NodeId id : ids) {
            Election e = Election.builder()
                    .group(group)
                    .self(id)
                    .members(members)
                    .algorithm(QuorumConfig.defaults())
                    .stateStore(new InMemoryStateStore())
                    .transport(transport.apply(id))
                    .build();
            elections.put(id, e);
        }
        return elections;
    }

    private static Map<NodeId, Probe> probes(Map<NodeId, Election> elections) {
        Map<NodeId, Probe> probes = new LinkedHashMap<>();
        elections.forEach((id, e) -> {
            Probe p = new Probe();
            probes.put(id, p);
            e.runWhileLeader(p::run);
            e.start();
        });
        return probes;
    }

    /** The one member that holds a valid leadership above {@code aboveEpoch}, once there is one. */
    private static Map.Entry<NodeId, Leadership> awaitLeader(Map<NodeId, Election> elections, long aboveEpoch)
            throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (System.nanoTime() < deadline) {
            for (Map.Entry<NodeId, Election> e : elections.entrySet()) {
                Optional<Leadership> l = e.getValue().leadership();
                if (l.isPresent() && l.get().isValid() && l.get().epoch() > aboveEpoch) {
                    return Map.entry(e.getKey(), l.get());
                }
            }
            TimeUnit.MICROSECONDS.sleep(100);
        }
        throw new IllegalStateException("no leader above epoch " + aboveEpoch + " within " + SETTLE);
    }

    private static void row(PrintStream out, String what, Distribution d) {
        out.printf(
                Locale.ROOT,
                "| %s | %d | %.1f | %.1f | %.1f |%n",
                what,
                d.count(),
                Distribution.millis(d.percentileNanos(50)),
                Distribution.millis(d.percentileNanos(99)),
                Distribution.millis(d.maxNanos()));
    }
}
