package io.bellwether.bench.chaos;

import io.bellwether.bench.chaos.ChaosRecord.Attempt;
import io.bellwether.bench.chaos.ChaosRecord.Fault;
import io.bellwether.bench.chaos.ChaosRecord.Observation;
import io.bellwether.bench.chaos.ChaosRecord.Verdict;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A chaos run with real processes: starts a cluster of node processes on loopback with every peer link (and, for
 * lease, every node's connection to the store) through a {@link ChaosNetwork} this process controls; has every
 * node's leader work write {@code (epoch, node, counter)} through the fencing guard into the real PostgreSQL ({@link
 * FencedLedger}); injects the {@link Nemesis} schedule of the seed for the duration while polling every node's
 * {@code /status}; then reads the whole history and checks it ({@link ChaosChecker}).
 *
 * <p>Each step of the schedule waits for the members to agree on a leader (at most the recovery bound and 5 s more),
 * lets the cluster run calm for the step's calm time, injects the fault, holds it, heals it. The run ends at the
 * duration with a last heal and a last wait for agreement.
 */
public final class ChaosHarness {
    /** What {@code /status} is polled for, and how long an answer may take. */
    private static final long POLL_MILLIS = 50;

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(300);

    /** The election timeouts of the peer algorithms at their defaults (docs/configuration.md). */
    private static final Map<String, Duration> DEFAULT_TIMEOUTS = Map.of(
            "quorum", Duration.ofMillis(400),
            "bully", Duration.ofMillis(150),
            "ring", Duration.ofMillis(150),
            "invitation", Duration.ofMillis(600),
            "lease", Duration.ofSeconds(3));

    /** How long the members may take to start and agree on a first leader: JVMs start slowly on a loaded machine. */
    private static final Duration START_CEILING = Duration.ofSeconds(120);

    /** The transport's longest reconnection back-off (2 s, ±20 %): a healed link may wait that long to come back. */
    private static final Duration RECONNECT = Duration.ofMillis(2400);

    /**
     * A run's settings.
     *
     * @param algorithm {@code quorum}, {@code lease}, {@code bully}, {@code ring} or {@code invitation}
     * @param store for lease: {@code postgres} or {@code redis}
     * @param mode {@code task} ({@code runWhileLeader}) or {@code command} ({@code bellwether run})
     * @param nodes 3 to 7 members
     * @param duration how long faults are injected
     * @param seed the seed of the schedule
     * @param sectionYaml YAML appended to every node's configuration, e.g. the algorithm's timings (may be empty)
     * @param electionTimeout the election timeout (peer algorithms) or lease duration those settings give
     * @param replay the command line that replays this run, for the report
     */
    public record Options(
            String algorithm,
            String store,
            String mode,
            int nodes,
            Duration duration,
            long seed,
            String sectionYaml,
            Duration electionTimeout,
            String replay) {
        /** Checks every value, naming the option and its allowed range. */
        public Options {
            if (!DEFAULT_TIMEOUTS.containsKey(algorithm)) {
                throw new IllegalArgumentException(
                        "--algorithm '" + algorithm + "' is unknown; allowed: quorum, lease, bully, ring, invitation");
            }
            if (!List.of("postgres", "redis").contains(store)) {
                throw new IllegalArgumentException("--store '" + store + "' is unknown; allowed: postgres, redis");
            }
            if (!List.of("task", "command").contains(mode)) {
                throw new IllegalArgumentException("--mode '" + mode + "' is unknown; allowed: task, command");
            }
            if (nodes < 3 || nodes > 7) {
                throw new IllegalArgumentException("--nodes " + nodes + " is out of range: allowed 3 to 7");
            }
            if (duration.compareTo(Duration.ofSeconds(10)) < 0 || duration.compareTo(Duration.ofHours(24)) > 0) {
                throw new IllegalArgumentException(
                        "--duration " + duration.toSeconds() + " s is out of range: allowed 10s to 24h");
            }
            Objects.requireNonNull(sectionYaml, "sectionYaml");
            Objects.requireNonNull(replay, "replay");
            if (electionTimeout == null) {
                electionTimeout = DEFAULT_TIMEOUTS.get(algorithm);
            }
        }

        boolean lease() {
            return algorithm.equals("lease");
        }

        /** Whether the algorithm promises one leader at a time under partitions (docs/algorithms.md). */
        boolean oneLeader() {
            return algorithm.equals("quorum") || algorithm.equals("lease");
        }

        /**
         * How long after a heal the members must agree on a leader: for the peer algorithms, a link's longest
         * reconnection back-off, then two election timeouts and a second for the election itself and the polls; for
         * lease, two lease durations (the old lease runs out, a poll finds it free) and two seconds.
         */
        Duration bound() {
            return lease()
                    ? electionTimeout.multipliedBy(2).plusSeconds(2)
                    : RECONNECT.plus(electionTimeout.multipliedBy(2)).plusSeconds(1);
        }
    }

