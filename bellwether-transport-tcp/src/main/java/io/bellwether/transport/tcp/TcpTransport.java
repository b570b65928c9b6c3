package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.runtime.Transport;
import io.bellwether.runtime.TransportListener;
import java.nio.file.Path;
import java.util.Map;

/**
 * (Stub: the signatures other modules code against; implemented by the transport work.)
 *
 * <p>Netty transport: one authenticated, framed TCP connection per peer pair, shared by every election group
 * of the process.
 */
public final class TcpTransport implements Transport, AutoCloseable {
    private TcpTransport() {}

    public static Builder builder() {
        return new Builder();
    }

    /** Binds the listen address and starts connecting to peers. @throws java.io.UncheckedIOException on bind failure */
    public void start() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Connection state per configured peer (this node excluded), for status pages. */
    public Map<NodeId, PeerStatus> peers() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    @Override
    public void register(String group, NodeId self, TransportListener listener) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    @Override
    public void unregister(String group, NodeId self) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    @Override
    public void close() {}

    /** A peer's connection as this node sees it. */
    public record PeerStatus(NodeAddress address, State state, long sinceNanos, String lastError) {
        public enum State {
            CONNECTED,
            CONNECTING,
            DISCONNECTED
        }
    }

    /**
     * Told about traffic, for metrics; called from transport threads, must be quick. All methods default to
     * no-ops.
     */
    public interface Observer {
        default void messageSent(String type) {}

        default void messageReceived(String type) {}

        /** A frame was dropped and its connection closed; {@code reason} is a short metric label (bad-mac, …). */
        default void frameRejected(String reason) {}

        default void peerStateChanged(NodeId peer, PeerStatus.State state) {}
    }

    /** Configures a {@link TcpTransport}. */
    public static final class Builder {
        private Builder() {}

        /** Cluster name carried in every frame; peers with another name are refused. */
        public Builder cluster(String cluster) {
            return this;
        }

        public Builder self(NodeId self) {
            return this;
        }

        public Builder listen(NodeAddress address) {
            return this;
        }

        /** Every member, this one included. */
        public Builder members(Map<NodeId, NodeAddress> members) {
            return this;
        }

        /** The shared cluster secret (at least 16 bytes) used for HMAC-SHA256 over every frame. */
        public Builder secret(byte[] secret) {
            return this;
        }

        /** Runs without authentication; must be asked for explicitly. */
        public Builder insecure() {
            return this;
        }

        /** Optional TLS (mTLS when a CA is given): PEM certificate chain, PEM private key, PEM trust store. */
        public Builder tls(Path certificateChain, Path privateKey, Path trustedCertificates) {
            return this;
        }

        /** Largest accepted frame, default 64 KiB. */
        public Builder maxFrameBytes(int bytes) {
            return this;
        }

        public Builder observer(Observer observer) {
            return this;
        }

        public TcpTransport build() {
            throw new UnsupportedOperationException("not yet implemented");
        }
    }
}
