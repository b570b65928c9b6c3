package io.bellwether.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-sent events to at most {@code maxClients} clients. Events are built and handed to the clients' channels
 * on this stream's own thread, in order, so neither the election's notifier nor an HTTP worker ever waits for a
 * client. What a client has not read yet waits in its channel's outbound buffer, and that backlog is bounded: the
 * channel turns unwritable above the backlog limit (its high water mark), and a client found unwritable when an
 * event or keep-alive is due is dropped rather than buffered for. So each client costs at most its backlog limit
 * plus one event, however long it stops reading. A client whose connection fails or closes is dropped too.
 *
 * <p>Thread-safe.
 */
final class EventStream implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventStream.class);

    /** Told when a client is dropped for not reading. */
    interface SlowClients {
        void dropped(Channel channel);
    }

    private final int maxClients;
    private final SlowClients slow;
    /** Each subscribed client, with the group whose changes it asked for ({@code ?group=}), or null for all. */
    private final Map<Channel, Optional<String>> clients = new java.util.concurrent.ConcurrentHashMap<>();
    /** Admitted subscribers, counted from admission until their channel closes: what the cap is checked against. */
    private final AtomicInteger admitted = new AtomicInteger();
    /** Subscribers whose snapshot is queued but not written yet (see {@link #hasSubscribers()}). */
    private final AtomicInteger subscribing = new AtomicInteger();

    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bellwether-http-events");
        t.setDaemon(true);
        return t;
    });

    EventStream(Duration keepAlive, int maxClients, SlowClients slow) {
        this.maxClients = maxClients;
        this.slow = slow;
        long ms = keepAlive.toMillis();
        writer.scheduleWithFixedDelay(() -> writeAll(null, ": keep-alive\n\n"), ms, ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Takes a place for one more client, if there is one; the place is given back when {@code channel} closes.
     *
     * @return false when {@code maxClients} are subscribed already
     */
    boolean admit(Channel channel) {
        while (true) {
            int n = admitted.get();
            if (n >= maxClients) {
                return false;
            }
            if (admitted.compareAndSet(n, n + 1)) {
                break;
            }
        }
        channel.closeFuture().addListener(f -> {
            clients.remove(channel);
            admitted.decrementAndGet();
        });
        return true;
    }

    /**
     * Adds an {@linkplain #admit admitted} client whose response head has been written, and sends it {@code
     * initialEvent} first.
     */
    void subscribe(Channel channel, Supplier<String> initialEvent) {
        subscribe(channel, Optional.empty(), initialEvent);
    }

    /**
     * As {@link #subscribe(Channel, Supplier)}, for the events of {@code group} only (empty: every group's).
     */
    void subscribe(Channel channel, Optional<String> group, Supplier<String> initialEvent) {
        subscribing.incrementAndGet();
        try {
            // Queued on the writer so that the snapshot precedes every event written after it.
            writer.execute(() -> {
                try {
                    if (channel.isActive()) {
                        clients.put(channel, group);
                        write(channel, "retry: 1000\n" + initialEvent.get());
                    }
                } finally {
                    subscribing.decrementAndGet();
                }
            });
        } catch (RejectedExecutionException e) {
            subscribing.decrementAndGet();
            channel.close();
        }
    }

    /**
     * Whether an event published now would reach anyone: a subscriber, or one whose snapshot is still queued (it
     * counts from before its snapshot is taken, so a change it is not told of is in its snapshot). Lets a
     * publisher skip building events nobody reads.
     */
    boolean hasSubscribers() {
        return subscribing.get() > 0 || !clients.isEmpty();
    }

    /**
     * Sends one event named {@code event} with {@code data} (a single line of JSON) to every client. The data is
     * built on this stream's thread, not the caller's: the caller is the election's notifier, and a resigning
     * leader's cession waits until its listeners have returned.
     */
    void publish(String event, Supplier<String> data) {
        publish(event, null, data);
    }

    /**
     * As {@link #publish(String, Supplier)}, for an event of {@code group}: sent to the clients that asked for every
     * group's events or for this group's (null: to every client).
     */
    void publish(String event, String group, Supplier<String> data) {
        try {
            writer.execute(() -> writeAll(group, format(event, data.get())));
        } catch (RejectedExecutionException e) {
            log.trace("event stream closed; dropping {}", event);
        }
    }

    static String format(String event, String data) {
        return "event: " + event + "\ndata: " + data + "\n\n";
    }

    /** How many clients are subscribed. */
    int clients() {
        return clients.size();
    }

    private void writeAll(String group, String text) {
        clients.forEach((client, wanted) -> {
            if (group == null || wanted.isEmpty() || wanted.get().equals(group)) {
                write(client, text);
            }
        });
    }

    private void write(Channel client, String text) {
        if (!client.isActive()) {
            clients.remove(client);
            return;
        }
        if (!client.isWritable()) {
            // Its backlog is over the limit: it has not read for a while. Buffering more for it would let one
            // client that never reads grow this node's heap without bound.
            log.debug("event client {} does not read; dropping it", client.remoteAddress());
            clients.remove(client);
            slow.dropped(client);
            client.close();
            return;
        }
        client.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8)))
                .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    @Override
    public void close() {
        writer.shutdownNow();
        clients.keySet().forEach(Channel::close);
        clients.clear();
    }
}
