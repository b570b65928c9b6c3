package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseStoreSupport;
import io.bellwether.spi.ReleaseWatchers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dedicated PostgreSQL connection that {@code LISTEN}s on the lease table's channel and turns its
 * notifications (payload: the released group) into watcher callbacks. It reconnects with backoff when the
 * connection breaks, and wakes every watcher after each (re)connection, because a release may have been
 * missed while it was not listening.
 */
final class PgReleaseListener {
    private static final Logger log = LoggerFactory.getLogger(PgReleaseListener.class);
    private static final int POLL_MILLIS = 500;
    private static final long HEALTH_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    private final String url;
    private final Properties properties;
    private final String channel;
    private final String description;
    private final ExecutorService callbacks;
    private final ReleaseWatchers watches;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean listening;

    PgReleaseListener(String url, Properties properties, String channel, String description) {
        this.url = url;
        this.properties = properties;
        this.channel = channel;
        this.description = description;
        this.callbacks = Executors.newSingleThreadExecutor(LeaseStoreSupport.daemonThreads("bellwether-pg-wake"));
        this.watches = new ReleaseWatchers(callbacks);
        this.thread = LeaseStoreSupport.daemonThreads("bellwether-pg-listen").newThread(this::loop);
    }

    void start() {
        thread.start();
    }

    AutoCloseable watch(String group, Runnable onRelease) {
        ReleaseWatchers.Watcher w = watches.add(group, onRelease);
        if (listening) {
            // Already listening: every later release reaches it; one wake covers a release just before.
            watches.wake(w);
        } // else the (re)connection wakes it once LISTEN is in force.
        return () -> watches.remove(group, w);
    }

    void close() {
        stopped.countDown();
        callbacks.shutdownNow();
    }

    private void loop() {
        long backoff = 100;
        while (stopped.getCount() > 0) {
            try (Connection c = DriverManager.getConnection(url, properties)) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN \"" + channel.replace("\"", "\"\"") + "\"");
                }
                listening = true;
                backoff = 100;
                log.debug("{}: listening for releases on channel {}", description, channel);
                watches.wakeAll();
                PGConnection pg = c.unwrap(PGConnection.class);
                long lastCheck = System.nanoTime();
                while (stopped.getCount() > 0) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification n : notifications) {
                            if (channel.equals(n.getName())) {
                                watches.wake(n.getParameter());
                            }
                        }
                    }
                    // A silently dead connection delivers nothing and reports nothing: probe it now and then.
                    if (System.nanoTime() - lastCheck > HEALTH_CHECK_NANOS) {
                        if (!c.isValid(2)) {
                            throw new SQLException("listening connection stopped answering");
                        }
                        lastCheck = System.nanoTime();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (stopped.getCount() > 0) {
                    log.warn("{}: not listening for releases ({}); retrying in {} ms", description, e, backoff);
                }
            }
            listening = false;
            try {
                if (stopped.await(backoff, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
    }
}
