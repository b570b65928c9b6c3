package io.bellwether.server.config;

import io.bellwether.NodeAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** What the configuration checks about addresses, without ever looking a name up. */
final class Addresses {
    /** 0.0.0.0 in any of the forms the JDK's IPv4 parser reads ({@code 0}, {@code 0.0}, {@code 000.0.0.0}). */
    private static final Pattern IPV4_ZERO = Pattern.compile("0+(\\.0+){0,3}");

    private Addresses() {}

    /**
     * Whether {@code address} names no host but "any address" (0.0.0.0, ::, ::ffff:0.0.0.0, *): fine to bind to,
     * useless to dial.
     */
    static boolean unspecified(NodeAddress address) {
        String host = address.host();
        if (host.equals("*") || IPV4_ZERO.matcher(host).matches()) {
            return true;
        }
        if (host.indexOf(':') < 0) {
            return false; // a name or an IPv4 address: not the wildcard
        }
        try {
            // A text with a colon is parsed as an IPv6 literal, never looked up.
            return InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException | SecurityException e) {
            return false; // not an address; the transport reports it
        }
    }

    /** Whether two addresses this host binds would take the same socket: same port, and same or wildcard host. */
    static boolean overlap(NodeAddress a, NodeAddress b) {
        return a.port() == b.port() && (a.host().equals(b.host()) || unspecified(a) || unspecified(b));
    }
}
