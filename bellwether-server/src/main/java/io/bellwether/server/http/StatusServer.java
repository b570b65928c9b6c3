package io.bellwether.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.server.node.ElectionMonitor;
import io.bellwether.server.node.NodeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP face: {@code GET /status} (JSON), {@code /cluster} (every member's status, fetched by this
 * node), {@code /metrics} (Prometheus text), {@code /events} (server-sent events of role and leader changes),
 * {@code /history} (the latest of those changes, read after the fact) and {@code /} (the dashboard, one
 * self-contained page from the jar).
 *
 * <p>Built on the JDK's {@code com.sun.net.httpserver}: a handful of small, infrequent requests need no extra
 * dependency, and its exchanges can stay open after a handler returns, which is all server-sent events need.
 * Requests run on a small pool of daemon threads.
 *
 * <p>Thread-safe.
 */
public final class StatusServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StatusServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DASHBOARD = "/io/bellwether/server/http/dashboard.html";

    /** How often idle event streams get a comment line, so that proxies and browsers keep them open. */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(15);

    private static final Duration MEMBER_TIMEOUT = Duration.ofMillis(800);
    private static final int THREADS = 4;

    private final ElectionMonitor monitor;
    private final NodeMetrics metrics;
    private final HttpServer server;
    private final ExecutorService workers;
    private final ExecutorService clients;
    private final EventStream events;
    private final ClusterView cluster;
    private final Consumer<ElectionMonitor.Change> forward;
    private final byte[] dashboard;

    /**
     * Binds {@code bind}; call {@link #start()} to serve.
     *
     * @param httpAddresses every member's HTTP address, this node's included, for {@code /cluster}
     * @throws UncheckedIOException if the address cannot be bound
     */
    public StatusServer(
            InetSocketAddress bind,
            ElectionMonitor monitor,
            NodeMetrics metrics,
            Map<NodeId, NodeAddress> httpAddresses,
            Duration keepAlive) {
        this(bind, monitor, metrics, fixed(httpAddresses), keepAlive);
    }

    /**
     * Binds {@code bind}; call {@link #start()} to serve.
     *
     * @param httpAddresses every member, this node included, with its HTTP address as known now (empty while
     *     unknown, as before a discovered peer is found), read for each {@code /cluster} request
     * @throws UncheckedIOException if the address cannot be bound
     */
    public StatusServer(
            InetSocketAddress bind,
            ElectionMonitor monitor,
            NodeMetrics metrics,
            java.util.function.Supplier<Map<NodeId, java.util.Optional<NodeAddress>>> httpAddresses,
            Duration keepAlive) {
        this.monitor = monitor;
        this.metrics = metrics;
        this.dashboard = loadDashboard();
        try {
            this.server = HttpServer.create(bind, 64);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for HTTP on " + bind + ": " + e.getMessage(), e);
        }
        this.workers = Executors.newFixedThreadPool(THREADS, daemons("bellwether-http-"));
        this.clients = Executors.newFixedThreadPool(2, daemons("bellwether-http-client-"));
        this.events = new EventStream(keepAlive);
        this.cluster = new ClusterView(monitor.node(), httpAddresses, monitor::status, MEMBER_TIMEOUT, clients);
        this.forward = change -> {
            // No subscriber, no JSON (the common case in service).
            if (events.hasSubscribers()) {
                events.publish(
                        change.kind(), () -> ElectionMonitor.toJson(change).toString());
            }
        };
        server.setExecutor(workers);
        server.createContext("/", this::route);
        warmUpEvents(monitor.node());
    }

    /** How many times {@link #warmUpEvents} builds an event: enough for the C1 compiler to compile that path. */
    static final int WARM_UP_EVENTS = 1000;

    /**
     * Builds (and drops) a few hundred events at start. An event is built only on a change of role or leader, a
     * few times per failover, so its code (JSON nodes, the timestamp's ISO form, the JSON writer) would otherwise
     * run interpreted on every failover, taking milliseconds between a new leader's election and its event on the
     * stream: measured 3 ms of a 14 ms handover on 2 cores (docs/benchmarks.md). Like the election's start-up
     * rehearsal, this spends a little CPU at start instead.
     */
    static void warmUpEvents(NodeId self) {
        java.time.Instant start = java.time.Instant.now();
        long now = start.toEpochMilli();
        ElectionMonitor.Snapshot snapshot =
                new ElectionMonitor.Snapshot(Role.FOLLOWER, 1, Optional.of(self), Optional.of(now));
        int length = 0;
        for (int i = 0; i < WARM_UP_EVENTS; i++) {
            length += ElectionMonitor.toJson(
                            new ElectionMonitor.Change("leader", snapshot, start.plusNanos(1_001L * i)))
                    .toString()
                    .length();
        }
        if (length == 0) {
            throw new IllegalStateException("no event was built"); // keeps the loop from being optimised away
        }
    }

    private static java.util.function.Supplier<Map<NodeId, java.util.Optional<NodeAddress>>> fixed(
            Map<NodeId, NodeAddress> httpAddresses) {
        Map<NodeId, java.util.Optional<NodeAddress>> fixed = new java.util.TreeMap<>();
        httpAddresses.forEach((id, address) -> fixed.put(id, java.util.Optional.of(address)));
        Map<NodeId, java.util.Optional<NodeAddress>> copy = java.util.Collections.unmodifiableMap(fixed);
        return () -> copy;
    }

    private static java.util.concurrent.ThreadFactory daemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Starts serving. */
    public void start() {
        monitor.subscribe(forward);
        server.start();
    }

    /** The bound address (useful when binding port 0). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** The base URL, {@code http://host:port/}. */
    public String url() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().isAnyLocalAddress()
                ? "127.0.0.1"
                : a.getAddress().getHostAddress();
        if (host.indexOf(':') >= 0) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + a.getPort() + "/";
    }

    private void route(HttpExchange exchange) throws IOException {
        try {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain", "method not allowed: use GET\n");
                return;
            }
            switch (path) {
                case "/status" -> send(exchange, 200, "application/json", monitor.status() + "\n");
                case "/cluster" -> send(exchange, 200, "application/json", cluster.fetch() + "\n");
                case "/metrics" -> send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
                case "/events" -> events.subscribe(exchange, this::snapshotEvent);
                case "/history" -> send(exchange, 200, "application/json", history() + "\n");
                case "/", "/index.html" -> send(exchange, 200, "text/html; charset=utf-8", dashboard);
                default -> send(
                        exchange,
                        404,
                        "text/plain",
                        "not found: try /, /status, /cluster, /metrics, /events or /history\n");
            }
        } catch (IOException | RuntimeException e) {
            log.debug("HTTP request {} failed", exchange.getRequestURI(), e);
            exchange.close();
        }
    }

    /** {@code {"node": self, "changes": [event, ...]}}: the monitor's latest changes, oldest first. */
    private ObjectNode history() {
        ObjectNode json = JSON.createObjectNode();
        json.put("node", monitor.node().value());
        var changes = json.putArray("changes");
        for (ElectionMonitor.Change change : monitor.history()) {
            changes.add(ElectionMonitor.toJson(change));
        }
        return json;
    }

    private String snapshotEvent() {
        ObjectNode status = monitor.status();
        return EventStream.format("snapshot", status.toString());
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        send(exchange, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
        exchange.close();
    }

    private static byte[] loadDashboard() {
        try (InputStream in = StatusServer.class.getResourceAsStream(DASHBOARD)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard page " + DASHBOARD + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops serving: closes event streams and the listening socket. */
    @Override
    public void close() {
        monitor.unsubscribe(forward);
        events.close();
        server.stop(0);
        workers.shutdownNow();
        clients.shutdownNow();
    }
}
