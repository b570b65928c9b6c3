package io.bellwether.server.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-sent events to any number of clients. Each client's exchange stays open after its handler returns;
 * every write happens on this stream's own thread, so no HTTP worker is held by a subscriber and a slow
 * client delays only other event writes, never the election. A client whose connection fails on a write
 * (an event or the periodic keep-alive comment) is dropped.
 *
 * <p>Thread-safe.
 */
final class EventStream implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventStream.class);

    private final List<Client> clients = new CopyOnWriteArrayList<>();
    /** Subscribers whose snapshot is queued but not written yet (see {@link #hasSubscribers()}). */
    private final AtomicInteger subscribing = new AtomicInteger();

    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bellwether-http-events");
        t.setDaemon(true);
        return t;
    });

    EventStream(Duration keepAlive) {
        long ms = keepAlive.toMillis();
        writer.scheduleWithFixedDelay(() -> writeAll(": keep-alive\n\n"), ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Takes over {@code exchange} as a subscriber and sends it {@code initial} as its first event. */
    void subscribe(HttpExchange exchange, Supplier<String> initialEvent) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.getResponseHeaders().set("X-Accel-Buffering", "no");
        exchange.sendResponseHeaders(200, 0);
        Client client = new Client(exchange);
        subscribing.incrementAndGet();
        try {
            // Queued on the writer so that the snapshot precedes every event written after it.
            writer.execute(() -> {
                try {
                    if (client.write("retry: 1000\n" + initialEvent.get())) {
                        clients.add(client);
                    }
                } finally {
                    subscribing.decrementAndGet();
                }
            });
        } catch (RejectedExecutionException e) {
            subscribing.decrementAndGet();
            client.close();
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
        try {
            writer.execute(() -> writeAll(format(event, data.get())));
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

    private void writeAll(String text) {
        for (Client client : clients) {
            if (!client.write(text)) {
                clients.remove(client);
            }
        }
    }

    @Override
    public void close() {
        writer.shutdownNow();
        clients.forEach(Client::close);
        clients.clear();
    }

    private static final class Client {
        private final HttpExchange exchange;
        private final OutputStream body;

        Client(HttpExchange exchange) {
            this.exchange = exchange;
            this.body = exchange.getResponseBody();
        }

        boolean write(String text) {
            try {
                body.write(text.getBytes(StandardCharsets.UTF_8));
                body.flush();
                return true;
            } catch (IOException e) {
                log.debug("event client {} is gone: {}", exchange.getRemoteAddress(), e.toString());
                close();
                return false;
            }
        }

        void close() {
            try {
                exchange.close();
            } catch (RuntimeException e) {
                log.trace("closing an event client failed", e);
            }
        }
    }
}
