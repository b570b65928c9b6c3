package io.bellwether.server.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Node processes of one cluster on loopback, started from this JVM's own classpath: what {@code bellwether
 * demo}, the multi-process tests and the process failover benchmark share. It writes each node's
 * configuration, a generated secret and state directories under one temporary directory, and removes all of
 * it on {@link #close()}.
 *
 * <p>Faults are real signals: {@link #kill} is SIGKILL, {@link #pause}/{@link #resume} are SIGSTOP/SIGCONT,
 * {@link #terminate} is SIGTERM (a graceful resignation).
 */
public final class LocalCluster implements AutoCloseable {
    /** One member: its id, ports and files. */
    public record Member(String id, int peerPort, int httpPort, Path config, Path log) {
        public URI httpUri(String path) {
            return URI.create("http://127.0.0.1:" + httpPort + path);
        }
    }

    /**
     * A node's {@code /status}, as far as the cluster tools need it.
     *
     * @param leader the leader it knows, or null
     */
    public record NodeStatus(String node, String role, long epoch, String leader, JsonNode raw) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * A node is small and mostly idle: a small serial-GC heap and the C1 compiler alone (the full JIT's profiling
     * and compiles cost more than they save at a few messages a second), no perf-data sampling. The {@code
     * bellwether} launcher uses the same options for {@code node}, and so do the tests that start nodes.
     */
    public static final List<String> NODE_JVM_OPTIONS = List.of(
            "-XX:+UseSerialGC",
            "-Xms16m",
            "-Xmx64m",
            "-XX:TieredStopAtLevel=1",
            "-Xss512k",
            "-XX:-UsePerfData",
            // A node out of heap must end, not limp on with some of its threads dead (a zombie member).
            "-XX:+ExitOnOutOfMemoryError");

    /** What each node process runs, before {@code --config FILE}: the main class and its leading arguments. */
    private static final List<String> NODE_COMMAND = List.of("io.bellwether.server.cli.Main", "node");

    private final Path dir;
    private final String algorithm;
    private final List<String> nodeCommand;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, Boolean> paused = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofMillis(300))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    /** Arguments after each node's {@code --config FILE}: {@code bellwether run}'s {@code -- COMMAND ...}. */
    private final List<String> afterConfig;

    private LocalCluster(Path dir, String algorithm, List<String> nodeCommand, List<String> afterConfig) {
        this.dir = dir;
        this.algorithm = algorithm;
        this.nodeCommand = List.copyOf(nodeCommand);
        this.afterConfig = List.copyOf(afterConfig);
    }

    /**
     * As {@link #start(int, String, String)}, every node being {@code bellwether run --config FILE -- COMMAND}: it
     * runs {@code command} while it leads (see {@code docs/run.md}).
     */
    public static LocalCluster startRunning(int nodes, String algorithm, String extraConfig, List<String> command)
            throws IOException {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command must name a program");
        }
        List<String> after = new ArrayList<>();
        after.add("--");
        after.addAll(command);
        return start(
                nodes,
                algorithm,
                extraConfig,
                List.of("io.bellwether.server.cli.Main", "run"),
                after,
                PeerRoutes.DIRECT);
    }

    /**
     * Writes the configuration of {@code nodes} members and starts every one of them. Every node gets {@code
     * listen}, {@code peers} (with HTTP addresses) and a shared secret whatever the algorithm: with {@code lease}
     * they are accepted and only feed the dashboard's member list.
     *
     * @param extraConfig YAML lines appended to every node's configuration (may be empty): the algorithm's own
     *     section, e.g. {@link #leaseSection} for {@code lease}, which needs one
     */
    public static LocalCluster start(int nodes, String algorithm, String extraConfig) throws IOException {
        return start(nodes, algorithm, extraConfig, NODE_COMMAND);
    }

    /**
     * As {@link #start(int, String, String)}, with every node running {@code nodeCommand} (a main class on this
     * process's class path and its leading arguments, followed by {@code --config FILE}) instead of {@code
     * bellwether node}: for tests whose nodes also run a leader task of their own.
     */
    public static LocalCluster start(int nodes, String algorithm, String extraConfig, List<String> nodeCommand)
            throws IOException {
        return start(nodes, algorithm, extraConfig, nodeCommand, PeerRoutes.DIRECT);
    }

    /**
     * Where one member is told to reach another: for tests that put something (a proxy) on the path between
     * members. Each member's own entry is always its real address.
     */
    @FunctionalInterface
    public interface PeerRoutes {
        /** Every member reaches every other at its real address. */
        PeerRoutes DIRECT = (from, to, port) -> port;

        /**
         * The loopback port that member {@code from}'s configuration gives for member {@code to}, which listens on
         * {@code port}; called once per ordered pair, before any node starts.
         */
        int port(String from, String to, int port) throws IOException;
    }

    /**
     * As {@link #start(int, String, String, List)}, each member reaching each other at the port {@code routes}
     * gives.
     */
    public static LocalCluster start(
            int nodes, String algorithm, String extraConfig, List<String> nodeCommand, PeerRoutes routes)
            throws IOException {
        return start(nodes, algorithm, extraConfig, nodeCommand, List.of(), routes);
    }

    private static LocalCluster start(
            int nodes,
            String algorithm,
            String extraConfig,
            List<String> nodeCommand,
            List<String> afterConfig,
            PeerRoutes routes)
            throws IOException {
        return start(nodes, algorithm, id -> extraConfig, nodeCommand, afterConfig, routes);
    }

    /**
     * The general form: {@code nodes} members, member {@code id}'s configuration ending with {@code
     * extraConfig.apply(id)}, each running {@code nodeCommand} (a main class on this process's class path and its
     * leading arguments), then {@code --config FILE}, then {@code afterConfig} (for {@code bellwether run}: {@code
     * run} as the command's last word and {@code -- COMMAND ...} here), each reaching each other at the port {@code
     * routes} gives.
     */
    public static LocalCluster start(
            int nodes,
            String algorithm,
            Function<String, String> extraConfig,
            List<String> nodeCommand,
            List<String> afterConfig,
            PeerRoutes routes)
            throws IOException {
        Objects.requireNonNull(routes, "routes");
        Objects.requireNonNull(extraConfig, "extraConfig");
        if (nodes < 1 || nodes > 15) {
            throw new IllegalArgumentException("nodes must be 1 to 15, was " + nodes);
        }
        if (nodeCommand.isEmpty()) {
            throw new IllegalArgumentException("nodeCommand must name a main class");
        }
        Path dir = Files.createTempDirectory("bellwether-cluster-");
        LocalCluster cluster = new LocalCluster(dir, algorithm, nodeCommand, afterConfig);
        try {
            cluster.writeConfigs(nodes, extraConfig, routes);
            for (String id : cluster.members.keySet()) {
                cluster.startNode(id);
            }
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * A {@code lease:} section for {@code extraConfig}: the store, whether to create its table, and the lease
     * duration (the other timings default in proportion to it).
     *
     * @param store a JDBC URL or Redis URI, written quoted
     */
    public static String leaseSection(String store, Duration duration, boolean createSchema) {
        return "lease:\n"
                + "  store: '" + store.replace("'", "''") + "'\n"
                + (createSchema ? "  create-schema: true\n" : "")
                + "  duration: " + io.bellwether.server.config.Durations.format(duration) + "\n";
    }

    private void writeConfigs(int nodes, Function<String, String> extraConfig, PeerRoutes routes) throws IOException {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Path secretFile = dir.resolve("secret");
        Files.writeString(secretFile, HexFormat.of().formatHex(secret) + "\n", StandardCharsets.UTF_8);
        String cluster = "demo-" + HexFormat.of().formatHex(secret, 0, 3);
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            ports.add(new int[] {freePort(), freePort()});
        }
        for (int i = 0; i < nodes; i++) {
            String id = "n" + (i + 1);
            StringBuilder peers = new StringBuilder("peers:\n");
            for (int j = 0; j < nodes; j++) {
                String to = "n" + (j + 1);
                int port = i == j ? ports.get(j)[0] : routes.port(id, to, ports.get(j)[0]);
                peers.append("  ")
                        .append(to)
                        .append(": {address: 127.0.0.1:")
                        .append(port)
                        .append(", http: 127.0.0.1:")
                        .append(ports.get(j)[1])
                        .append("}\n");
            }
            Path config = dir.resolve(id + ".yaml");
            String yaml = "cluster: " + cluster + "\n"
                    + "node: " + id + "\n"
                    + "algorithm: " + algorithm + "\n"
                    + "listen: 127.0.0.1:" + ports.get(i)[0] + "\n"
                    + "http: 127.0.0.1:" + ports.get(i)[1] + "\n"
                    + peers
                    + "secret-file: " + secretFile + "\n"
                    + "state-dir: " + dir.resolve("state-" + id) + "\n"
                    + Objects.requireNonNullElse(extraConfig.apply(id), "");
            Files.writeString(config, yaml, StandardCharsets.UTF_8);
            members.put(id, new Member(id, ports.get(i)[0], ports.get(i)[1], config, dir.resolve(id + ".log")));
        }
    }

    /** The ports members are given: below Linux's default ephemeral range, 32768–60999 (see {@link #freePort}). */
    private static final int FIRST_PORT = 20_000;

    private static final int PORTS = 12_000;

    /** Where this process looks for its next port; spread by process id so that clusters started together differ. */
    private static final AtomicInteger NEXT_PORT =
            new AtomicInteger((int) (ProcessHandle.current().pid() % 1000) * 12);

    /**
     * A loopback port that is free now, below the ephemeral range. A port the system hands out ({@code new
     * ServerSocket(0)}) is in that range, so between this check and the node binding it, or while a member is down
     * to be restarted, any outgoing connection on the machine (a node dialing a peer, an HTTP client) may be given
     * it as its local port, and the node then cannot listen: seen as a 5-node cluster that never agreed.
     */
    private static int freePort() throws IOException {
        for (int tries = 0; tries < PORTS; tries++) {
            int port = FIRST_PORT + Math.floorMod(NEXT_PORT.getAndIncrement(), PORTS);
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException taken) {
                // in use: try the next one
            }
        }
        throw new IOException("no free loopback port from " + FIRST_PORT + " to " + (FIRST_PORT + PORTS - 1));
    }

    /** The directory holding configurations, secret, state and logs. */
    public Path directory() {
        return dir;
    }

    public String algorithm() {
        return algorithm;
    }

    public List<Member> members() {
        return List.copyOf(members.values());
    }

    public Member member(String id) {
        Member m = members.get(id);
        if (m == null) {
            throw new IllegalArgumentException("no member " + id + "; members are " + members.keySet());
        }
        return m;
    }

    /** Starts (or restarts) a member's process; its output goes to its log file. */
    public synchronized void startNode(String id) throws IOException {
        Member m = member(id);
        Process old = processes.get(id);
        if (old != null && old.isAlive()) {
            throw new IllegalStateException(id + " is already running");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(NODE_JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(nodeCommand);
        command.add("--config");
        command.add(m.config().toString());
        command.addAll(afterConfig);
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(m.log().toFile()))
                .start();
        processes.put(id, p);
        paused.put(id, false);
    }

    /** Whether the member's process is running (possibly paused). */
    public synchronized boolean isRunning(String id) {
        Process p = processes.get(id);
        return p != null && p.isAlive();
    }

    /** The exit status of the member's process, if it was started and has ended (137 after {@link #kill}). */
    public synchronized java.util.OptionalInt exitStatus(String id) {
        Process p = processes.get(id);
        return p != null && !p.isAlive() ? java.util.OptionalInt.of(p.exitValue()) : java.util.OptionalInt.empty();
    }

    public synchronized boolean isPaused(String id) {
        return paused.getOrDefault(id, false);
    }

    /** The process id, if running. */
    public synchronized Optional<Long> pid(String id) {
        Process p = processes.get(id);
        return p != null && p.isAlive() ? Optional.of(p.pid()) : Optional.empty();
    }

    /** SIGKILL: the process dies at once; its sockets are reset by the kernel. */
    public synchronized void kill(String id) throws InterruptedException {
        Process p = processes.get(id);
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        paused.put(id, false);
    }

    /** SIGSTOP: the process stops running but keeps its sockets open (a silent failure). */
    public synchronized void pause(String id) throws IOException, InterruptedException {
        signal(id, "STOP");
        paused.put(id, true);
    }

    /** SIGCONT. */
    public synchronized void resume(String id) throws IOException, InterruptedException {
        signal(id, "CONT");
        paused.put(id, false);
    }

    /** SIGTERM and wait for the process to exit (it resigns gracefully first); returns its exit status. */
    public int terminate(String id, Duration timeout) throws IOException, InterruptedException {
        Process p;
        synchronized (this) {
            p = processes.get(id);
            if (p == null || !p.isAlive()) {
                return p == null ? -1 : p.exitValue();
            }
            if (paused.getOrDefault(id, false)) {
                resume(id);
            }
            p.destroy();
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException(id + " did not exit within " + timeout + " of SIGTERM");
        }
        return p.exitValue();
    }

    private void signal(String id, String signal) throws IOException, InterruptedException {
        long pid = pid(id).orElseThrow(() -> new IllegalStateException(id + " is not running"));
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " failed");
        }
    }

    /** Reads a member's {@code /status}; empty if it does not answer within {@code timeout}. */
    public Optional<NodeStatus> status(String id, Duration timeout) {
        try {
            Optional<String> body = get(id, "/status", timeout);
            return body.isPresent() ? Optional.of(parseStatus(body.get())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * GETs {@code path} from a member's HTTP server; empty if it does not answer 200 within {@code timeout}.
     */
    public Optional<String> get(String id, String path, Duration timeout) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(member(id).httpUri(path))
                            .timeout(timeout)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    static NodeStatus parseStatus(String body) throws IOException {
        JsonNode json = JSON.readTree(body);
        JsonNode leader = json.path("leader");
        return new NodeStatus(
                json.path("node").asText(),
                json.path("role").asText(),
                json.path("epoch").asLong(),
                leader.isNull() || leader.isMissingNode() ? null : leader.asText(),
                json);
    }

    /** The statuses of every member that is running, not paused and answering. */
    public Map<String, NodeStatus> liveStatuses(Duration timeout) {
        Map<String, NodeStatus> out = new LinkedHashMap<>();
        for (String id : members.keySet()) {
            if (isRunning(id) && !isPaused(id)) {
                status(id, timeout).ifPresent(s -> out.put(id, s));
            }
        }
        return out;
    }

    /**
     * The leader every given member agrees on — each names the same leader at the same epoch, and that
     * leader itself reports LEADER at that epoch — or empty.
     */
    public static Optional<NodeStatus> agreedLeader(Map<String, NodeStatus> statuses) {
        if (statuses.isEmpty()) {
            return Optional.empty();
        }
        NodeStatus first = statuses.values().iterator().next();
        if (first.leader() == null) {
            return Optional.empty();
        }
        for (NodeStatus s : statuses.values()) {
            if (!Objects.equals(s.leader(), first.leader()) || s.epoch() != first.epoch()) {
                return Optional.empty();
            }
        }
        NodeStatus leader = statuses.get(first.leader());
        return leader != null && "LEADER".equals(leader.role()) ? Optional.of(leader) : Optional.empty();
    }

    /** Stops every process (resuming paused ones so they can resign) and deletes the directory. */
    @Override
    public void close() {
        List<String> ids;
        synchronized (this) {
            ids = new ArrayList<>(processes.keySet());
        }
        for (String id : ids) {
            try {
                if (isPaused(id)) {
                    resume(id);
                }
            } catch (IOException | RuntimeException e) {
                // best effort: it is killed below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Process p;
            synchronized (this) {
                p = processes.get(id);
            }
            if (p != null && p.isAlive()) {
                p.destroy();
            }
        }
        for (String id : ids) {
            Process p;
            synchronized (this) {
                p = processes.get(id);
            }
            try {
                if (p != null && !p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        deleteRecursively(dir);
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // Leave what could not be removed; it is under the system's temporary directory.
        }
    }
}
