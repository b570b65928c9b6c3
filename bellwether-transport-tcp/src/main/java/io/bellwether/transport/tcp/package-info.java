/**
 * The TCP {@link io.bellwether.spi.Transport}: {@link io.bellwether.transport.tcp.TcpTransport} keeps one framed,
 * authenticated connection per pair of members (HMAC-SHA256 over a shared cluster secret, optionally inside
 * mutual TLS), shared by every election group of the process. Users build it with {@code TcpTransport.builder()}
 * with fixed member addresses, or with a {@link io.bellwether.transport.tcp.PeerResolver} to discover them (for
 * example by DNS). Framing, handshake, connection management and the peer directory are package-private; the
 * wire format and the limits against hostile peers are in {@code docs/security.md}.
 */
package io.bellwether.transport.tcp;
