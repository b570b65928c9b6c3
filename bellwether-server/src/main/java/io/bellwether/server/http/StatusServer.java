package io.bellwether.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.server.node.ElectionMonitor;
import io.bellwether.server.node.GroupMonitors;
import io.bellwether.server.node.NodeMetrics;
import io.micrometer.core.instrument.Gauge;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP face: {@code GET /status} (JSON), {@code /cluster} (every member's status, fetched by this
 * node), {@code /metrics} (Prometheus text), {@code /events} (server-sent events of role and leader changes),
 * {@code /history} (the latest of those changes, read after the fact), {@code /cluster/history} (every member's
 * {@code /history}, fetched by this node), {@code /healthz} and {@code /readyz}
 * (liveness and readiness for orchestrators) and {@code /} (the dashboard, one self-contained page from the jar).
 *
 * <p>Built on Netty, like the peer transport, on one I/O thread of its own (never the election's), and bounded
 * against hostile or broken clients by {@link HttpLimits}: a cap on connections and one on event streams (503
 * beyond them), a deadline for each whole request (slow senders are cut off with a 408 and cannot hold the
 * server), a largest request, and a bounded backlog per event stream (a client that does not read is dropped).
 * Each refusal is counted in {@code bellwether_http_refused_total}. Answers that may block ({@code /cluster} and
 * {@code /cluster/history}, which ask the other members, and {@code /metrics}) run on a small bounded pool of workers (503 when it is
 * full); the rest is answered on the I/O thread.
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
    private static final int WORKERS = 2;
    private static final int WORKER_QUEUE = 32;
    private static final int MAX_INITIAL_LINE = 4096;
    private static final String NOT_FOUND =
            "not found: try /, /status, /groups, /cluster, /cluster/history, /metrics, /events, /history, /healthz or"
                    + " /readyz\n";

    private final GroupMonitors monitors;
    private final NodeMetrics metrics;
    private final HttpLimits limits;
    private final EventLoopGroup io;
    private final Channel listener;
    private final ThreadPoolExecutor workers;
    private final ExecutorService clients;
    private final EventStream events;
    private final ClusterView cluster;
    private final Consumer<ElectionMonitor.Change> forward;
    private final byte[] dashboard;
    private final AtomicInteger connections = new AtomicInteger();

    /**
     * Binds {@code bind} with the default {@link HttpLimits}; call {@link #start()} to serve.
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
        this(bind, monitor, metrics, fixed(httpAddresses), keepAlive, HttpLimits.DEFAULTS);
    }

    /**
     * Binds {@code bind} with the default {@link HttpLimits}; call {@link #start()} to serve.
     *
     * @param httpAddresses every member, this node included, with its HTTP address as known now (empty while
     *     unknown, as before a discovered peer is found), read for each {@code /cluster} request
     * @throws UncheckedIOException if the address cannot be bound
     */
    public StatusServer(
            InetSocketAddress bind,
            ElectionMonitor monitor,
            NodeMetrics metrics,
            Supplier<Map<NodeId, Optional<NodeAddress>>> httpAddresses,
            Duration keepAlive) {
        this(bind, monitor, metrics, httpAddresses, keepAlive, HttpLimits.DEFAULTS);
    }

    /**
     * Binds {@code bind}; call {@link #start()} to serve.
     *
     * @param httpAddresses every member, this node included, with its HTTP address as known now (empty while
     *     unknown, as before a discovered peer is found), read for each {@code /cluster} request
     * @param limits what one client may take
     * @throws UncheckedIOException if the address cannot be bound
     */
    public StatusServer(
            InetSocketAddress bind,
            ElectionMonitor monitor,
            NodeMetrics metrics,
            Supplier<Map<NodeId, Optional<NodeAddress>>> httpAddresses,
            Duration keepAlive,
            HttpLimits limits) {
        this(bind, GroupMonitors.of(monitor), metrics, httpAddresses, keepAlive, limits);
    }

    /**
     * Binds {@code bind} for a node of one or several groups; call {@link #start()} to serve.
     *
     * @param monitors every group's monitor
     * @param httpAddresses every member, this node included, with its HTTP address as known now (empty while
     *     unknown, as before a discovered peer is found), read for each {@code /cluster} request
     * @param limits what one client may take
     * @throws UncheckedIOException if the address cannot be bound
     */
    public StatusServer(
            InetSocketAddress bind,
            GroupMonitors monitors,
            NodeMetrics metrics,
            Supplier<Map<NodeId, Optional<NodeAddress>>> httpAddresses,
            Duration keepAlive,
            HttpLimits limits) {
        this.monitors = monitors;
        this.metrics = metrics;
        this.limits = java.util.Objects.requireNonNull(limits, "limits");
        this.dashboard = loadDashboard();
        this.workers = new ThreadPoolExecutor(
                WORKERS,
                WORKERS,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(WORKER_QUEUE),
                daemons("bellwether-http-"));
        this.clients = Executors.newFixedThreadPool(2, daemons("bellwether-http-client-"));
        this.events = new EventStream(
                keepAlive, limits.maxEventClients(), channel -> metrics.httpRefused("slow-event-client"));
        this.cluster = new ClusterView(
                monitors.node(), httpAddresses, this::ownStatus, this::history, MEMBER_TIMEOUT, clients);
        this.forward = change -> {
            // No subscriber, no JSON (the common case in service).
            if (events.hasSubscribers()) {
                events.publish(change.kind(), change.group(), () -> ElectionMonitor.toJson(change)
                        .toString());
            }
        };
        this.io = new NioEventLoopGroup(1, daemons("bellwether-http-io-"));
        try {
            this.listener = new ServerBootstrap()
                    .group(io)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 64)
                    // Accepting starts with start(); until then connections wait in the listen backlog.
                    .option(ChannelOption.AUTO_READ, false)
                    .childOption(
                            ChannelOption.WRITE_BUFFER_WATER_MARK,
                            new WriteBufferWaterMark(limits.eventBacklogBytes() / 2, limits.eventBacklogBytes()))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            pipeline(ch);
                        }
                    })
                    .bind(bind)
                    .syncUninterruptibly()
                    .channel();
        } catch (Exception e) {
            closeQuietly();
            throw new UncheckedIOException(
                    "cannot listen for HTTP on " + bind + ": " + e.getMessage(),
                    e instanceof IOException cause ? cause : new IOException(e));
        }
        Gauge.builder("bellwether.http.connections", connections, AtomicInteger::get)
                .description("Open HTTP connections, event streams included")
                .register(metrics.registry());
        Gauge.builder("bellwether.http.event.clients", events, EventStream::clients)
                .description("Subscribed event stream clients")
                .register(metrics.registry());
        warmUpEvents(monitors.node());
    }

    private void pipeline(SocketChannel ch) {
        long timeoutNanos = limits.requestTimeout().toNanos();
        RequestDeadline deadline = new RequestDeadline(timeoutNanos, () -> metrics.httpRefused("request-timeout"));
        ch.pipeline()
                .addLast(
                        "gate",
                        new ConnectionGate(
                                connections, limits.maxConnections(), () -> metrics.httpRefused("connections")))
                .addLast("arrivals", deadline.arrivals())
                .addLast("codec", new HttpServerCodec(MAX_INITIAL_LINE, limits.maxRequestBytes(), 8192))
                .addLast("deadline", deadline)
                .addLast("aggregate", new HttpObjectAggregator(limits.maxRequestBytes()) {
                    @Override
                    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized)
                            throws Exception {
                        metrics.httpRefused("request-too-large");
                        super.handleOversizedMessage(ctx, oversized);
                    }
                })
                .addLast("route", new Router());
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

    private static Supplier<Map<NodeId, Optional<NodeAddress>>> fixed(Map<NodeId, NodeAddress> httpAddresses) {
        Map<NodeId, java.util.Optional<NodeAddress>> fixed = new java.util.TreeMap<>();
        httpAddresses.forEach((id, address) -> fixed.put(id, java.util.Optional.of(address)));
        Map<NodeId, java.util.Optional<NodeAddress>> copy = java.util.Collections.unmodifiableMap(fixed);
        return () -> copy;
    }

    private static ThreadFactoryImpl daemons(String prefix) {
        return new ThreadFactoryImpl(prefix);
    }

    /** Daemon threads named {@code prefix} and a number. */
    private static final class ThreadFactoryImpl implements java.util.concurrent.ThreadFactory {
        private final String prefix;
        private final AtomicInteger n = new AtomicInteger();

        ThreadFactoryImpl(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }

    /** Starts serving. */
    public void start() {
        monitors.subscribe(forward);
        listener.config().setAutoRead(true);
    }

    /** The bound address (useful when binding port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** The base URL, {@code http://host:port/}. */
    public String url() {
        InetSocketAddress a = address();
        String host = a.getAddress().isAnyLocalAddress()
                ? "127.0.0.1"
                : a.getAddress().getHostAddress();
        if (host.indexOf(':') >= 0) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + a.getPort() + "/";
    }

    /** Answers each request of one connection, one at a time; runs on the connection's I/O thread. */
    private final class Router extends SimpleChannelInboundHandler<FullHttpRequest> {
        /** Set once the connection carries an event stream: nothing else is answered on it. */
        private boolean streaming;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            if (streaming) {
                return;
            }
            if (request.decoderResult().isFailure()) {
                Throwable cause = request.decoderResult().cause();
                boolean tooLarge = cause instanceof TooLongFrameException;
                if (tooLarge) {
                    metrics.httpRefused("request-too-large");
                }
                Reply.of(tooLarge ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST)
                        .text(
                                tooLarge
                                        ? "request head too large (http-limits.max-request-bytes)\n"
                                        : "bad request: " + cause.getMessage() + "\n")
                        .close()
                        .send(ctx, false, limits);
                return;
            }
            HttpMethod method = request.method();
            boolean head = method.equals(HttpMethod.HEAD);
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (!method.equals(HttpMethod.GET) && !head) {
                Reply.of(HttpResponseStatus.METHOD_NOT_ALLOWED)
                        .header(HttpHeaderNames.ALLOW, "GET, HEAD")
                        .text("method not allowed: use GET\n")
                        .send(ctx, keepAlive, head, limits);
                return;
            }
            QueryStringDecoder uri = new QueryStringDecoder(request.uri());
            String path = uri.path();
            Optional<String> group = Optional.empty();
            if (GROUP_PATHS.contains(path)) {
                try {
                    group = groupParameter(uri);
                } catch (UnknownGroupException e) {
                    Reply.of(HttpResponseStatus.NOT_FOUND)
                            .text(e.getMessage() + "\n")
                            .send(ctx, keepAlive, head, limits);
                    return;
                } catch (IllegalArgumentException e) {
                    Reply.of(HttpResponseStatus.BAD_REQUEST)
                            .text("bad group parameter: " + e.getMessage() + "\n")
                            .send(ctx, keepAlive, head, limits);
                    return;
                }
            }
            Optional<String> chosen = group;
            // A node of many groups answers its summaries on a worker: they read every group.
            boolean many = !monitors.single() && group.isEmpty();
            switch (path) {
                case "/status" -> {
                    if (many) {
                        offload(ctx, keepAlive, head, () -> Reply.json(ownStatus(chosen)));
                    } else {
                        Reply.json(ownStatus(chosen)).send(ctx, keepAlive, head, limits);
                    }
                }
                case "/groups" -> offload(ctx, keepAlive, head, () -> Reply.json(monitors.groups()));
                case "/history" -> {
                    if (many) {
                        offload(ctx, keepAlive, head, () -> Reply.json(history(chosen)));
                    } else {
                        Reply.json(history(group)).send(ctx, keepAlive, head, limits);
                    }
                }
                case "/readyz" -> {
                    if (many) {
                        offload(ctx, keepAlive, head, () -> readiness(chosen));
                    } else {
                        readiness(chosen).send(ctx, keepAlive, head, limits);
                    }
                }
                case "/healthz" -> liveness(ctx, keepAlive, head);
                case "/", "/index.html" -> Reply.of(HttpResponseStatus.OK)
                        .body("text/html; charset=utf-8", dashboard)
                        .send(ctx, keepAlive, head, limits);
                case "/cluster" -> offload(ctx, keepAlive, head, () -> Reply.json(cluster.fetch(chosen)));
                case "/cluster/history" -> offload(
                        ctx, keepAlive, head, () -> Reply.json(cluster.fetchHistories(chosen)));
                case "/metrics" -> offload(ctx, keepAlive, head, () -> Reply.of(HttpResponseStatus.OK)
                        .body(
                                "text/plain; version=0.0.4; charset=utf-8",
                                metrics.scrape().getBytes(StandardCharsets.UTF_8)));
                case "/events" -> subscribe(ctx, group);
                default -> Reply.of(HttpResponseStatus.NOT_FOUND)
                        .text(NOT_FOUND)
                        .send(ctx, keepAlive, head, limits);
            }
        }

        private void subscribe(ChannelHandlerContext ctx, Optional<String> group) {
            Channel channel = ctx.channel();
            if (!events.admit(channel)) {
                metrics.httpRefused("event-clients");
                Reply.of(HttpResponseStatus.SERVICE_UNAVAILABLE)
                        .header(HttpHeaderNames.RETRY_AFTER, "5")
                        .text("too many event stream clients (http-limits.max-event-clients): try later\n")
                        .close()
                        .send(ctx, false, limits);
                return;
            }
            streaming = true;
            HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                    .set(HttpHeaderNames.CACHE_CONTROL, "no-cache")
                    .set("X-Accel-Buffering", "no");
            HttpUtil.setTransferEncodingChunked(response, true);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            events.subscribe(channel, group, () -> snapshotEvent(group));
        }

        private void liveness(ChannelHandlerContext ctx, boolean keepAlive, boolean head) {
            NodeId self = monitors.node();
            long started = System.nanoTime();
            java.util.concurrent.CompletableFuture<Void> probe;
            try {
                probe = monitors.probeLoop().toCompletableFuture();
            } catch (RuntimeException e) {
                probe = java.util.concurrent.CompletableFuture.failedFuture(e);
            }
            probe.orTimeout(Health.LOOP_PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((ok, failure) -> {
                        Reply reply;
                        if (failure == null) {
                            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                            reply = Reply.json(Health.liveness(self, true, "election loop answered in " + ms + " ms"));
                        } else {
                            Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                            && failure.getCause() != null
                                    ? failure.getCause()
                                    : failure;
                            String reason = cause instanceof java.util.concurrent.TimeoutException
                                    ? "election loop did not answer within " + Health.LOOP_PROBE_TIMEOUT.toMillis()
                                            + " ms"
                                    : "election loop unavailable: " + cause.getMessage();
                            reply = Reply.json(Health.liveness(self, false, reason))
                                    .status(HttpResponseStatus.SERVICE_UNAVAILABLE);
                        }
                        reply.send(ctx, keepAlive, head, limits);
                    });
        }

        /** Answers on a worker: {@code answer} may block. 503 when every worker is busy and the queue full. */
        private void offload(ChannelHandlerContext ctx, boolean keepAlive, boolean head, Supplier<Reply> answer) {
            try {
                workers.execute(() -> {
                    Reply reply;
                    try {
                        reply = answer.get();
                    } catch (RuntimeException e) {
                        log.debug("HTTP request failed", e);
                        reply = Reply.of(HttpResponseStatus.INTERNAL_SERVER_ERROR)
                                .text("failed: " + e + "\n");
                    }
                    reply.send(ctx, keepAlive, head, limits);
                });
            } catch (RejectedExecutionException e) {
                metrics.httpRefused("busy");
                Reply.of(HttpResponseStatus.SERVICE_UNAVAILABLE)
                        .header(HttpHeaderNames.RETRY_AFTER, "1")
                        .text("busy: try later\n")
                        .send(ctx, keepAlive, head, limits);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("HTTP connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    /** One response, built then sent. */
    private static final class Reply {
        private HttpResponseStatus status;
        private String type = "text/plain";
        private byte[] body = new byte[0];
        private final io.netty.handler.codec.http.HttpHeaders extra =
                new io.netty.handler.codec.http.DefaultHttpHeaders();
        private boolean close;

        private Reply(HttpResponseStatus status) {
            this.status = status;
        }

        static Reply of(HttpResponseStatus status) {
            return new Reply(status);
        }

        static Reply json(ObjectNode json) {
            return of(HttpResponseStatus.OK).body("application/json", (json + "\n").getBytes(StandardCharsets.UTF_8));
        }

        Reply status(HttpResponseStatus s) {
            this.status = s;
            return this;
        }

        Reply text(String text) {
            return body("text/plain", text.getBytes(StandardCharsets.UTF_8));
        }

        Reply body(String contentType, byte[] bytes) {
            this.type = contentType;
            this.body = bytes;
            return this;
        }

        Reply header(CharSequence name, String value) {
            extra.set(name, value);
            return this;
        }

        Reply close() {
            this.close = true;
            return this;
        }

        void send(ChannelHandlerContext ctx, boolean keepAlive, HttpLimits limits) {
            send(ctx, keepAlive, false, limits);
        }

        /**
         * Writes the response (from any thread). The write must finish within the request timeout, or the
         * connection is closed: a client that does not read its answer cannot hold a connection for ever. After
         * it, a kept-alive connection has the request timeout again to send its next request.
         */
        void send(ChannelHandlerContext ctx, boolean keepAlive, boolean head, HttpLimits limits) {
            boolean persistent = keepAlive && !close;
            FullHttpResponse response = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, status, head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
            response.headers()
                    .add(extra)
                    .set(HttpHeaderNames.CONTENT_TYPE, type)
                    .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            if (!persistent) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            ChannelFuture written = ctx.writeAndFlush(response);
            io.netty.util.concurrent.ScheduledFuture<?> deadline = ctx.executor()
                    .schedule(
                            () -> {
                                if (!written.isDone()) {
                                    ctx.close();
                                }
                            },
                            limits.requestTimeout().toNanos(),
                            TimeUnit.NANOSECONDS);
            written.addListener(f -> {
                deadline.cancel(false);
                if (!f.isSuccess() || !persistent) {
                    ctx.close();
                } else {
                    RequestDeadline next = ctx.pipeline().get(RequestDeadline.class);
                    if (next != null) {
                        next.arm(ctx.pipeline().context(next));
                    }
                }
            });
        }
    }

    /** The endpoints that take {@code ?group=NAME}; the others ignore it. */
    private static final java.util.Set<String> GROUP_PATHS =
            java.util.Set.of("/status", "/history", "/readyz", "/cluster", "/cluster/history", "/events");

    /** A {@code ?group=} naming a group this node does not have: 404. */
    private static final class UnknownGroupException extends IllegalArgumentException {
        UnknownGroupException(String message) {
            super(message);
        }
    }

    /** {@code /readyz}: 200 when ready, else 503, with the readiness document. */
    private Reply readiness(Optional<String> group) {
        ObjectNode readiness = group.isPresent()
                ? Health.readiness(monitors.group(group.get()).orElseThrow())
                : Health.readiness(monitors);
        return Reply.json(readiness)
                .status(
                        readiness.path("ready").asBoolean()
                                ? HttpResponseStatus.OK
                                : HttpResponseStatus.SERVICE_UNAVAILABLE);
    }

    /**
     * The {@code group} query parameter, if given: one of this node's groups.
     *
     * @throws UnknownGroupException (its message the answer's text) for a group this node does not have
     * @throws IllegalArgumentException for a parameter given twice, or a query that cannot be decoded
     */
    private Optional<String> groupParameter(QueryStringDecoder uri) {
        java.util.List<String> values = uri.parameters().get("group");
        if (values == null || values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw new IllegalArgumentException("group is given " + values.size() + " times: allowed once");
        }
        String name = values.get(0);
        if (monitors.group(name).isPresent()) {
            return Optional.of(name);
        }
        String shown = name.length() <= 64 && NodeId.isValid(name) ? "'" + name + "'" : "(an invalid group name)";
        throw new UnknownGroupException(
                "no group " + shown + " on node " + monitors.node() + ": see /groups for this node's groups");
    }

    /** This node's {@code /status}: the group's, or without one the node's ({@link GroupMonitors#status()}). */
    private ObjectNode ownStatus(Optional<String> group) {
        return group.map(g -> monitors.group(g).orElseThrow().status()).orElseGet(monitors::status);
    }

    /**
     * {@code {"node": self, "now": wall clock, "limit": n, "changes": [event, ...]}}: the latest changes of the
     * group, or of every group, oldest first. {@code now} lets a reader on another clock place the stamps on its own.
     */
    private ObjectNode history(Optional<String> group) {
        ObjectNode json = JSON.createObjectNode();
        json.put("node", monitors.node().value());
        json.put("now", java.time.Instant.now().toString());
        java.util.List<ElectionMonitor.Change> changes;
        if (group.isPresent()) {
            ElectionMonitor m = monitors.group(group.get()).orElseThrow();
            json.put("group", m.group());
            json.put("limit", m.historyLimit());
            changes = m.history();
        } else {
            json.put("limit", monitors.historyLimit());
            changes = monitors.history();
        }
        var list = json.putArray("changes");
        for (ElectionMonitor.Change change : changes) {
            list.add(ElectionMonitor.toJson(change));
        }
        return json;
    }

    private String snapshotEvent(Optional<String> group) {
        return EventStream.format("snapshot", ownStatus(group).toString());
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

    /** Stops serving: closes event streams, connections and the listening socket. */
    @Override
    public void close() {
        monitors.unsubscribe(forward);
        events.close();
        closeQuietly();
    }

    private void closeQuietly() {
        if (listener != null) {
            listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        io.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        workers.shutdownNow();
        clients.shutdownNow();
    }
}