    private final Options options;
    private final PrintStream out;
    private final FencedLedger ledger;
    private final ChaosNetwork network = new ChaosNetwork();
    private LocalCluster cluster;
    private final List<String> nodes = new ArrayList<>();
    private final List<Observation> observations = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Observation> latest = new ConcurrentHashMap<>();
    /** The role recorded for a node the harness has killed or paused, instead of polling it. */
    private final Map<String, String> silenced = new ConcurrentHashMap<>();
    /** Processes stopped by a pause of a command-mode node, to resume. */
    private final Map<String, List<Long>> stoppedTrees = new ConcurrentHashMap<>();

    private final List<Fault> faults = new ArrayList<>();
    private volatile boolean polling = true;
    private long begun;

    private ChaosHarness(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.ledger = new FencedLedger("chaos_" + HexFormat.of().toHexDigits(new Random().nextInt()));
    }

    /**
     * Runs the schedule of {@code options.seed()} and checks the history.
     *
     * @param out where progress and the summary go
     * @return what was recorded, with the verdict
     */
    public static ChaosRecord run(Options options, PrintStream out) throws Exception {
        return new ChaosHarness(options, out).run();
    }

    private ChaosRecord run() throws Exception {
        List<Nemesis.Step> steps =
                Nemesis.schedule(options.seed(), options.lease(), options.electionTimeout(), options.duration());
        out.printf(
                Locale.ROOT,
                "chaos: %s%s, %d nodes, %s mode, %d s, seed %d; tables %s_*%n  replay: %s%n",
                options.algorithm(),
                options.lease() ? " on " + options.store() : "",
                options.nodes(),
                options.mode(),
                options.duration().toSeconds(),
                options.seed(),
                ledger.prefix,
                options.replay());
        ledger.create();
        try {
            return runCreated(steps);
        } finally {
            ledger.drop();
        }
    }

    private ChaosRecord runCreated(List<Nemesis.Step> steps) throws Exception {
        List<Thread> pollers = new ArrayList<>();
        try {
            begun = FencedLedger.nowNanos();
            cluster = start();
            for (LocalCluster.Member m : cluster.members()) {
                nodes.add(m.id());
                Thread t = new Thread(() -> poll(m.id()), "chaos-poll-" + m.id());
                t.setDaemon(true);
                t.start();
                pollers.add(t);
            }
            // The duration is the fault phase: it starts once the members first agree on a leader.
            long healed = FencedLedger.nowNanos();
            if (!awaitAgreement(healed, START_CEILING)) {
                throw new IllegalStateException("the members did not agree on a first leader within "
                        + START_CEILING.toSeconds() + " s of their start (the nodes' logs are kept)");
            }
            long deadline = System.nanoTime() + options.duration().toNanos();
            for (Nemesis.Step step : steps) {
                if (System.nanoTime() >= deadline) {
                    break;
                }
                awaitAgreement(healed);
                Thread.sleep(step.calm().toMillis()); // the schedule's calm time: the cluster runs undisturbed
                if (System.nanoTime() >= deadline) {
                    break;
                }
                Fault fault = inject(step);
                faults.add(fault);
                healed = fault.toNs();
                out.printf(
                        Locale.ROOT,
                        "chaos: +%7.3f s  %s (healed after %d ms)%n",
                        (fault.fromNs() - begun) / 1e9,
                        fault.description(),
                        (fault.toNs() - fault.fromNs()) / 1_000_000);
            }
            network.healAll();
            awaitAgreement(healed);
        } catch (Exception | Error e) {
            stopAll(pollers);
            out.println("chaos: the run failed (" + e + ")" + (logs == null ? "" : "; the nodes' logs are in " + logs));
            throw e;
        }
        stopAll(pollers);
        ChaosRecord record = record(FencedLedger.nowNanos());
        if (record.verdict().violations().isEmpty()) {
            deleteLogs();
        } else {
            out.println("chaos: the nodes' logs are in " + logs);
        }
        return record;
    }

