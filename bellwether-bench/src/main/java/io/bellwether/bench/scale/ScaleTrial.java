package io.bellwether.bench.scale;

import io.bellwether.bench.peers.NodeProcess;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Ports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One measurement of {@link ScaleGroups} for one group count: starts the member processes ({@link ScaleNode}),
 * waits until every group has a leader all members agree on, measures the members while idle, then kills the
 * member leading the most groups with SIGKILL and times how soon each of its groups is led again. Every wait is
 * bounded by the ceiling; {@link #close()} kills every process this trial started.
 *
 * <p>Times are the members' own stamps ({@link ViewLine}), on the clock the driver reads as well ({@link
 * System#nanoTime()}), so neither the members' buffered output nor the driver's polling adds to them.
 */
final class ScaleTrial implements AutoCloseable {
    /** How often the driver looks at what the members reported; the figures come from the members' stamps. */
    private static final long POLL_MILLIS = 20;

    /** How often a line of progress goes to standard error while the groups elect. */
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final String STARTED_PREFIX = "scale started ";

    /** After every member is resumed: how long no member may report a change before the groups count as settled. */
    private static final long SETTLED_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final int groups;
    private final int nodes;
    private final Duration ceiling;
    private final String maxHeap;
    private final Duration pause;
    private final Path dir;
    private final List<String> ids = new ArrayList<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    /** When each member had started all its elections, by its own stamp. */
    private final Map<String, Long> started = new ConcurrentHashMap<>();

    private final List<Thread> readers = new ArrayList<>();
    private final GroupViews views;
    private int peakAgreed;
    private final boolean spread;

    /**
     * @param groups groups per member
     * @param nodes member processes
     * @param ceiling bound on each wait
     * @param maxHeap each member's {@code -Xmx} value
     * @param pause how long every member is stopped at once before the kill; zero for no pause
     * @param spread whether the members build their elections with {@code spreadLeaders}
     */
    ScaleTrial(int groups, int nodes, Duration ceiling, String maxHeap, Duration pause, boolean spread)
            throws IOException {
        this.spread = spread;
        this.groups = groups;
        this.nodes = nodes;
        this.ceiling = ceiling;
        this.maxHeap = maxHeap;
        this.pause = pause;
        this.dir = Files.createTempDirectory("bellwether-scale-");
        for (int i = 1; i <= nodes; i++) {
            ids.add("n" + i);
        }
        this.views = new GroupViews(groups, ids);
    }

    /** Where the members' logs (their standard error) are written. */
    Path logDirectory() {
        return dir;
    }

    /**
     * Runs the trial.
     *
     * @param idle how long to measure the members idle
     * @param progress where a line of progress goes every 10 s while the groups elect
     * @throws IllegalStateException if a member process ends on its own, or prints a malformed line
     */
    ScaleResult run(Duration idle, PrintStream progress) throws IOException, InterruptedException {
        double load = loadAverage();
        long startNanos = start();
        GroupViews.Summary agreed = awaitAgreement(startNanos, progress);
        boolean allAgreed = agreed.count() == groups;

        Map<String, ProcSample> before = sampleAll();
        long idleStart = System.nanoTime();
        sleepWatching(idle);
        Map<String, ProcSample> after = sampleAll();
        double wallNanos = System.nanoTime() - idleStart;
        // Who leads what once the idle period has let hand-overs (spread) settle.
        List<Integer> ledPerMember = new ArrayList<>();
        Map<String, List<Integer>> led = views.groupsByLeader(ids);
        for (String id : ids) {
            ledPerMember.add(led.getOrDefault(id, List.of()).size());
        }
        List<ScaleResult.MemberUsage> usage = new ArrayList<>();
        for (String id : ids) {
            ProcSample a = after.get(id);
            usage.add(new ScaleResult.MemberUsage(
                    a.threads(), a.residentMiB(), 100.0 * a.cpuNanosSince(before.get(id)) / wallNanos));
        }

        Optional<ScaleResult.Pause> paused = Optional.empty();
        if (allAgreed && !pause.isZero()) {
            paused = Optional.of(pauseAll());
        }
        Optional<ScaleResult.Failover> failover = Optional.empty();
        if (allAgreed && paused.map(p -> p.notReagreed() == 0).orElse(true)) {
            failover = Optional.of(killBusiest());
        }
        return new ScaleResult(
                groups,
                nodes,
                allAgreed
                        ? OptionalLong.of(agreed.lastAgreedAtNanos().orElseThrow() - startNanos)
                        : OptionalLong.empty(),
                agreed.count(),
                Math.max(peakAgreed, agreed.count()),
                ceiling,
                usage,
                ledPerMember,
                paused,
                failover,
                load);
    }

    /** Starts every member; returns the time just before the first was started. */
    private long start() throws IOException {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (String id : ids) {
            ports.put(id, Ports.free());
        }
        String members = ports.entrySet().stream()
                .map(e -> e.getKey() + "=127.0.0.1:" + e.getValue())
                .collect(Collectors.joining(","));
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String hexSecret = HexFormat.of().formatHex(secret);
        long startNanos = System.nanoTime();
        for (String id : ids) {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions(maxHeap));
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(ScaleNode.class.getName());
            command.addAll(List.of(
                    "--self",
                    id,
                    "--members",
                    members,
                    "--groups",
                    Integer.toString(groups),
                    "--spread",
                    Boolean.toString(spread)));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(
                            dir.resolve(id + ".log").toFile()));
            builder.environment().put(ScaleNode.SECRET_ENV, hexSecret);
            Process p = builder.start();
            processes.put(id, p);
            Thread reader = new Thread(() -> read(id, p), "scale-read-" + id);
            reader.setDaemon(true);
            reader.start();
            readers.add(reader);
        }
        return startNanos;
    }

    /**
     * The member JVM's options: those of the node processes of {@code bellwether demo} ({@link
     * LocalCluster#NODE_JVM_OPTIONS}), with {@code -Xmx} set to {@code maxHeap}.
     */
    static List<String> jvmOptions(String maxHeap) {
        List<String> options = new ArrayList<>();
        boolean replaced = false;
        for (String o : LocalCluster.NODE_JVM_OPTIONS) {
            if (o.startsWith("-Xmx")) {
                options.add("-Xmx" + maxHeap);
                replaced = true;
            } else {
                options.add(o);
            }
        }
        if (!replaced) {
            options.add("-Xmx" + maxHeap);
        }
        return options;
    }

    private void read(String id, Process p) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                Optional<ViewLine> view = ViewLine.parse(line);
                if (view.isPresent()) {
                    views.apply(id, view.get());
                } else if (line.startsWith(STARTED_PREFIX)) {
                    started.put(id, Long.parseLong(line.substring(STARTED_PREFIX.length())));
                }
            }
        } catch (IOException | RuntimeException e) {
            failures.putIfAbsent(id, "reading its output failed: " + e);
        }
    }

    /**
     * Waits until every group agrees among all members, or the ceiling from {@code startNanos}; returns how far they
     * got. Tells {@code progress} how it goes every {@link #PROGRESS_NANOS}.
     */
    private GroupViews.Summary awaitAgreement(long startNanos, PrintStream progress) throws InterruptedException {
        long deadlineNanos = startNanos + ceiling.toNanos();
        long nextProgress = startNanos + PROGRESS_NANOS;
        GroupViews.Summary s = views.summary(ids);
        while (s.count() < groups && System.nanoTime() < deadlineNanos) {
            checkAlive(ids);
            Thread.sleep(POLL_MILLIS);
            s = views.summary(ids);
            peakAgreed = Math.max(peakAgreed, s.count());
            if (System.nanoTime() >= nextProgress) {
                nextProgress += PROGRESS_NANOS;
                progress.println("scale: " + progress(startNanos));
            }
        }
        return s;
    }

    /**
     * Stops every member at once (SIGSTOP) for {@link #pause}, resumes them all, and waits until every group has an
     * agreed leader and no member has reported a change for {@link #SETTLED_NANOS} (or the ceiling). A group counts
     * as re-agreed when some member learned its agreed leader after the resume.
     */
    private ScaleResult.Pause pauseAll() throws IOException, InterruptedException {
        Map<Integer, GroupViews.Agreed> before = new LinkedHashMap<>();
        for (int g = 0; g < groups; g++) {
            before.put(g, views.agreed(g, ids).orElseThrow());
        }
        long resumeNanos;
        try {
            for (String id : ids) {
                NodeProcess.Signaller.send("STOP", processes.get(id).pid());
            }
            TimeUnit.NANOSECONDS.sleep(pause.toNanos());
        } finally {
            resumeNanos = System.nanoTime();
            for (String id : ids) {
                NodeProcess.Signaller.send("CONT", processes.get(id).pid());
            }
        }
        long deadline = resumeNanos + ceiling.toNanos();
        long seen = views.applied();
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            checkAlive(ids);
            Thread.sleep(POLL_MILLIS);
            long now = System.nanoTime();
            long applied = views.applied();
            if (applied != seen) {
                seen = applied;
                quietSince = now;
            } else if (now - quietSince >= SETTLED_NANOS && views.summary(ids).count() == groups) {
                break;
            }
        }
        List<Long> reagreed = new ArrayList<>();
        int notReagreed = 0;
        int changed = 0;
        for (int g = 0; g < groups; g++) {
            Optional<GroupViews.Agreed> now = views.agreed(g, ids);
            if (now.isEmpty()) {
                notReagreed++;
                continue;
            }
            GroupViews.Agreed a = now.get();
            if (a.agreedAtNanos() - resumeNanos > 0) {
                reagreed.add(a.agreedAtNanos() - resumeNanos);
            }
            GroupViews.Agreed b = before.get(g);
            if (!a.leader().equals(b.leader()) || a.epoch() != b.epoch()) {
                changed++;
            }
        }
        return new ScaleResult.Pause(pause, List.copyOf(reagreed), notReagreed, changed);
    }

    /** Kills the member leading the most groups and times how soon each of its groups is led by another. */
    private ScaleResult.Failover killBusiest() throws InterruptedException, IOException {
        Map<String, List<Integer>> led = views.groupsByLeader(ids);
        String victim = led.entrySet().stream()
                .max(Comparator.comparingInt((Map.Entry<String, List<Integer>> e) ->
                                e.getValue().size())
                        .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
                .orElseThrow()
                .getKey();
        Map<Integer, Long> epochs = new LinkedHashMap<>();
        for (int g : led.get(victim)) {
            epochs.put(g, views.agreed(g, ids).orElseThrow().epoch());
        }
        List<String> survivors = ids.stream().filter(id -> !id.equals(victim)).toList();
        Process process = processes.get(victim);
        long signalNanos = System.nanoTime();
        process.destroyForcibly(); // SIGKILL on Linux
        long deadline = signalNanos + ceiling.toNanos();
        List<Long> reled = new ArrayList<>();
        Map<Integer, Long> pending = new LinkedHashMap<>(epochs);
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            checkAlive(survivors);
            for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                OptionalLong at = views.reledAt(e.getKey(), victim, e.getValue());
                if (at.isPresent()) {
                    reled.add(at.getAsLong() - signalNanos);
                    it.remove();
                }
            }
            if (!pending.isEmpty()) {
                Thread.sleep(POLL_MILLIS);
            }
        }
        process.waitFor(10, TimeUnit.SECONDS);
        return new ScaleResult.Failover(victim, List.copyOf(reled), pending.size());
    }

    private void sleepWatching(Duration d) throws InterruptedException {
        long deadline = System.nanoTime() + d.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            checkAlive(ids);
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(500)));
        }
    }

    private Map<String, ProcSample> sampleAll() throws IOException {
        Map<String, ProcSample> samples = new LinkedHashMap<>();
        for (String id : ids) {
            samples.put(id, ProcSample.of(processes.get(id).pid()));
        }
        return samples;
    }

    /** Fails if one of {@code members} ended, or its output could not be read, with the tail of its log. */
    private void checkAlive(List<String> members) {
        for (String id : members) {
            Process p = processes.get(id);
            String failure = failures.get(id);
            if (!p.isAlive() || (failure != null && !failure.isEmpty())) {
                String why = p.isAlive() ? failure : "exited with status " + p.exitValue();
                throw new IllegalStateException("member " + id + " of " + groups + " groups " + why + "; its log "
                        + dir.resolve(id + ".log") + " ends:\n" + logTail(id));
            }
        }
    }

    private String logTail(String id) {
        try (Stream<String> lines = Files.lines(dir.resolve(id + ".log"))) {
            List<String> all = lines.toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - 20), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** The machine's 1-minute load average, or -1 if /proc does not say. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Kills every member process still running, waits for each, and removes the logs. Idempotent. */
    @Override
    public void close() {
        for (Process p : processes.values()) {
            p.destroyForcibly();
        }
        for (Process p : processes.values()) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Thread reader : readers) {
            try {
                reader.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Removes the members' logs. */
    void deleteLogs() {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // left behind in the temporary directory
        }
    }

    /** The current state, for progress lines: agreement, leaders, and which members have started every group. */
    private String progress(long startNanos) {
        GroupViews.Summary s = views.summary(ids);
        StringBuilder members = new StringBuilder();
        for (String id : ids) {
            Long at = started.get(id);
            members.append(' ')
                    .append(id)
                    .append(
                            at == null
                                    ? " starting"
                                    : String.format(Locale.ROOT, " started at %.1f s", (at - startNanos) / 1e9));
        }
        return String.format(
                Locale.ROOT,
                "%.0f s: %d of %d groups agreed, %d with a member that names itself leader;%s",
                (System.nanoTime() - startNanos) / 1e9,
                s.count(),
                groups,
                views.selfNamedLeaders(),
                members);
    }
}
