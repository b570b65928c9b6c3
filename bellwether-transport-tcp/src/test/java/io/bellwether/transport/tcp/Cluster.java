package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.testkit.Ports;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Members on loopback with free ports, and the transports tests build for them. */
final class Cluster implements AutoCloseable {
    static final byte[] SECRET = "a-test-secret-of-32-bytes-length".getBytes(StandardCharsets.US_ASCII);

    final Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
    private final List<TcpTransport> transports = new ArrayList<>();

    Cluster(String... ids) {
        for (String id : ids) {
            members.put(NodeId.of(id), new NodeAddress("127.0.0.1", Ports.free()));
        }
    }

    NodeAddress address(String id) {
        return members.get(NodeId.of(id));
    }

    /** A builder for {@code id} with this cluster's members, name and secret. */
    TcpTransport.Builder builder(String id) {
        return TcpTransport.builder()
                .cluster("test-cluster")
                .self(NodeId.of(id))
                .members(members)
                .secret(SECRET);
    }

    /** Builds and starts; closed with the cluster. */
    TcpTransport start(TcpTransport.Builder builder) {
        TcpTransport t = builder.build();
        transports.add(t);
        t.start();
        return t;
    }

    TcpTransport start(String id, Recorder observer) {
        return start(builder(id).observer(observer));
    }

    @Override
    public void close() {
        transports.forEach(TcpTransport::close);
    }
}
