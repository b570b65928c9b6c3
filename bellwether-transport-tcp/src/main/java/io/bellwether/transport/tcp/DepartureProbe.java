package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.resolver.AddressResolverGroup;
import java.net.ConnectException;
import java.net.InetSocketAddress;

/**
 * Finds out whether a peer whose connection closed is gone: it opens a bare TCP connection to the peer's
 * address (no TLS, no handshake) and closes it at once. Only a <em>refused</em> connection ({@code ECONNREFUSED}:
 * the peer's host answered the SYN with a reset, so no process listens on that port) counts as proof; a
 * connection that succeeds (a live process, or a stopped one whose kernel still completes the handshake from the
 * listen backlog), times out (a partition, a lost host) or fails otherwise proves nothing.
 */
final class DepartureProbe {
    /** Long enough for any LAN; a probe that takes longer proves nothing anyway. */
    static final int TIMEOUT_MILLIS = 1_000;

    private DepartureProbe() {}

    /** Probes {@code address}; runs {@code onRefused} on {@code loop} if the connection is refused. */
    static void probe(
            EventLoop loop, AddressResolverGroup<InetSocketAddress> resolver, NodeAddress address, Runnable onRefused) {
        probe(loop, resolver, address, onRefused, () -> {});
    }

    /** As above; runs {@code onAccepted} on {@code loop} if the connection was accepted. */
    static void probe(
            EventLoop loop,
            AddressResolverGroup<InetSocketAddress> resolver,
            NodeAddress address,
            Runnable onRefused,
            Runnable onAccepted) {
        ChannelFuture f = new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .resolver(resolver)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, TIMEOUT_MILLIS)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(address.host(), address.port());
        f.addListener(done -> {
            if (done.isSuccess()) {
                f.channel().close();
                onAccepted.run();
            } else if (isRefused(done.cause())) {
                onRefused.run();
            }
        });
    }

    static boolean isRefused(Throwable cause) {
        return cause instanceof ConnectException
                && !(cause instanceof ConnectTimeoutException)
                && cause.getMessage() != null
                && cause.getMessage().startsWith("Connection refused");
    }
}
