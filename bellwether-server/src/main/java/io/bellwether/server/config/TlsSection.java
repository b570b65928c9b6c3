package io.bellwether.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.bellwether.transport.tcp.TcpTransport;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Reads the {@code tls} section: TLS for peer connections. */
final class TlsSection {
    static final String KEY = "tls";
    static final List<String> KEYS = List.of("certificate", "private-key", "trusted", "verify-hostname", "server-name");

    private TlsSection() {}

    /** The TLS settings; empty when not given, or after a problem. */
    static Optional<NodeConfig.Tls> read(ConfigValues top) {
        if (!top.has(KEY)) {
            return Optional.empty();
        }
        ConfigValues tls = top.section(
                KEY,
                "a mapping with certificate, private-key and optionally trusted (PEM files), verify-hostname and"
                        + " server-name");
        if (tls == null) {
            return Optional.empty();
        }
        tls.unknownKeys(KEYS);
        Path certificate = tls.pemFile("certificate", true);
        Path key = tls.pemFile("private-key", true);
        Path trusted = tls.pemFile("trusted", false);
        Boolean verifyHostname = tls.bool("verify-hostname");
        Optional<String> serverName = Optional.empty();
        if (tls.has("server-name")) {
            JsonNode value = tls.get("server-name");
            // The transport's own check, so that the two cannot disagree.
            Optional<String> problem =
                    TcpTransport.Builder.tlsServerNameProblem(value.isTextual() ? value.asText() : "");
            if (problem.isPresent()) {
                tls.error(tls.name("server-name") + " = '" + value.asText() + "' is invalid: " + problem.get());
            } else {
                serverName = Optional.of(value.asText());
            }
        }
        if (certificate == null || key == null) {
            return Optional.empty();
        }
        return Optional.of(new NodeConfig.Tls(
                certificate, key, Optional.ofNullable(trusted), verifyHostname == null || verifyHostname, serverName));
    }
}
