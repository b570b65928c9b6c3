package io.bellwether.server.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.Election;
import io.bellwether.ElectionBuilder;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.micrometer.MeteredLeaseStore;
import io.bellwether.runtime.Rehearsal;
import io.bellwether.server.config.LeaseSettings;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.http.StatusServer;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.StateStore;
import io.bellwether.state.FileStateStore;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.store.jdbc.JdbcLeaseStore;
import io.bellwether.store.redis.RedisLeaseStore;
import io.bellwether.transport.tcp.DiscoveryStatus;
import io.bellwether.transport.tcp.PeerResolver;
import io.bellwether.transport.tcp.TcpTransport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: its election, its HTTP server and what the election talks through, built from a {@link
 * NodeConfig}. With {@code algorithm: quorum}, {@code bully}, {@code ring} or {@code invitation} that is a TCP
 * transport to the peers (carrying that elector's messages in its own codec); with {@code algorithm: lease}
 * it is the lease store (JDBC or Redis), watched by an {@link ObservedLeaseStore} for the status page, and no
 * transport at all (the lease elector sends no peer messages). {@link #close()}
 * resigns gracefully (a quorum leader hands over first; a lease holder releases its lease), then closes the rest.
 *
 * <p>Thread-safe.
 */
public final class NodeDaemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeDaemon.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The stores' own bounds on one operation (see {@link JdbcLeaseStore.Builder#requestTimeout}). */
    private static final Duration MIN_STORE_TIMEOUT = Duration.ofMillis(100);

    private static final Duration MAX_STORE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * The exit status of a node ended by an Error on one of its election threads (see {@link
     * #haltOnFatalError()}); the JVM's own {@code -XX:+ExitOnOutOfMemoryError} exits with 3.
     */
    public static final int EXIT_FATAL_ERROR = 70;

    /** How long start-up may spend rehearsing the algorithm (see {@link Rehearsal}). */
    static final Duration REHEARSAL_BUDGET = Duration.ofSeconds(3);

    private final NodeConfig config;
    private final NodeMetrics metrics;
    private final TcpTransport tcp; // null in lease mode
    private final ObservedLeaseStore leaseStore; // null unless in lease mode
    private final FileStateStore stateFiles; // null without a state-dir
    private final List<Election> elections;
    private final GroupMonitors monitors;
    private final StatusServer http;
    private final AtomicBoolean closed = new AtomicBoolean();

    private NodeDaemon(NodeConfig config, Duration revocationLead) {
        this.config = config;
        this.metrics = new NodeMetrics(config.cluster(), config.node(), config.groups());
        ElectorSpec algorithm;
        if (config.lease().isPresent()) {
            LeaseSettings lease = config.lease().get();
            this.tcp = null;
            this.leaseStore = new ObservedLeaseStore(
                    new MeteredLeaseStore(buildStore(lease), metrics.registry(), Tags.empty()),
                    config.node().value(),
                    ObservedLeaseStore.DEFAULT_ERROR_LOG_INTERVAL);
            algorithm = lease.leaseConfig(leaseStore);
            Gauge.builder(
                            "bellwether.store.reachable",
                            leaseStore,
                            s -> s.health().state() == ObservedLeaseStore.State.REACHABLE ? 1 : 0)
                    .description("1 while the lease store answers, else 0")
                    .register(metrics.registry());
            io.micrometer.core.instrument.FunctionCounter.builder(
                            "bellwether.store.out.of.range.tokens", leaseStore, ObservedLeaseStore::outOfRangeTokens)
                    .description("Store answers whose token was out of the counter range (refused as store errors)")
                    .register(metrics.registry());
        } else {
            this.leaseStore = null;
            this.tcp = tcpTransport(config, metrics);
            algorithm = config.elector();
        }
        metrics.messageTypes(algorithm.codec().messageTypes());
        // The lease elector persists nothing; a state directory, if given, is used all the same.
        this.stateFiles = config.stateDir() != null ? new FileStateStore(config.stateDir()) : null;
        StateStore state = stateFiles != null ? stateFiles : new InMemoryStateStore();
        List<Election> built = new ArrayList<>(config.groups().size());
        List<ElectionMonitor> groupMonitors = new ArrayList<>(config.groups().size());
        int historyLimit = ElectionMonitor.historyLimit(config.groups().size());
        for (String group : config.groups()) {
            ElectionBuilder builder = Election.builder()
                    .group(group)
                    .self(config.node())
                    .members(config.memberAddresses())
                    .algorithm(algorithm)
                    .stateStore(state)
                    .revocationLead(revocationLead)
                    .spreadLeaders(config.spreadLeaders());
            if (tcp != null) {
                builder.transport(tcp);
            }
            Election election = builder.build();
            built.add(election);
            groupMonitors.add(new ElectionMonitor(
                    election,
                    config.cluster(),
                    config.algorithm(),
                    config.members(),
                    this::peerStates,
                    metrics.group(group),
                    historyLimit));
        }
        this.elections = List.copyOf(built);
        this.monitors = new GroupMonitors(
                config.cluster(), config.algorithm(), config.members(), groupMonitors, this::peerStates);
        if (config.manyGroups()) {
            metrics.groupStates(monitors::stateCounts);
        }
        if (leaseStore != null) {
            monitors.statusSection("store", this::storeStatus);
        }
        if (config.peersDns().isPresent()) {
            monitors.statusSection("discovery", this::discoveryStatus);
        }
        this.http = new StatusServer(
                new InetSocketAddress(config.http().host(), config.http().port()),
                monitors,
                metrics,
                this::httpAddresses,
                StatusServer.DEFAULT_KEEP_ALIVE,
                config.httpLimits());
    }

    private static TcpTransport tcpTransport(NodeConfig config, NodeMetrics metrics) {
        TcpTransport.Builder builder = TcpTransport.builder()
                .cluster(config.cluster())
                .self(config.node())
                .listen(config.listen())
                .maxFrameBytes(config.maxFrameBytes())
                .observer(metrics);
        if (config.peersDns().isPresent()) {
            NodeConfig.PeersDns dns = config.peersDns().get();
            builder.discover(
                            dns.members(),
                            PeerResolver.dns(dns.name().host(), dns.name().port()))
                    .resolveInterval(dns.interval());
        } else {
            builder.members(config.memberAddresses());
        }
        if (config.insecure()) {
            builder.insecure();
        } else {
            builder.secret(config.secret().orElseThrow());
        }
        config.tls().ifPresent(tls -> {
            builder.tls(tls.certificate(), tls.privateKey(), tls.trusted().orElse(null))
                    .tlsVerifyHostname(tls.verifyHostname());
            tlsServerName(config).ifPresent(builder::tlsServerName);
        });
        return builder.build();
    }

    /**
     * The name peers' certificates must carry, if not the host dialed: {@code tls.server-name}, or else with
     * {@code peers-dns} the name looked up. Discovered peers are dialed at the addresses the lookup returned, and
     * their certificates name the lookup's name (a headless service's, say), not each address.
     */
    static Optional<String> tlsServerName(NodeConfig config) {
        return config.tls().flatMap(tls -> tls.serverName()
                .or(() -> config.peersDns().map(dns -> dns.name().host())));
    }

    /** Builds the configured store; it connects lazily, so a store that is down does not stop the node. */
    static LeaseStore buildStore(LeaseSettings lease) {
        Duration timeout = clamp(lease.requestTimeout());
        if (lease.redis()) {
            RedisLeaseStore.Builder redis = RedisLeaseStore.builder()
                    .uri(lease.store())
                    .keyPrefix(lease.keyPrefix().orElse(RedisLeaseStore.DEFAULT_KEY_PREFIX))
                    .requestTimeout(timeout);
            lease.username().ifPresent(redis::username);
            lease.password().ifPresent(p -> redis.password(p.value()));
            return redis.build();
        }
        JdbcLeaseStore.Builder jdbc = JdbcLeaseStore.builder()
                .url(lease.store())
                .table(lease.table().orElse(JdbcLeaseStore.DEFAULT_TABLE))
                .createSchema(lease.createSchema())
                .requestTimeout(timeout);
        lease.username().ifPresent(jdbc::user);
        lease.password().ifPresent(p -> jdbc.password(p.value()));
        return jdbc.build();
    }

    private static Duration clamp(Duration d) {
        if (d.compareTo(MIN_STORE_TIMEOUT) < 0) {
            return MIN_STORE_TIMEOUT;
        }
        return d.compareTo(MAX_STORE_TIMEOUT) > 0 ? MAX_STORE_TIMEOUT : d;
    }

    /**
     * Builds and starts a node: binds the peer (quorum) and HTTP addresses, then joins the election.
     *
     * @throws RuntimeException (with the reason) if an address cannot be bound or the state cannot be read;
     *     whatever was started is closed again
     */
    public static NodeDaemon start(NodeConfig config) {
        return start(config, io.bellwether.ElectionBuilder.DEFAULT_REVOCATION_LEAD);
    }

    /**
     * As {@link #start(NodeConfig)}, with the election's revocation lead: how long before a leadership's validity
     * ends its {@link io.bellwether.Leadership#revoked()} completes ({@code bellwether run} asks for its grace plus a
     * kill margin, see {@link io.bellwether.ElectionBuilder#revocationLead}).
     */
    public static NodeDaemon start(NodeConfig config, Duration revocationLead) {
        NodeDaemon daemon = new NodeDaemon(config, revocationLead);
        if (daemon.leaseStore == null) {
            // Before joining: the first failover this node takes part in must not pay for loading and linking its
            // code paths (see Rehearsal), and nobody waits on this node yet.
            long t0 = System.nanoTime();
            boolean done = Rehearsal.run(config.elector(), REHEARSAL_BUDGET);
            log.info(
                    "node {}: rehearsed {} in memory in {} ms{}",
                    config.node(),
                    config.algorithm(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                    done ? "" : " (did not finish; starting anyway)");
        }
        try {
            if (daemon.tcp != null) {
                daemon.tcp.start();
            }
            daemon.monitors.start();
            daemon.http.start();
            daemon.startElections();
        } catch (RuntimeException e) {
            try {
                daemon.closeElections();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            } finally {
                daemon.closeQuietly();
            }
            throw e;
        }
        if (daemon.leaseStore != null) {
            log.info(
                    "node {} of cluster {} ({}, lease) started: lease store {}, HTTP on {}",
                    config.node(),
                    config.cluster(),
                    describeGroups(config),
                    daemon.leaseStore.describe(),
                    daemon.http.url());
        } else {
            log.info(
                    "node {} of cluster {} ({}, {}) started: peers on {}, HTTP on {}",
                    config.node(),
                    config.cluster(),
                    describeGroups(config),
                    config.algorithm(),
                    config.listen(),
                    daemon.http.url());
        }
        return daemon;
    }

    /** How many elections start or stop at once on a node of many groups. */
    static final int PARALLEL_STARTS = 4;

    /**
     * "group NAME" for a node of one group; "N groups (FIRST … LAST)" for one of several, as the start-up lines say.
     */
    public static String describeGroups(NodeConfig config) {
        List<String> groups = config.groups();
        if (groups.size() == 1) {
            return "group " + groups.get(0);
        }
        return groups.size() + " groups (" + groups.get(0) + (groups.size() > 2 ? " … " : ", ")
                + groups.get(groups.size() - 1) + ")" + (config.spreadLeaders() ? ", leaders spread" : "");
    }

    /**
     * Starts every group's election: a node of many groups starts them from a few threads at once, since each start
     * waits for the shared loop once.
     */
    private void startElections() {
        forEachElection(Election::start, "start");
    }

    /** Closes every group's election (each resigns), a few at once on a node of many groups. */
    private void closeElections() {
        forEachElection(Election::close, "close");
    }

    private void forEachElection(java.util.function.Consumer<Election> action, String what) {
        if (elections.size() == 1) {
            action.accept(elections.get(0));
            return;
        }
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(Math.min(PARALLEL_STARTS, elections.size()), r -> {
                    Thread t = new Thread(r, "bellwether-" + what + "-groups");
                    t.setDaemon(true);
                    return t;
                });
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (Election e : elections) {
                done.add(pool.submit(() -> action.accept(e)));
            }
            // Every election is waited for, an interrupt notwithstanding (it is kept for the caller): closes that
            // were dropped would leave their elections running over a transport closed under them.
            RuntimeException failure = null;
            boolean interrupted = false;
            for (java.util.concurrent.Future<?> f : done) {
                while (true) {
                    try {
                        f.get();
                        break;
                    } catch (java.util.concurrent.ExecutionException e) {
                        RuntimeException cause = e.getCause() instanceof RuntimeException r
                                ? r
                                : new IllegalStateException("an election failed to " + what, e.getCause());
                        if (failure == null) {
                            failure = cause;
                        } else {
                            failure.addSuppressed(cause);
                        }
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            pool.shutdown();
        }
    }

    /**
     * Makes an Error on any election thread of this process (an {@link OutOfMemoryError} on the transport's I/O
     * thread, say) end the process at once with {@link #EXIT_FATAL_ERROR}, without shutdown hooks: a member that
     * stops is safe (its peers elect another leader), one that lives on with a dead election loop is a zombie its
     * peers still see connected. For the node command's process only; an application embedding elections decides
     * for itself ({@link io.bellwether.runtime.FatalErrors}).
     */
    public static void haltOnFatalError() {
        io.bellwether.runtime.FatalErrors.handler((thread, error) -> {
            try {
                // Best effort: with the heap exhausted even this may fail, and the halt must still happen.
                log.error("fatal error on {}: halting with exit status {}", thread.getName(), EXIT_FATAL_ERROR, error);
                System.err.println("bellwether node: fatal error on " + thread.getName() + ": " + error
                        + "; halting with exit status " + EXIT_FATAL_ERROR);
                System.err.flush();
            } catch (Throwable ignored) {
                // halting anyway
            } finally {
                Runtime.getRuntime().halt(EXIT_FATAL_ERROR);
            }
        });
    }

    /** The dashboard's URL. */
    public String url() {
        return http.url();
    }

    /** The election of this node's group; on a node of several groups, of its first. */
    public Election election() {
        return elections.get(0);
    }

    /** Every group's election, in the order of {@link NodeConfig#groups()}. */
    public List<Election> elections() {
        return elections;
    }

    /** Adds a section to {@code GET /status} under {@code key} (see {@link GroupMonitors#statusSection}). */
    public void statusSection(String key, java.util.function.Supplier<? extends JsonNode> section) {
        monitors.statusSection(key, section);
    }

    /** The registry behind {@code GET /metrics}, for meters of what runs beside the election. */
    public io.micrometer.core.instrument.MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    /** The lease store's health, in lease mode. */
    public Optional<ObservedLeaseStore.Health> storeHealth() {
        return leaseStore == null ? Optional.empty() : Optional.of(leaseStore.health());
    }

    private JsonNode storeStatus() {
        ObservedLeaseStore.Health h = leaseStore.health();
        ObjectNode json = JSON.createObjectNode();
        json.put("describe", leaseStore.describe());
        json.put("state", h.state().name().toLowerCase(java.util.Locale.ROOT));
        json.put("since", Instant.ofEpochMilli(h.sinceEpochMillis()).toString());
        json.put("problem", h.problem().map(Enum::name).orElse(null));
        json.put("lastError", h.lastError().orElse(null));
        json.put(
                "lastErrorAt",
                h.lastErrorAtEpochMillis()
                        .map(ms -> Instant.ofEpochMilli(ms).toString())
                        .orElse(null));
        return json;
    }

    /**
     * Every member's HTTP address as known now, for {@code /cluster}. With {@code peers-dns} the members run from
     * one template, so a peer serves HTTP on this node's HTTP port, at the host it was discovered at.
     */
    private Map<NodeId, Optional<NodeAddress>> httpAddresses() {
        Map<NodeId, Optional<NodeAddress>> addresses = new java.util.TreeMap<>();
        if (config.peersDns().isEmpty() || tcp == null) {
            config.httpAddresses().forEach((id, address) -> addresses.put(id, Optional.of(address)));
            return addresses;
        }
        int port = config.http().port();
        addresses.put(config.node(), Optional.of(config.http()));
        tcp.peers()
                .forEach((id, p) ->
                        addresses.put(id, Optional.ofNullable(p.address()).map(a -> new NodeAddress(a.host(), port))));
        return addresses;
    }

    private JsonNode discoveryStatus() {
        ObjectNode json = JSON.createObjectNode();
        NodeConfig.PeersDns dns = config.peersDns().orElseThrow();
        json.put("name", dns.name().toString());
        json.put("interval", io.bellwether.server.config.Durations.format(dns.interval()));
        DiscoveryStatus d = tcp.discovery().orElseThrow();
        ObjectNode addresses = json.putObject("addresses");
        d.addresses()
                .forEach(r -> addresses.put(
                        r.address().toString(), r.member().map(NodeId::value).orElse(null)));
        long nowNanos = System.nanoTime();
        json.put(
                "resolvedAt",
                d.resolvedAtNanos() < 0
                        ? null
                        : Instant.ofEpochMilli(System.currentTimeMillis()
                                        - TimeUnit.NANOSECONDS.toMillis(nowNanos - d.resolvedAtNanos()))
                                .toString());
        json.put("lastError", d.lastError());
        return json;
    }

    Map<NodeId, PeerState> peerStates() {
        Map<NodeId, PeerState> states = new LinkedHashMap<>();
        if (tcp == null) {
            return states;
        }
        long nowNanos = System.nanoTime();
        long nowMillis = System.currentTimeMillis();
        tcp.peers()
                .forEach((id, p) -> states.put(
                        id,
                        new PeerState(
                                p.address() == null ? null : p.address().toString(),
                                p.state().name(),
                                Optional.of(nowMillis - TimeUnit.NANOSECONDS.toMillis(nowNanos - p.sinceNanos())),
                                Optional.ofNullable(p.lastError()))));
        return states;
    }

    /**
     * Resigns (a quorum leader hands over to a successor, a lease holder releases its lease), then stops the
     * transport or store and the HTTP server. Idempotent.
     */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        long leading =
                elections.stream().filter(e -> e.leadership().isPresent()).count();
        java.util.concurrent.CompletableFuture<Void> released = leaseStore != null
                ? leaseStore.releasesEnded((int) leading)
                : java.util.concurrent.CompletableFuture.completedFuture(null);
        try {
            boolean handingOver = tcp != null && leading > 0;
            // Logged after the resignation, not before it: a log line written on the way costs a leader's
            // handover a file write (up to milliseconds on a busy machine) before its revocation.
            closeElections();
            log.info(
                    "node {}: stopping; resigned from {}{}",
                    config.node(),
                    describeGroups(config),
                    handingOver ? " (handed over" + (config.manyGroups() ? " " + leading + " groups)" : ")") : "");
            if (handingOver) {
                lingerAfterHandover();
            }
            // A holder's release goes out as the election stops; closing the store under it would make the successor
            // wait for the lease to expire instead of taking it at its next poll.
            try {
                released.get(
                        clamp(config.lease().map(LeaseSettings::requestTimeout).orElse(Duration.ZERO))
                                .toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                log.debug("node {}: the leases' releases did not end in time", config.node());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } finally {
            // Whatever failed above, the transport, the HTTP server (whose dispatcher thread is not a daemon and
            // would keep the process alive) and the state files are closed.
            closeQuietly();
        }
    }

    /**
     * A leader that resigned stays up, connections open, for {@code handover-linger} before it closes them and its
     * process exits. The successor's election takes a few milliseconds; during them, this node's teardown (closing
     * its connections, which every peer then handles and redials, and the process's exit) would compete with the
     * election for the machine's cores and the peers' I/O threads. The elector has stopped and this node takes no
     * part in the election: to the others it is a member that does not answer.
     */
    private void lingerAfterHandover() {
        long ms = config.handoverLinger().toMillis();
        if (ms <= 0) {
            return;
        }
        log.debug("node {}: handed over; closing in {} ms", config.node(), ms);
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeQuietly() {
        List<AutoCloseable> parts = new ArrayList<>(List.of(monitors, http));
        parts.add(tcp != null ? tcp : leaseStore);
        if (stateFiles != null) {
            // After the election: its last saves (a resigning leader's) go out first.
            parts.add(stateFiles);
        }
        for (AutoCloseable part : parts) {
            try {
                part.close();
            } catch (Exception e) {
                log.warn(
                        "node {}: closing {} failed",
                        config.node(),
                        part.getClass().getSimpleName(),
                        e);
            }
        }
    }
}
