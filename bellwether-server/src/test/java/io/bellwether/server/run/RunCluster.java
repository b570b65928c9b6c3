package io.bellwether.server.run;

import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import io.bellwether.testkit.Ports;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Quorum nodes on loopback in this JVM, each with a {@link CommandRunner}; for the runner's tests. */
final class RunCluster implements AutoCloseable {
    /** Long enough for a busy CI machine not to lose leaderships by itself, short enough for quick tests. */
    static final String TIMINGS = "quorum: {heartbeat-interval: 100ms, missed-heartbeats: 10}\n";

    final Path dir;
    final Map<String, NodeDaemon> daemons = new LinkedHashMap<>();
    final Map<String, CommandRunner> runners = new LinkedHashMap<>();
    final Map<String, CompletableFuture<Duration>> resigned = new LinkedHashMap<>();
    final ByteArrayOutputStream output = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
    private final Map<String, String> yaml = new LinkedHashMap<>();

    /** Every proxy, keyed "dialer>target"; empty unless the cluster was built with proxies. */
    final Map<String, io.bellwether.testkit.TcpProxy> proxies = new LinkedHashMap<>();
    /** Each node's HTTP port. */
    final Map<String, Integer> httpPorts = new LinkedHashMap<>();

    RunCluster(Path dir, int size) throws IOException {
        this(dir, size, false);
    }

    /**
     * @param proxied whether every member reaches every other through a {@link io.bellwether.testkit.TcpProxy} of its
     *     own (one per ordered pair), so that a test can make a member's peers go silent without closing anything
     */
    RunCluster(Path dir, int size, boolean proxied) throws IOException {
        this.dir = dir;
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            ids.add("n" + i);
        }
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (String id : ids) {
            ports.put(id, Ports.free());
            httpPorts.put(id, Ports.free());
        }
        for (String id : ids) {
            StringBuilder peers = new StringBuilder("peers:\n");
            for (String peer : ids) {
                int port = ports.get(peer);
                if (proxied && !peer.equals(id)) {
                    io.bellwether.testkit.TcpProxy proxy = new io.bellwether.testkit.TcpProxy(port);
                    proxies.put(id + ">" + peer, proxy);
                    port = proxy.port();
                }
                peers.append("  ")
                        .append(peer)
                        .append(": {address: 127.0.0.1:")
                        .append(port)
                        .append(", http: 127.0.0.1:")
                        .append(httpPorts.get(peer))
                        .append("}\n");
            }
            yaml.put(
                    id,
                    "cluster: run\nnode: " + id + "\nlisten: 127.0.0.1:" + ports.get(id) + "\n" + peers
                            + "insecure: true\nstate-dir: data-" + id + "\n" + TIMINGS);
        }
    }

    /** Every byte to and from {@code id} stops, connections staying open: its peers go silent, as in a pause. */
    void silence(String id) {
        proxies.forEach((pair, proxy) -> {
            String[] ends = pair.split(">");
            if (ends[0].equals(id) || ends[1].equals(id)) {
                proxy.blackhole();
            }
        });
    }

    /** The node's configuration file, written for a child process. */
    Path configFile(String id) throws IOException {
        Path file = dir.resolve(id + ".yaml");
        Files.writeString(file, yaml.get(id));
        return file;
    }

    NodeConfig config(String id) throws io.bellwether.server.config.ConfigException {
        return ConfigLoader.parse(yaml.get(id), dir, id + ".yaml");
    }

    /** Starts node {@code id} with a runner of {@code options}; its step-downs resign and complete {@link #resigned}. */
    CommandRunner start(String id, RunOptions options) throws io.bellwether.server.config.ConfigException {
        NodeConfig config = config(id);
        RunPlan plan = RunPlan.of(config, options);
        NodeDaemon daemon = NodeDaemon.start(config, plan.revocationLead());
        daemons.put(id, daemon);
        CompletableFuture<Duration> resign = new CompletableFuture<>();
        resigned.put(id, resign);
        StepDown stepDown = holdOff -> {
            resign.complete(holdOff);
            daemon.election().resign(holdOff);
        };
        CommandRunner runner =
                new CommandRunner(daemon.election(), options, plan, stepDown, daemon.meterRegistry(), out, out);
        daemon.statusSection("command", runner::status);
        runner.start();
        runners.put(id, runner);
        return runner;
    }

    /** The node that holds a leadership now, if any. */
    Optional<String> leader() {
        return daemons.entrySet().stream()
                .filter(e -> e.getValue().election().leadership().isPresent())
                .map(Map.Entry::getKey)
                .findFirst();
    }

    String output() {
        return output.toString(StandardCharsets.UTF_8);
    }

    static RunOptions options(Duration grace, OnExit onExit, String... command) {
        return withHooks(grace, onExit, null, null, command);
    }

    static RunOptions withHooks(Duration grace, OnExit onExit, String onElected, String onRevoked, String... command) {
        return new RunOptions(
                Optional.ofNullable(grace),
                Optional.ofNullable(onExit),
                Optional.ofNullable(onElected),
                Optional.ofNullable(onRevoked),
                List.of(command));
    }

    @Override
    public void close() {
        runners.values().forEach(CommandRunner::close);
        daemons.values().forEach(NodeDaemon::close);
        proxies.values().forEach(io.bellwether.testkit.TcpProxy::close);
    }
}
