package io.bellwether.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * First in every connection's pipeline: counts open connections and refuses one beyond the cap. A refused
 * connection gets a 503 once its first bytes arrive (answering before reading them would make the close a reset,
 * and the client would see that instead of the 503) or is closed after {@link #REFUSAL_GRACE_MS} if it sends
 * nothing; nothing it sends goes further down the pipeline.
 *
 * <p>One instance per connection; the counter is shared.
 */
final class ConnectionGate extends ChannelInboundHandlerAdapter {
    static final long REFUSAL_GRACE_MS = 1000;

    private static final byte[] REFUSAL = ("HTTP/1.1 503 Service Unavailable\r\n"
                    + "Content-Type: text/plain\r\n"
                    + "Content-Length: 51\r\n"
                    + "Retry-After: 1\r\n"
                    + "Connection: close\r\n"
                    + "\r\n"
                    + "too many HTTP connections (http-limits): try later\n")
            .getBytes(StandardCharsets.US_ASCII);

    private final AtomicInteger open;
    private final int max;
    private final Runnable refused;
    private boolean over;
    private boolean answered;

    /** @param refused told of each refused connection */
    ConnectionGate(AtomicInteger open, int max, Runnable refused) {
        this.open = open;
        this.max = max;
        this.refused = refused;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > max) {
            over = true;
            refused.run();
            ctx.executor().schedule(() -> ctx.close(), REFUSAL_GRACE_MS, TimeUnit.MILLISECONDS);
            return; // the rest of the pipeline never hears of this connection
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!over) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        if (!answered) {
            answered = true;
            ByteBuf refusal = Unpooled.wrappedBuffer(REFUSAL);
            ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        if (!over) {
            ctx.fireChannelInactive();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (over) {
            ctx.close();
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }
}
