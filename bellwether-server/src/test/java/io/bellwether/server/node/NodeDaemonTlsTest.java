package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which name a node's TLS dialer checks peers' certificates against (the handshake itself: TlsTransportTest). */
class NodeDaemonTlsTest {
    private static final String COMMON =
            "cluster: demo\nnode: n1\nsecret: a-cluster-secret-of-enough-bytes\nstate-dir: data\n";
    private static final String STATIC_PEERS =
            "listen: 127.0.0.1:7101\npeers:\n  n1: 127.0.0.1:7101\n  n2: 127.0.0.1:7102\n"
                    + "  n3: 127.0.0.1:7103\nhttp: 127.0.0.1:8101\n";
    private static final String DNS_PEERS = "listen: 127.0.0.1:7101\nhttp: 127.0.0.1:8101\n"
            + "peers-dns: bellwether.demo.svc:7101\nmembers: [n1, n2, n3]\n";
    private static final String TLS = "tls: {certificate: node.pem, private-key: node.key";

    @TempDir
    Path dir;

    @BeforeEach
    void pemFiles() throws Exception {
        Files.writeString(dir.resolve("node.pem"), "x");
        Files.writeString(dir.resolve("node.key"), "x");
    }

    private NodeConfig parse(String yaml) throws Exception {
        return ConfigLoader.parse(COMMON + yaml, dir, "n1.yaml");
    }

    @Test
    void staticPeersAreCheckedAgainstTheHostDialed() throws Exception {
        assertThat(NodeDaemon.tlsServerName(parse(STATIC_PEERS + TLS + "}\n"))).isEmpty();
    }

    @Test
    void discoveredPeersAreCheckedAgainstTheNameLookedUp() throws Exception {
        assertThat(NodeDaemon.tlsServerName(parse(DNS_PEERS + TLS + "}\n"))).contains("bellwether.demo.svc");
    }

    @Test
    void aGivenServerNameWinsOverBoth() throws Exception {
        String tls = TLS + ", server-name: peers.nodes.example}\n";
        assertThat(NodeDaemon.tlsServerName(parse(STATIC_PEERS + tls))).contains("peers.nodes.example");
        assertThat(NodeDaemon.tlsServerName(parse(DNS_PEERS + tls))).contains("peers.nodes.example");
    }

    @Test
    void withoutTlsThereIsNoName() throws Exception {
        assertThat(NodeDaemon.tlsServerName(parse(DNS_PEERS))).isEmpty();
    }
}