    /**
     * Ends the run whatever failed: stops polling, resumes every process the harness stopped, keeps the nodes' logs,
     * stops the nodes and the proxies; each step runs even if an earlier one throws, and the first failure is thrown.
     */
    private void stopAll(List<Thread> pollers) throws Exception {
        polling = false;
        try {
            for (Thread t : pollers) {
                t.join(TimeUnit.SECONDS.toMillis(5));
            }
        } finally {
            try {
                resumeAll();
            } finally {
                try {
                    if (cluster != null) {
                        keepLogs();
                        cluster.close();
                    }
                } finally {
                    network.close();
                }
            }
        }
    }

    /** Where the nodes' logs are copied before the cluster (and its directory) goes: kept when a rule broke. */
    private Path logs;

    private void keepLogs() {
        try {
            logs = Files.createTempDirectory("bellwether-chaos-logs-");
            for (LocalCluster.Member m : cluster.members()) {
                if (Files.exists(m.log())) {
                    Files.copy(m.log(), logs.resolve(m.log().getFileName()));
                }
            }
        } catch (IOException e) {
            out.println("chaos: could not keep the nodes' logs: " + e);
        }
    }

    private void deleteLogs() {
        if (logs == null) {
            return;
        }
        try (var files = Files.list(logs)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(logs);
        } catch (IOException e) {
            out.println("chaos: could not delete " + logs + ": " + e);
        }
    }

    private LocalCluster start() throws IOException {
        String section = options.sectionYaml();
        if (options.lease()) {
            // LocalCluster names its members n1, n2, ...
            Map<String, String> sections = new LinkedHashMap<>();
            for (int i = 1; i <= options.nodes(); i++) {
                sections.put("n" + i, leaseSection("n" + i) + section);
            }
            return LocalCluster.start(
                    options.nodes(),
                    "lease",
                    sections::get,
                    nodeCommand(),
                    afterConfig(),
                    LocalCluster.PeerRoutes.DIRECT);
        }
        return LocalCluster.start(
                options.nodes(),
                options.algorithm(),
                id -> section,
                nodeCommand(),
                afterConfig(),
                (from, to, port) -> network.proxy(from, to, port));
    }

    /** The lease section of {@code id}: its store through its own proxy to the real one. */
    private String leaseSection(String id) throws IOException {
        boolean redis = options.store().equals("redis");
        int port = network.proxy(id, ChaosNetwork.STORE, redis ? 6379 : 5432);
        String store =
                redis ? "redis://127.0.0.1:" + port : "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres";
        // Redis needs (and takes) no schema.
        String section = LocalCluster.leaseSection(store, options.electionTimeout(), !redis);
        return section
                + (redis ? "  key-prefix: '" + ledger.prefix + ":lease:'\n" : "  table: " + ledger.lease() + "\n");
    }

    private List<String> nodeCommand() {
        return options.mode().equals("task")
                ? List.of(FencedTaskNode.class.getName(), ledger.prefix)
                : List.of("io.bellwether.server.cli.Main", "run");
    }

