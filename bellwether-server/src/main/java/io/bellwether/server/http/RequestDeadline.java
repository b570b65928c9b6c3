package io.bellwether.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deadline for each whole request: a connection has {@code request-timeout} from its opening, or from the end
 * of its previous response, to deliver a complete request, however it trickles in (a read timeout alone would be
 * reset by every byte of a client sending one byte every few seconds). Past it, a connection on which a request
 * has begun to arrive gets a 408 and is closed; one on which nothing has arrived since it opened or since its last
 * response (an idle keep-alive connection) is closed without a response, since a client that reuses it would read a
 * 408 sent unasked as the answer to its next request. The deadline is off while a request is being answered and for
 * an event stream.
 *
 * <p>One instance per connection, used on its event loop only; {@link #arrivals()} goes before the HTTP decoder,
 * which holds back a request head until it is whole.
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {
    private final long timeoutNanos;
    private final Runnable expired;
    private ScheduledFuture<?> pending;
    /** Whether any byte has arrived since the deadline was armed. */
    private boolean arrived;

    /** @param expired told each time a deadline passes */
    RequestDeadline(long timeoutNanos, Runnable expired) {
        this.timeoutNanos = timeoutNanos;
        this.expired = expired;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        arm(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof LastHttpContent
                || (msg instanceof HttpObject
                        && !(msg instanceof HttpContent)
                        && ((HttpObject) msg).decoderResult().isFailure())) {
            disarm();
        }
        ctx.fireChannelRead(msg);
    }

    /** Starts the deadline for the connection's next request (at the opening, or after a response). */
    void arm(ChannelHandlerContext ctx) {
        disarm();
        arrived = false;
        pending = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** The handler to put before the HTTP decoder: it notes that bytes of a request have arrived. */
    ChannelInboundHandlerAdapter arrivals() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                arrived = true;
                ctx.fireChannelRead(msg);
            }
        };
    }

    void disarm() {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
    }

    private void expire(ChannelHandlerContext ctx) {
        pending = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        if (!arrived) {
            // Idle between requests: nothing to answer.
            ctx.close();
            return;
        }
        expired.run();
        byte[] body = "request timeout: send the whole request sooner (http-limits.request-timeout)\n"
                .getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT, Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }
}
