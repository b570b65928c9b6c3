package io.bellwether.bench;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.server.report.Distribution;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreSupport;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.store.jdbc.JdbcLeaseStore;
import io.bellwether.store.redis.RedisLeaseStore;
import io.bellwether.testkit.TcpProxy;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Lease elections on real stores with the default lease configuration: a group of three members in this JVM,
 * each with its own store client (its own connections, as separate processes would have) reaching the store
 * through its own {@link TcpProxy}. For each store it measures:
 *
 * <ol>
 *   <li><b>takeover after the holder vanishes</b> (the kill -9 case): the holder's proxy is black-holed, so its
 *       store traffic stops without a release, and its election is abandoned; measured from the cut to the
 *       {@code elected} callback of another member;
 *   <li><b>hand-over after a graceful release</b>: {@link Election#close()} of the holder, measured from the call
 *       to another member's {@code elected} callback;
 *   <li><b>statements per second</b> of the holder and of each contender over a quiet period, counted by a
 *       {@link CountingLeaseStore} around each member's store.
 * </ol>
 *
 * <p>After each trial the member that was hit is restarted (a fresh election and store client, same node id) and
 * the group settles: everybody follows the leader, push stores have confirmed every member's release watch, then
 * a random pause of up to one renew interval (seeded) puts the next fault at a random point of the renewal cycle.
 *
 * <p>Usage: {@code java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.LeaseFailover [TRIALS
 * [SECONDS [STORES]]]}: trials per measurement (default 20), seconds of the statement count (default 30), and a
 * comma-separated subset of {@code h2,postgresql,mariadb,redis} (default all). PostgreSQL (127.0.0.1:5432, db
 * {@code test}, user {@code postgres}), MariaDB (127.0.0.1:3306, db {@code test}, user {@code root}) and Redis
 * (127.0.0.1:6379) must be running or are skipped; H2 is started in this JVM as a TCP server.
 */
public final class LeaseFailover {
    private static final int MEMBERS = 3;
    private static final Duration CEILING = Duration.ofSeconds(30);
    private static final long SEED = 42;
    private static final String TABLE = "bellwether_bench_lease";
    private static final String ALL_STORES = "h2,postgresql,mariadb,redis";

    private LeaseFailover() {}

    /** A store under test: how to reach it at a port (the proxy's), and where it really listens. */
    private record Target(String name, int port, boolean pushes, IntFunction<LeaseStore> atPort) {}

    /** One store's results. */
    private record Result(
            Target target,
            Distribution takeover,
            Distribution handOver,
            Distribution roundTrip,
            double holderRate,
            double[] contenderRates,
            double seconds,
            boolean leaderStable) {}

    private record Elected(NodeId node, long epoch, long atNanos) {}

    public static void main(String[] args) throws Exception {
        // Hikari and Lettuce announce every pool at INFO; keep the tables readable.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        // Hikari warns, with a stack trace, about every connection the proxies cut on purpose.
        System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "error");
        int trials = intArg(args, 0, "TRIALS", 20);
        int seconds = intArg(args, 1, "SECONDS", 30);
        List<String> stores = Arrays.asList((args.length > 2 ? args[2] : ALL_STORES).split(","));
        for (String s : stores) {
            if (!List.of(ALL_STORES.split(",")).contains(s)) {
                throw new IllegalArgumentException(
                        "STORES: '" + s + "' is not a store: allowed a comma-separated subset of " + ALL_STORES);
            }
        }
        PrintStream out = System.out;
        LeaseConfig defaults = LeaseConfig.builder()
                .store(LeaseStoreSupport.placeholder("unused"))
                .build();
        out.printf(
                Locale.ROOT,
                "Lease election, %d members in one JVM, one store client and proxy each; %d trials per measurement,"
                        + " %d s statement count.%n",
                MEMBERS,
                trials,
                seconds);
        out.printf(
                Locale.ROOT,
                "Date %s; machine: %d cores (%s), %s %s, Java %s.%n",
                LocalDate.now(),
                Runtime.getRuntime().availableProcessors(),
                cpuModel(),
                System.getProperty("os.name"),
                System.getProperty("os.arch"),
                System.getProperty("java.version"));
        out.printf(
                Locale.ROOT,
                "Command: java -cp bellwether-bench/target/benchmarks.jar %s %s%n",
                LeaseFailover.class.getName(),
                String.join(" ", args));
        out.printf(
                Locale.ROOT,
                "Lease defaults: duration %d ms, renew-interval %d ms, renew-deadline %d ms, retry %d ms (±20%%),"
                        + " request-timeout %d ms, max-clock-drift %s, validity-margin %d ms.%n%n",
                defaults.duration().toMillis(),
                defaults.renewInterval().toMillis(),
                defaults.renewDeadline().toMillis(),
                defaults.retry().toMillis(),
                defaults.requestTimeout().toMillis(),
                defaults.maxClockDrift(),
                defaults.validityMargin().toMillis());

        org.h2.tools.Server h2 = null;
        List<Result> results = new ArrayList<>();
        try {
            for (String name : stores) {
                Target target;
                switch (name) {
                    case "h2" -> {
                        if (h2 == null) {
                            // -ifNotExists: H2 refuses to create databases for remote clients unless told to.
                            h2 = org.h2.tools.Server.createTcpServer("-tcpPort", "0", "-ifNotExists")
                                    .start();
                        }
                        target = jdbc(
                                "H2 (TCP server in this JVM)",
                                h2.getPort(),
                                false,
                                "jdbc:h2:tcp://127.0.0.1:%d/mem:bellwether_bench;DB_CLOSE_DELAY=-1");
                    }
                    case "postgresql" -> target =
                            jdbc("PostgreSQL", 5432, true, "jdbc:postgresql://127.0.0.1:%d/test?user=postgres");
                    case "mariadb" -> target =
                            jdbc("MariaDB", 3306, false, "jdbc:mariadb://127.0.0.1:%d/test?user=root");
                    default -> target = new Target("Redis", 6379, true, port -> RedisLeaseStore.builder()
                            .uri("redis://127.0.0.1:" + port)
                            .keyPrefix("bellwether-bench:")
                            .build());
                }
                if (!reachable(target.port())) {
                    out.printf(
                            Locale.ROOT,
                            "SKIPPING %s: nothing listens on 127.0.0.1:%d (start it as .ci/run does).%n",
                            target.name(),
                            target.port());
                    continue;
                }
                System.err.printf(Locale.ROOT, "measuring %s ...%n", target.name());
                results.add(measure(target, defaults, trials, seconds));
            }
        } finally {
            if (h2 != null) {
                h2.stop();
            }
        }
        print(out, results, defaults);
        // Store clients' daemon threads may linger for a moment; nothing is left to do.
        System.exit(0);
    }

    private static Target jdbc(String name, int port, boolean pushes, String urlFormat) {
        return new Target(name, port, pushes, p -> JdbcLeaseStore.builder()
                .url(String.format(Locale.ROOT, urlFormat, p))
                .table(TABLE)
                .createSchema(true)
                .build());
    }

    // ---------------------------------------------------------------------------------------------------------

    private static Result measure(Target target, LeaseConfig defaults, int trials, int seconds) throws Exception {
        Group group = new Group(target, defaults);
        try {
            group.startAll();
            long[] takeover = new long[trials];
            for (int i = 0; i < trials; i++) {
                takeover[i] = group.takeoverAfterCut();
            }
            long[] handOver = new long[trials];
            for (int i = 0; i < trials; i++) {
                handOver[i] = group.handOverAfterClose();
            }
            Member holder = group.settle();
            Optional<Leadership> before = holder.election.leadership();
            long[] start = group.statements();
            long t0 = System.nanoTime();
            group.timing = true;
            Thread.sleep(seconds * 1000L);
            group.timing = false;
            long[] end = group.statements();
            double wall = (System.nanoTime() - t0) / 1e9;
            boolean stable = holder.election.isLeader()
                    && before.isPresent()
                    && holder.election.leadership().map(Leadership::epoch).orElse(-1L)
                            == before.get().epoch();
            double holderRate = 0;
            double[] contenders = new double[MEMBERS - 1];
            int c = 0;
            for (int m = 0; m < MEMBERS; m++) {
                double rate = (end[m] - start[m]) / wall;
                if (group.members.get(m) == holder) {
                    holderRate = rate;
                } else {
                    contenders[c++] = rate;
                }
            }
            long[] rtt = group.roundTrips.stream().mapToLong(Long::longValue).toArray();
            return new Result(
                    target,
                    Distribution.of(takeover),
                    Distribution.of(handOver),
                    Distribution.of(rtt),
                    holderRate,
                    contenders,
                    wall,
                    stable);
        } finally {
            group.close();
        }
    }

    /** Three members of one lease, each behind its own proxy. */
    private static final class Group implements AutoCloseable {
        final Target target;
        final String lease = "bench-" + HexFormat.of().toHexDigits(new java.security.SecureRandom().nextInt());
        final LeaseConfig defaults;
        final InProcessNetwork network = new InProcessNetwork();
        final BlockingQueue<Elected> elections = new LinkedBlockingQueue<>();
        /** Round trips of the quiet period only: calls cut off by the proxy say nothing about the store. */
        final ConcurrentLinkedQueue<Long> roundTrips = new ConcurrentLinkedQueue<>();

        volatile boolean timing;
        final List<Member> members = new ArrayList<>();
        final Random random = new Random(SEED);

        Group(Target target, LeaseConfig defaults) {
            this.target = target;
            this.defaults = defaults;
        }

        void startAll() throws IOException {
            for (int i = 1; i <= MEMBERS; i++) {
                Member m = new Member(this, NodeId.of("n" + i), new TcpProxy(target.port()));
                members.add(m);
                m.start();
            }
        }

        /** Cuts the holder off the store and times until another member is elected. */
        long takeoverAfterCut() throws Exception {
            return timeTakeover(holder -> holder.proxy.blackhole(), holder -> {
                // Restart the vanished member, as a supervisor would restart a killed process.
                holder.election.close();
                holder.proxy.restore();
            });
        }

        /** Closes the holder's election (a graceful release) and times until another member is elected. */
        long handOverAfterClose() throws Exception {
            return timeTakeover(holder -> holder.election.close(), holder -> {});
        }

        /**
         * Settles on a holder, {@code stop}s it and times until another member is elected; then {@code
         * beforeRestart}s the old holder and starts it again with a fresh store client, ready for the next trial.
         */
        private long timeTakeover(Consumer<Member> stop, Consumer<Member> beforeRestart) throws Exception {
            Member holder = settle();
            long epoch = holder.epoch();
            elections.clear();
            long t0 = System.nanoTime();
            stop.accept(holder);
            Elected next = awaitSuccessor(holder, epoch);
            beforeRestart.accept(holder);
            holder.store.close();
            holder.start();
            return next.atNanos() - t0;
        }

        private Elected awaitSuccessor(Member holder, long epoch) throws InterruptedException {
            long deadline = System.nanoTime() + CEILING.toNanos();
            while (true) {
                Elected e = elections.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (e == null) {
                    throw new IllegalStateException(target.name() + ": nobody took over from " + holder.id + " (epoch "
                            + epoch + ") within " + CEILING);
                }
                if (!e.node().equals(holder.id) && e.epoch() > epoch) {
                    return e;
                }
            }
        }

        /**
         * Waits until one member leads and the others follow it at its epoch (and, on push stores, every
         * member's release watch is in force), then pauses for 100 ms plus a random part of a renew interval.
         */
        Member settle() throws InterruptedException {
            long deadline = System.nanoTime() + CEILING.toNanos();
            while (System.nanoTime() < deadline) {
                Optional<Member> leader = agreedLeader();
                if (leader.isPresent()) {
                    // The pause also lets a contender woken by its new watch poll and re-arm the watch.
                    Thread.sleep(
                            100 + random.nextInt((int) defaults.renewInterval().toMillis()));
                    if (agreedLeader().equals(leader)) {
                        return leader.get();
                    }
                }
                Thread.sleep(2);
            }
            throw new IllegalStateException(target.name() + ": the group did not settle on a leader within " + CEILING);
        }

        private Optional<Member> agreedLeader() {
            List<Member> leaders =
                    members.stream().filter(m -> m.election.isLeader()).toList();
            if (leaders.size() != 1) {
                return Optional.empty();
            }
            Member leader = leaders.get(0);
            long epoch = leader.epoch();
            for (Member m : members) {
                if (m == leader) {
                    continue;
                }
                Optional<LeaderView> v = m.election.leader();
                if (v.isEmpty()
                        || !v.get().leader().equals(leader.id)
                        || v.get().epoch() != epoch) {
                    return Optional.empty();
                }
                if (target.pushes() && !m.store.watchInForce()) {
                    return Optional.empty();
                }
            }
            return Optional.of(leader);
        }

        long[] statements() {
            return members.stream().mapToLong(m -> m.store.statements()).toArray();
        }

        @Override
        public void close() {
            for (Member m : members) {
                m.proxy.close();
                if (m.election != null) {
                    m.election.close();
                }
                if (m.store != null) {
                    m.store.close();
                }
            }
            network.close();
        }
    }

    /** One member: a fresh election and store client on each {@link #start()}, behind the same proxy. */
    private static final class Member implements ElectionListener {
        final Group group;
        final NodeId id;
        final TcpProxy proxy;
        volatile CountingLeaseStore store;
        volatile Election election;

        Member(Group group, NodeId id, TcpProxy proxy) {
            this.group = group;
            this.id = id;
            this.proxy = proxy;
        }

        void start() {
            store = new CountingLeaseStore(group.target.atPort().apply(proxy.port()), nanos -> {
                if (group.timing) {
                    group.roundTrips.add(nanos);
                }
            });
            LeaseConfig config = group.defaults.toBuilder().store(store).build();
            election = Election.builder()
                    .group(group.lease)
                    .self(id)
                    .member(id, NodeAddress.parse("127.0.0.1:7101"))
                    .algorithm(config)
                    .stateStore(new InMemoryStateStore())
                    .transport(group.network.transport(id))
                    .seed(group.random.nextLong())
                    .build();
            election.addListener(this);
            election.start();
        }

        long epoch() {
            return election.leadership().map(Leadership::epoch).orElse(-1L);
        }

        @Override
        public void elected(Leadership leadership) {
            group.elections.add(new Elected(id, leadership.epoch(), System.nanoTime()));
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private static void print(PrintStream out, List<Result> results, LeaseConfig cfg) {
        double durationMs = cfg.duration().toMillis();
        double retryMs = cfg.retry().toMillis();
        out.println("Takeover after the holder vanishes (its store traffic cut, no release), from the cut to"
                + " another member's `elected`:");
        out.println();
        out.println("| store | trials | p50 ms | p90 ms | p99 ms | max ms | round trip p50 / p99 ms | bound ms |"
                + " within bound |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : results) {
            Distribution d = r.takeover();
            double rttP99 = Distribution.millis(r.roundTrip().percentileNanos(99));
            double bound = durationMs + retryMs * 1.2 + rttP99;
            long within = Arrays.stream(d.sortedNanos())
                    .filter(n -> Distribution.millis(n) <= bound)
                    .count();
            out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f / %.2f | %.0f | %d/%d |%n",
                    r.target().name(),
                    d.count(),
                    Distribution.millis(d.percentileNanos(50)),
                    Distribution.millis(d.percentileNanos(90)),
                    Distribution.millis(d.percentileNanos(99)),
                    Distribution.millis(d.maxNanos()),
                    Distribution.millis(r.roundTrip().percentileNanos(50)),
                    rttP99,
                    bound,
                    within,
                    d.count());
        }
        out.printf(
                Locale.ROOT,
                "%nBound = duration + retry × 1.2 (the poll jitter's top) + one round trip (p99 of acquire-or-renew)"
                        + " = %.0f + %.0f + RTT ms.%n%n",
                durationMs,
                retryMs * 1.2);

        out.println("Hand-over after a graceful release (`Election.close()` of the holder → another member's"
                + " `elected`):");
        out.println();
        out.println("| store | wake-up | trials | p50 ms | p90 ms | p99 ms | max ms | target ms | met |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|---|");
        for (Result r : results) {
            Distribution d = r.handOver();
            double target = r.target().pushes() ? 50 : retryMs;
            double p99 = Distribution.millis(d.percentileNanos(99));
            out.printf(
                    Locale.ROOT,
                    "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | p99 ≤ %.0f | %s |%n",
                    r.target().name(),
                    r.target().pushes() ? "push" : "poll",
                    d.count(),
                    Distribution.millis(d.percentileNanos(50)),
                    Distribution.millis(d.percentileNanos(90)),
                    p99,
                    Distribution.millis(d.maxNanos()),
                    target,
                    p99 <= target ? "yes" : "no");
        }
        out.println();

        double holderTarget = 1000.0 / cfg.renewInterval().toMillis();
        double contenderTarget = 1000.0 / retryMs;
        out.printf(
                Locale.ROOT,
                "Store statements per second per member, while one member holds the lease (target: holder 1 per"
                        + " renew-interval = %.2f/s, contender 1 per retry = %.2f/s on average):%n%n",
                holderTarget,
                contenderTarget);
        out.println("| store | seconds | holder /s | contenders /s | leader unchanged |");
        out.println("|---|---:|---:|---:|---|");
        for (Result r : results) {
            StringBuilder cs = new StringBuilder();
            for (double c : r.contenderRates()) {
                cs.append(cs.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", c));
            }
            out.printf(
                    Locale.ROOT,
                    "| %s | %.0f | %.2f | %s | %s |%n",
                    r.target().name(),
                    r.seconds(),
                    r.holderRate(),
                    cs,
                    r.leaderStable() ? "yes" : "no");
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private static int intArg(String[] args, int index, String name, int fallback) {
        if (args.length <= index) {
            return fallback;
        }
        try {
            int v = Integer.parseInt(args[index]);
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " = '" + args[index] + "' is invalid: allowed a whole number ≥ 1");
    }

    private static boolean reachable(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }
}
