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

/**
 * TLS (mutual) under the HMAC, with self-signed certificates made by {@code openssl}; skipped without it. Each
 * member's certificate names its id as its common name ({@code CN=a}), as mutual TLS requires.
 */
class TlsTransportTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    @TempDir
    static Path dir;

    /** a's certificate (CN=a) and key. */
    private static Path cert;

    private static Path key;
    /** b's certificate (CN=b) and key. */
    private static Path bCert;

    private static Path bKey;
    /** a's and b's certificates: what the members trust. */
    private static Path trusted;

    private static Path otherCert;
    private static Path otherKey;
    /** b's (CN=b), trusted like the others, but issued for another host: its names do not include 127.0.0.1. */
    private static Path elsewhereCert;

    private static Path elsewhereKey;
    /** a's certificate and the one issued for another host. */
    private static Path trustedElsewhere;

    private final Cluster cluster = new Cluster("a", "b");

    @BeforeAll
    static void makeCertificates() throws Exception {
        cert = dir.resolve("cert.pem");
        key = dir.resolve("key.pem");
        bCert = dir.resolve("b-cert.pem");
        bKey = dir.resolve("b-key.pem");
        trusted = dir.resolve("trusted.pem");
        trustedElsewhere = dir.resolve("trusted-elsewhere.pem");
        otherCert = dir.resolve("other-cert.pem");
        otherKey = dir.resolve("other-key.pem");
        elsewhereCert = dir.resolve("elsewhere-cert.pem");
        elsewhereKey = dir.resolve("elsewhere-key.pem");
        String loopback = "subjectAltName=IP:127.0.0.1,DNS:localhost";
        assumeTrue(openssl(cert, key, "a", loopback), "openssl is needed to make a test certificate");
        assumeTrue(openssl(bCert, bKey, "b", loopback), "openssl is needed to make a test certificate");
        assumeTrue(openssl(otherCert, otherKey, "a", loopback), "openssl is needed to make a certificate");
        assumeTrue(
                openssl(elsewhereCert, elsewhereKey, "b", "subjectAltName=DNS:peers.elsewhere.example"),
                "openssl is needed to make a test certificate");
        Files.writeString(trusted, Files.readString(cert) + Files.readString(bCert));
        Files.writeString(trustedElsewhere, Files.readString(cert) + Files.readString(elsewhereCert));
    }

    private static boolean openssl(Path certFile, Path keyFile, String name, String names) throws InterruptedException {
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
                            names,
                            "-keyout",
                            keyFile.toString(),
                            "-out",
                            certFile.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve(certFile.getFileName() + ".log").toFile())
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
        assertExchange(
                cluster.builder("a").tls(cert, key, trusted),
                cluster.builder("b").tls(bCert, bKey, trusted));
    }

    /** a (the dialer: the lower id dials) and b, built by these builders, connect and hear each other. */
    private void assertExchange(TcpTransport.Builder dialer, TcpTransport.Builder acceptor) throws Exception {
        TcpTransport a = cluster.start(dialer);
        TcpTransport b = cluster.start(acceptor);
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
        TcpTransport a = cluster.start(cluster.builder("a").tls(otherCert, otherKey, trusted));
        TcpTransport b =
                cluster.start(cluster.builder("b").tls(bCert, bKey, trusted).observer(observerB));
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, new Recorder());
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerB.awaitRejected("tls");
        assertThat(atB.connections).isEmpty();
    }

    @Test
    void aDialerRefusesATrustedCertificateThatDoesNotNameTheHostItDialed() throws Exception {
        Recorder observerA = new Recorder();
        // a dials b (the lower id dials): b presents a certificate a trusts, issued for another host.
        TcpTransport a = cluster.start(
                cluster.builder("a").tls(cert, key, trustedElsewhere).observer(observerA));
        TcpTransport b = cluster.start(cluster.builder("b").tls(elsewhereCert, elsewhereKey, trustedElsewhere));
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerA.awaitRejected("tls");
        assertThat(atA.connections).isEmpty();
        assertThat(atB.connections).isEmpty();
    }

    @Test
    void aDialerToldTheNameThePeersCertificatesCarryAcceptsThem() throws Exception {
        assertConnects(cluster.builder("a").tls(cert, key, trustedElsewhere).tlsServerName("peers.elsewhere.example"));
    }

    @Test
    void aDialerWithHostnameVerificationOffAcceptsAnyTrustedCertificate() throws Exception {
        assertConnects(cluster.builder("a").tls(cert, key, trustedElsewhere).tlsVerifyHostname(false));
    }

    /** {@code dialer} (a) reaches b, which presents the certificate issued for another host. */
    private void assertConnects(TcpTransport.Builder dialer) throws Exception {
        assertExchange(dialer, cluster.builder("b").tls(elsewhereCert, elsewhereKey, trustedElsewhere));
    }

    @Test
    void aDialerWhoseTrustedCertificateNamesAnotherMemberIsRefusedAndCounted() throws Exception {
        // a presents b's certificate, which the cluster trusts: b refuses a's LOGIN before its AUTH.
        Recorder observerB = new Recorder();
        TcpTransport a = cluster.start(cluster.builder("a").tls(bCert, bKey, trusted));
        TcpTransport b =
                cluster.start(cluster.builder("b").tls(bCert, bKey, trusted).observer(observerB));
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerB.awaitRejected("tls-member-id");
        assertThat(atA.connections).isEmpty();
        assertThat(atB.connections).isEmpty();
    }

    @Test
    void anAcceptorWhoseTrustedCertificateNamesAnotherMemberIsRefusedAndCounted() throws Exception {
        // b presents a's certificate: a, which dialed b, refuses b's HELLO before its LOGIN.
        Recorder observerA = new Recorder();
        TcpTransport a =
                cluster.start(cluster.builder("a").tls(cert, key, trusted).observer(observerA));
        TcpTransport b = cluster.start(cluster.builder("b").tls(cert, key, trusted));
        Recorder atA = new Recorder();
        Recorder atB = new Recorder();
        a.register("alpha", A, QuorumCodec.INSTANCE, atA);
        b.register("alpha", B, QuorumCodec.INSTANCE, atB);
        observerA.awaitRejected("tls-member-id");
        assertThat(atA.connections).isEmpty();
        assertThat(atB.connections).isEmpty();
    }

    @Test
    void aServerNameThatIsNotAHostNameIsRefusedAtBuild() {
        for (String bad :
                new String[] {"", "has space", "-leading.dash", "under_score.example", "a..b", "a.*", "*.nodes.example"
                }) {
            assertThatThrownBy(() -> cluster.builder("a").tlsServerName(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tls server name");
        }
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