    private List<String> afterConfig() {
        if (options.mode().equals("task")) {
            return List.of();
        }
        List<String> after = new ArrayList<>();
        after.add("--");
        after.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        after.addAll(LocalCluster.NODE_JVM_OPTIONS);
        after.addAll(
                List.of("-cp", System.getProperty("java.class.path"), FencedWriter.class.getName(), ledger.prefix));
        return after;
    }

    /** Polls one node's {@code /status} every {@value #POLL_MILLIS} ms until the run ends. */
    private void poll(String id) {
        while (polling) {
            long started = System.nanoTime();
            String silent = silenced.get(id);
            Observation o;
            if (silent != null) {
                o = new Observation(id, FencedLedger.nowNanos(), silent, null, 0);
            } else {
                Optional<NodeStatus> s = cluster.status(id, POLL_TIMEOUT);
                String after = silenced.get(id); // killed or paused while the poll was under way
                long at = FencedLedger.nowNanos();
                o = after != null
                        ? new Observation(id, at, after, null, 0)
                        : s.map(st -> new Observation(id, at, st.role(), st.leader(), st.epoch()))
                                .orElseGet(() -> new Observation(id, at, "UNREACHABLE", null, 0));
            }
            observations.add(o);
            latest.put(id, o);
            long left = POLL_MILLIS - (System.nanoTime() - started) / 1_000_000;
            if (left > 0) {
                try {
                    Thread.sleep(left); // the polling pace
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Waits until the members agree on a leader after {@code since}, at most the bound and 5 s more. */
    private void awaitAgreement(long since) throws InterruptedException {
        Duration patience = options.bound().plusSeconds(5);
        if (!awaitAgreement(since, patience)) {
            out.println("chaos: no agreed leader " + patience.toMillis() + " ms after the heal; going on (the checker"
                    + " will report it)");
        }
    }

    /** Waits until the members agree on a leader after {@code since}, at most {@code patience}; false if not. */
    private boolean awaitAgreement(long since, Duration patience) throws InterruptedException {
        long limit = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < limit) {
            if (ChaosChecker.agreed(nodes, Map.copyOf(latest), since)) {
                return true;
            }
            Thread.sleep(POLL_MILLIS / 2); // observations arrive on the pollers' pace; nothing to wait on
        }
        return false;
    }

    /** The node that leads now by the latest polls (the highest epoch that says LEADER), if any. */
    private Optional<String> leader() {
        return latest.values().stream()
                .filter(o -> o.role().equals("LEADER"))
                .max((a, b) -> Long.compare(a.epoch(), b.epoch()))
                .map(Observation::node);
    }

    private String target(Nemesis.Step step) {
        if (step.atLeader()) {
            Optional<String> l = leader();
            if (l.isPresent()) {
                return l.get();
            }
        }
        return nodes.get((int) (step.pick() * nodes.size()));
    }

    private Fault inject(Nemesis.Step step) throws Exception {
        String t = target(step);
        boolean isLeader = leader().map(t::equals).orElse(false);
        String who = t + (isLeader ? " (the leader)" : "");
        long hold = step.hold().toMillis();
        List<String> others = nodes.stream().filter(n -> !n.equals(t)).toList();
        String how = step.stall() ? "stalled" : "dropped";
        long from = FencedLedger.nowNanos();
        String description;
        List<String> targets = List.of(t);
        switch (step.kind()) {
            case KILL -> {
                silenced.put(t, "DOWN");
                cluster.kill(t);
                // As on a real network, dials to the dead node are refused (its peers' departure probes need that).
                network.refuseConnections(t);
                Thread.sleep(hold); // the fault's hold
                try {
                    network.acceptConnections(t);
                } catch (IOException e) {
                    out.println("chaos: a proxy to " + t + " could not listen again (" + e.getMessage()
                            + "); its peers will not reach it");
                }
                cluster.startNode(t);
                silenced.remove(t);
                description = "kill -9 " + who + ", restarted after " + hold + " ms";
            }
            case PAUSE -> {
                silenced.put(t, "PAUSED");
                pause(t);
                Thread.sleep(hold);
                resume(t);
                silenced.remove(t);
                description = "SIGSTOP " + who + " for " + hold + " ms";
            }
            case PARTITION -> {
                List<String> ring = new ArrayList<>(nodes);
                Collections.rotate(ring, nodes.indexOf(t));
                List<String> minority = ring.subList(0, (nodes.size() - 1) / 2);
                List<String> rest = ring.subList(minority.size(), ring.size());
                network.partition(minority, rest, step.stall());
                Thread.sleep(hold);
                network.healAll();
                targets = List.copyOf(minority);
                description = "partition " + minority + " | " + rest + " (" + how + ") for " + hold + " ms";
            }
            case ONE_WAY -> {
                for (String o : others) {
                    String src = step.amount() == 1 ? t : o;
                    String dst = step.amount() == 1 ? o : t;
                    if (step.stall()) {
                        network.stall(src, dst);
                    } else {
                        network.drop(src, dst);
                    }
                }
                Thread.sleep(hold);
                network.healAll();
                description =
                        (step.amount() == 1 ? "lose everything " + who + " sends" : "lose everything sent to " + who)
                                + " (" + how + ") for " + hold + " ms";
            }
            case ISOLATE -> {
                network.isolate(t, step.stall());
                Thread.sleep(hold);
                network.healAll();
                description = "isolate " + who + (options.lease() ? " from the store" : "") + " (" + how + ") for "
                        + hold + " ms";
            }
            case FLAP -> {
                String peer = options.lease() ? ChaosNetwork.STORE : others.get((int) (step.pick() * others.size()));
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(hold);
                boolean cut = false;
                while (System.nanoTime() < end) {
                    if (cut) {
                        network.heal(t, peer);
                        network.heal(peer, t);
                    } else {
                        network.drop(t, peer);
                        network.drop(peer, t);
                    }
                    cut = !cut;
                    Thread.sleep(step.amount()); // the flapping period
                }
                network.healAll();
                description =
                        "flap the link " + who + " - " + peer + " every " + step.amount() + " ms for " + hold + " ms";
            }
            case DELAY, THROTTLE -> {
                List<String> peers = options.lease() ? List.of(ChaosNetwork.STORE) : others;
                for (String o : peers) {
                    if (step.kind() == Nemesis.Kind.DELAY) {
                        network.delay(t, o, Duration.ofMillis(step.amount()));
                        network.delay(o, t, Duration.ofMillis(step.amount()));
                    } else {
                        network.throttle(t, o, step.amount());
                        network.throttle(o, t, step.amount());
                    }
                }
                Thread.sleep(hold);
                network.healAll();
                description = (step.kind() == Nemesis.Kind.DELAY
                                ? "delay every link of " + who + " by " + step.amount() + " ms"
                                : "throttle every link of " + who + " to " + step.amount() + " B/s")
                        + " for " + hold + " ms";
            }
            case STORE_OUTAGE -> {
                for (String n : nodes) {
                    if (step.stall()) {
                        network.stall(n, ChaosNetwork.STORE);
                        network.stall(ChaosNetwork.STORE, n);
                    } else {
                        network.drop(n, ChaosNetwork.STORE);
                        network.drop(ChaosNetwork.STORE, n);
                    }
                }
                Thread.sleep(hold);
                network.healAll();
                targets = List.of();
                description = "store outage for every node (" + how + ") for " + hold + " ms";
            }
            default -> throw new IllegalStateException(step.kind().toString());
        }
        return new Fault(step.kind().label(), description, targets, from, FencedLedger.nowNanos());
    }

    /**
     * SIGSTOP of a node. In command mode, the whole node, as a paused machine would: the runner and every process
     * it started (the reaper and its timer, the command), looked for until a look finds no new one.
     */
    private void pause(String id) throws IOException, InterruptedException {
        if (options.mode().equals("task")) {
            cluster.pause(id);
            return;
        }
        long runner = cluster.pid(id).orElseThrow();
        List<Long> tree = new ArrayList<>(List.of(runner));
        // Recorded before any signal, and grown in place: whatever gets stopped is resumed, even after a failure.
        stoppedTrees.put(id, tree);
        signal("STOP", List.of(runner));
        for (int look = 0; look < 20; look++) {
            List<Long> fresh = ProcessHandle.of(runner)
                    .map(p -> p.descendants()
                            .map(ProcessHandle::pid)
                            .filter(pid -> !tree.contains(pid))
                            .toList())
                    .orElse(List.of());
            if (fresh.isEmpty()) {
                break;
            }
            tree.addAll(fresh);
            signal("STOP", fresh);
        }
    }

    private void resume(String id) throws IOException, InterruptedException {
        if (options.mode().equals("task")) {
            cluster.resume(id);
            return;
        }
        List<Long> tree = stoppedTrees.remove(id);
        if (tree != null) {
            signal("CONT", tree);
        }
    }

    private void resumeAll() throws IOException, InterruptedException {
        for (String id : List.copyOf(silenced.keySet())) {
            if ("PAUSED".equals(silenced.get(id)) && cluster != null) {
                if (options.mode().equals("task")) {
                    if (cluster.isRunning(id)) {
                        cluster.resume(id);
                    }
                } else {
                    resume(id);
                }
            }
        }
    }

    /** Signals processes of this run's cluster (never this process or pid 1). */
    private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("kill", "-" + signal, "--"));
        for (long pid : pids) {
            if (pid <= 1 || pid == ProcessHandle.current().pid()) {
                throw new IllegalArgumentException("refusing to signal pid " + pid);
            }
            argv.add(Long.toString(pid));
        }
        Process kill = new ProcessBuilder(argv)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true)
                .start();
        kill.waitFor(10, TimeUnit.SECONDS); // a process that ended in between is no error
    }

