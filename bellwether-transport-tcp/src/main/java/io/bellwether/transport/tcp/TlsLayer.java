package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The optional TLS under the framed protocol: the contexts built from the PEM files, the handler each new
 * connection gets, and (with mutual TLS) the check that a member's certificate names its id ({@link
 * TlsMemberIds}).
 *
 * @param server the context of accepted connections
 * @param client the context of dialed connections
 * @param verifyHostname whether a dialing node checks the name in the certificate it is shown
 * @param serverName the name that certificate must carry instead of the host dialed, or null
 * @param bindsIds whether peers' certificates are verified (mutual TLS), so that they must name the member ids
 */
record TlsLayer(SslContext server, SslContext client, boolean verifyHostname, String serverName, boolean bindsIds) {
    /**
     * A DNS host name (RFC 1123 labels), or an IPv4 address. Not a wildcard: the name is what a certificate must
     * match, and a certificate's wildcard name matches it (a {@code *.nodes.example} certificate matches {@code
     * peers.nodes.example}).
     */
    private static final Pattern HOST_NAME = Pattern.compile(
            "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

    /** See {@link TcpTransport.Builder#tlsServerNameProblem}. */
    static Optional<String> serverNameProblem(String name) {
        return name.length() <= 253 && HOST_NAME.matcher(name).matches()
                ? Optional.empty()
                : Optional.of("allowed a host name (labels of letters, digits and '-', joined by '.')");
    }

    /**
     * Builds the contexts from PEM files; {@code trustedCertificates} null trusts the JVM's default authorities and
     * asks clients for no certificate.
     *
     * @throws IllegalArgumentException naming the files if they cannot be read or used
     */
    static TlsLayer build(
            Path certificateChain,
            Path privateKey,
            Path trustedCertificates,
            boolean verifyHostname,
            String serverName) {
        for (Map.Entry<String, Path> e : Map.of(
                        "tls certificate chain", certificateChain,
                        "tls private key", privateKey)
                .entrySet()) {
            if (!Files.isReadable(e.getValue())) {
                throw new IllegalArgumentException(
                        e.getKey() + " = " + e.getValue() + " is not a readable file: allowed a PEM file");
            }
        }
        if (trustedCertificates != null && !Files.isReadable(trustedCertificates)) {
            throw new IllegalArgumentException("tls trusted certificates = " + trustedCertificates
                    + " is not a readable file: allowed a PEM file");
        }
        try {
            SslContextBuilder server = SslContextBuilder.forServer(certificateChain.toFile(), privateKey.toFile());
            SslContextBuilder client =
                    SslContextBuilder.forClient().keyManager(certificateChain.toFile(), privateKey.toFile());
            if (trustedCertificates != null) {
                server.trustManager(trustedCertificates.toFile()).clientAuth(ClientAuth.REQUIRE);
                client.trustManager(trustedCertificates.toFile());
            }
            return new TlsLayer(
                    server.build(), client.build(), verifyHostname, serverName, trustedCertificates != null);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "tls: cannot use certificate chain " + certificateChain
                            + ", private key " + privateKey + " and trusted certificates " + trustedCertificates
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** The TLS handler of an accepted connection. */
    SslHandler serverHandler(SocketChannel ch) {
        return server.newHandler(ch.alloc());
    }

    /**
     * The TLS handler of a dialed connection. With hostname verification on, the handshake fails unless the
     * certificate the peer presents names the server name ({@link TcpTransport.Builder#tlsServerName}) or else the
     * host dialed, by the rules of HTTPS (RFC 2818 and RFC 6125: a DNS name in its subject alternative names, a
     * wildcard covering one label, or an IP address entry for an address).
     */
    SslHandler clientHandler(SocketChannel ch, NodeAddress address) {
        String name = serverName != null ? serverName : address.host();
        SslHandler handler = client.newHandler(ch.alloc(), name, address.port());
        if (verifyHostname) {
            SSLEngine engine = handler.engine();
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(parameters);
        }
        return handler;
    }

    /** Why {@code c}'s certificate does not name {@code sender}, or null if it does or nothing is to be checked. */
    String memberIdProblem(Connection c, NodeId sender) {
        return bindsIds ? TlsMemberIds.problem(c.channel(), sender) : null;
    }
}
