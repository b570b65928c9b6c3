package io.bellwether.server.node;

import io.bellwether.Election;
import io.bellwether.NodeId;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.http.StatusServer;
import io.bellwether.state.FileStateStore;
import io.bellwether.transport.tcp.TcpTransport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: its TCP transport, its election and its HTTP server, built from a {@link NodeConfig}.
 * {@link #close()} resigns gracefully (a leader hands over first), then closes the transport and the HTTP
 * server.
 *
 * <p>Thread-safe.
 */
public final class NodeDaemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeDaemon.class);

    private final NodeConfig config;
    private final NodeMetrics metrics;
    private final TcpTransport transport;
    private final Election election;
    private final ElectionMonitor monitor;
    private final StatusServer http;
    private boolean closed; // guarded by this

    private NodeDaemon(NodeConfig config) {
        this.config = config;
        this.metrics = new NodeMetrics(config.cluster(), config.node(), config.group());
        TcpTransport.Builder builder = TcpTransport.builder()
                .cluster(config.cluster())
                .self(config.node())
                .listen(config.listen())
                .members(config.memberAddresses())
                .maxFrameBytes(config.maxFrameBytes())
                .observer(metrics);
        if (config.insecure()) {
            builder.insecure();
        } else {
            builder.secret(config.secret().orElseThrow());
        }
        config.tls()
                .ifPresent(tls -> builder.tls(
                        tls.certificate(), tls.privateKey(), tls.trusted().orElse(null)));
        this.transport = builder.build();
        this.election = Election.builder()
                .group(config.group())
                .self(config.node())
                .members(config.memberAddresses())
                .algorithm(config.quorum())
                .stateStore(new FileStateStore(config.stateDir()))
                .transport(transport)
                .build();
        List<NodeId> members = new ArrayList<>(config.peers().keySet());
        this.monitor = new ElectionMonitor(
                election,
                config.cluster(),
                config.algorithm(),
                members,
                this::peerStates,
                metrics,
                ElectionMonitor.DEFAULT_POLL_INTERVAL);
        this.http = new StatusServer(
                new InetSocketAddress(config.http().host(), config.http().port()),
                monitor,
                metrics,
                config.httpAddresses(),
                StatusServer.DEFAULT_KEEP_ALIVE);
    }

    /**
     * Builds and starts a node: binds the peer and HTTP addresses, then joins the election.
     *
     * @throws RuntimeException (with the reason) if an address cannot be bound or the state cannot be read;
     *     whatever was started is closed again
     */
    public static NodeDaemon start(NodeConfig config) {
        NodeDaemon daemon = new NodeDaemon(config);
        try {
            daemon.transport.start();
            daemon.monitor.start();
            daemon.http.start();
            daemon.election.start();
        } catch (RuntimeException e) {
            daemon.election.close();
            daemon.closeQuietly();
            throw e;
        }
        log.info(
                "node {} of cluster {} (group {}, {}) started: peers on {}, HTTP on {}",
                config.node(),
                config.cluster(),
                config.group(),
                config.algorithm(),
                config.listen(),
                daemon.http.url());
        return daemon;
    }

    /** The dashboard's URL. */
    public String url() {
        return http.url();
    }

    public Election election() {
        return election;
    }

    private Map<NodeId, PeerState> peerStates() {
        Map<NodeId, PeerState> states = new LinkedHashMap<>();
        long nowNanos = System.nanoTime();
        long nowMillis = System.currentTimeMillis();
        transport
                .peers()
                .forEach((id, p) -> states.put(
                        id,
                        new PeerState(
                                p.address().toString(),
                                p.state().name(),
                                Optional.of(nowMillis - TimeUnit.NANOSECONDS.toMillis(nowNanos - p.sinceNanos())),
                                Optional.ofNullable(p.lastError()))));
        return states;
    }

    /** Resigns (a leader hands over to a successor), then stops the transport and the HTTP server. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        log.info("node {}: stopping; resigning from group {}", config.node(), config.group());
        election.close();
        closeQuietly();
    }

    private void closeQuietly() {
        for (AutoCloseable part : List.<AutoCloseable>of(monitor, transport, http)) {
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