    private ChaosRecord record(long ended) throws Exception {
        FencedHistory history = FencedHistory.load(ledger);
        List<Attempt> attempts = history.attempts.stream()
                .map(a -> new Attempt(a.epoch(), a.node(), a.counter(), a.startedNs(), a.endedNs(), a.outcome()))
                .toList();
        List<ChaosChecker.Write> writes = history.writes.stream()
                .map(w -> new ChaosChecker.Write(w.seq(), w.epoch(), w.node(), w.counter()))
                .toList();
        List<Observation> seen;
        synchronized (observations) {
            seen = new ArrayList<>(observations);
        }
        seen.sort((a, b) -> Long.compare(a.atNs(), b.atNs()));
        List<String> violations = new ArrayList<>();
        // In command mode, no command of another epoch may be alive as a command starts or first writes.
        if (options.mode().equals("command")) {
            java.util.Set<Long> paused = new java.util.TreeSet<>();
            for (Fault f : faults) {
                if (f.kind().equals(Nemesis.Kind.PAUSE.label())) {
                    for (FencedHistory.Attempt a : history.attempts) {
                        if (f.targets().contains(a.node()) && a.startedNs() <= f.toNs() && a.lastNs() >= f.fromNs()) {
                            paused.add(a.epoch());
                        }
                    }
                }
            }
            for (String v : history.violations(paused)) {
                if (v.startsWith("writer ")) {
                    violations.add(v);
                }
            }
        }
        Verdict checked = ChaosChecker.check(
                nodes, faults, seen, attempts, writes, ended, options.bound().toNanos(), options.oneLeader());
        violations.addAll(checked.violations());
        Verdict verdict = new Verdict(
                List.copyOf(violations),
                checked.recoveries(),
                checked.overlapsCaughtByFence(),
                checked.accepted(),
                checked.stale());
        return new ChaosRecord(
                options.algorithm(),
                options.lease() ? options.store() : "",
                options.mode(),
                options.seed(),
                options.replay(),
                List.copyOf(nodes),
                begun,
                ended,
                List.copyOf(faults),
                seen,
                attempts,
                verdict);
    }

