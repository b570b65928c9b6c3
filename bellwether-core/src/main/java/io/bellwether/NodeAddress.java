package io.bellwether;

import java.util.Objects;

/** Where a member listens for peer traffic: a host name or IP literal and a TCP port. */
public record NodeAddress(String host, int port) {
    public NodeAddress {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("address host must not be blank");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("address port " + port + " is out of range: allowed 1-65535");
        }
    }

    /**
     * Parses {@code host:port}; an IPv6 literal is written in brackets, {@code [::1]:7101}.
     *
     * @throws IllegalArgumentException naming the text and the expected form
     */
    public static NodeAddress parse(String text) {
        Objects.requireNonNull(text, "address");
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("address '" + text + "' is invalid: expected host:port");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address '" + text + "' is invalid: port must be a number 1-65535", e);
        }
        return new NodeAddress(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
