package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS (mutual) under the HMAC, with a self-signed certificate made by {@code openssl}; skipped without it. */
class TlsTransportTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    @TempDir
    static Path dir;

    private static Path cert;
    private static Path key;
    private static Path otherCert;
    private static Path otherKey;

    private final Cluster cluster = new Cluster("a", "b");

    @BeforeAll
    static void makeCertificates() throws Exception {
        cert = dir.resolve("cert.pem");
        key = dir.resolve("key.pem");
        otherCert = dir.resolve("other-cert.pem");
        otherKey = dir.resolve("other-key.pem");
        assumeTrue(openssl(cert, key, "bellwether-test"), "openssl is needed to make a test certificate");
        assumeTrue(openssl(otherCert, otherKey, "somebody-else"), "openssl is needed to make a test certificate");
    }

    private static boolean openssl(Path certFile, Path keyFile, String name) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(
                            "openssl",
                            "req",
                            "-x509",
                            "-newkey",
                            "rsa:2048",
                            "-nodes",
                            "-days",
                            "2",
                            "-subj",
                            "/CN=" + name,
                            "-addext",
                            "subjectAltName=IP:127.0.0.1,DNS:localhost",
                            "-keyout",
                            keyFile.toString(),
                            "-out",
                            certFile.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve(name + ".log").toFile())
                    .start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.size(certFile) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    @AfterEach
    void closeAll() {
        cluster.close();
    }

    @Test
    void membersWithTrustedCertificatesExchangeMessagesOverTls() throws Exception {
        TcpTransport a = cluster.start(cluster.builder("a").tls(cert, key, cert));
        TcpTransport b = cluster.start(cluster.builder("b").tls(cert, key, cert));
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        // Each end counts the connection as working once it has the other's proof: wait for both.
        atA.await("connected", B);
        atB.await("connected", A);
        a.send("alpha", B, new Heartbeat(2, 3));
        b.send("alpha", A, new Heartbeat(4, 5));
        assertThat(atB.awaitMessage(A)).isEqualTo(new Heartbeat(2, 3));
        assertThat(atA.awaitMessage(B)).isEqualTo(new Heartbeat(4, 5));
    }

    @Test
    void aClientWithAnUntrustedCertificateIsRefused() throws Exception {
        Recorder observerB = new Recorder();
        TcpTransport a = cluster.start(cluster.builder("a").tls(otherCert, otherKey, cert));
        TcpTransport b = cluster.start(cluster.builder("b").tls(cert, key, cert).observer(observerB));
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerB.awaitRejected("tls");
        assertThat(atB.connections).isEmpty();
    }

    @Test
    void unreadableTlsFilesAreRefusedAtBuild() {
        assertThatThrownBy(() -> cluster.builder("a")
                        .tls(dir.resolve("missing.pem"), key, null)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing.pem");
    }
}