    /** Writes the summary of a run: counts, recoveries, every violation. */
    public static void summarize(ChaosRecord r, PrintStream out) {
        Verdict v = r.verdict();
        List<Long> recoveries = new ArrayList<>();
        int never = 0;
        for (ChaosRecord.Recovery rec : v.recoveries()) {
            if (rec.convergedNs() == 0) {
                never++;
            } else {
                recoveries.add(rec.convergedNs() - r.faults().get(rec.fault()).toNs());
            }
        }
        Collections.sort(recoveries);
        Map<String, Integer> kinds = new LinkedHashMap<>();
        r.faults().forEach(f -> kinds.merge(f.kind(), 1, Integer::sum));
        out.printf(
                Locale.ROOT,
                "chaos %s%s, %s mode, %d nodes, seed %d, %.0f s: %d faults %s; %d accepted writes, %d stale attempts"
                        + " refused, %d overlaps caught by the fence; agreement after a heal: p50 %s, max %s (bound"
                        + " %d ms), %d never%n",
                r.algorithm(),
                r.store().isEmpty() ? "" : " on " + r.store(),
                r.mode(),
                r.nodes().size(),
                r.seed(),
                (r.endedNs() - r.startedNs()) / 1e9,
                r.faults().size(),
                kinds,
                v.accepted(),
                v.stale(),
                v.overlapsCaughtByFence(),
                recoveries.isEmpty() ? "-" : ms(recoveries.get(recoveries.size() / 2)),
                recoveries.isEmpty() ? "-" : ms(recoveries.get(recoveries.size() - 1)),
                v.recoveries().isEmpty() ? 0 : v.recoveries().get(0).boundNs() / 1_000_000,
                never);
        Map<Integer, Long> byFault = ChaosChecker.failovers(r.nodes(), r.faults(), r.observations());
        List<Long> failovers = new ArrayList<>(byFault.values());
        Collections.sort(failovers);
        if (!failovers.isEmpty()) {
            out.printf(
                    Locale.ROOT,
                    "chaos: a new leader named by a majority after a fault on the leader (%d faults): p50 %s, max %s%n",
                    failovers.size(),
                    ms(failovers.get(failovers.size() / 2)),
                    ms(failovers.get(failovers.size() - 1)));
        }
        out.println("| fault | injected | agreement after the heal: p50 / max ms | on the leader: new leader after"
                + " p50 / max ms |");
        out.println("|---|---:|---:|---:|");
        for (String kind : kinds.keySet()) {
            List<Long> heal = new ArrayList<>();
            List<Long> fail = new ArrayList<>();
            for (ChaosRecord.Recovery rec : v.recoveries()) {
                Fault f = r.faults().get(rec.fault());
                if (f.kind().equals(kind)) {
                    if (rec.convergedNs() != 0) {
                        heal.add(rec.convergedNs() - f.toNs());
                    }
                    if (byFault.containsKey(rec.fault())) {
                        fail.add(byFault.get(rec.fault()));
                    }
                }
            }
            out.printf(Locale.ROOT, "| %s | %d | %s | %s |%n", kind, kinds.get(kind), p50Max(heal), p50Max(fail));
        }
        if (v.violations().isEmpty()) {
            out.println("chaos: no violation");
        } else {
            out.println("chaos: " + v.violations().size() + " VIOLATIONS; replay: " + r.replay());
            v.violations().forEach(s -> out.println("  " + s));
        }
    }

    private static String p50Max(List<Long> nanos) {
        if (nanos.isEmpty()) {
            return "-";
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return String.format(
                Locale.ROOT,
                "%.0f / %.0f (%d)",
                sorted.get(sorted.size() / 2) / 1e6,
                sorted.get(sorted.size() - 1) / 1e6,
                sorted.size());
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.0f ms", nanos / 1e6);
    }

    /** Writes the HTML report. */
    static void report(ChaosRecord r, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ChaosReport.write(r, file);
    }
}
