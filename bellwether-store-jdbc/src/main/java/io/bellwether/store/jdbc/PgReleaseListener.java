package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseStoreSupport;
import io.bellwether.spi.ReleaseWatchers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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
 * missed while it was not listening. The connection may be an application pool's: it is {@code UNLISTEN}ed before
 * it is closed (given back), so that the pool's next user does not collect notifications meant for nobody.
 */
final class PgReleaseListener {
    private static final Logger log = LoggerFactory.getLogger(PgReleaseListener.class);
    private static final int POLL_MILLIS = 500;
    private static final long HEALTH_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    private static final long UNLISTEN_TIMEOUT_MILLIS = 2_000;

    /** Opens the connection to listen on. */
    @FunctionalInterface
    interface ConnectionSource {
        Connection open() throws SQLException;
    }

    private final ConnectionSource connections;
    private final String channel;
    private final String description;
    private final ExecutorService callbacks;
    private final ReleaseWatchers watches;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean listening;

    PgReleaseListener(ConnectionSource connections, String channel, String description) {
        this.connections = connections;
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

    /**
     * Stops listening and waits (at most one poll plus the UNLISTEN's bound) for the listening connection to go back:
     * the store's owner may close the pool it came from right after, and a connection closed under the UNLISTEN
     * makes the pool log it as broken.
     */
    void close() {
        stopped.countDown();
        callbacks.shutdownNow();
        if (Thread.currentThread() != thread && thread.isAlive()) {
            try {
                thread.join(POLL_MILLIS + UNLISTEN_TIMEOUT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        long backoff = 100;
        while (stopped.getCount() > 0) {
            try (Connection c = connections.open()) {
                try {
                    try (Statement s = c.createStatement()) {
                        s.execute("LISTEN \"" + channel.replace("\"", "\"\"") + "\"");
                    }
                    backoff = 100;
                    listenUntilStopped(c);
                } finally {
                    unlisten(c);
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

    /** Wakes watchers for the notifications on {@code c}, which LISTENs, until stopped or the connection fails. */
    private void listenUntilStopped(Connection c) throws SQLException {
        listening = true;
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
    }

    /**
     * Ends the LISTEN before the connection goes back (to an application's pool, perhaps); best effort, and bounded
     * in time, since the connection may be the one that just stopped answering.
     */
    private void unlisten(Connection c) {
        listening = false;
        try {
            int lent = c.getNetworkTimeout();
            c.setNetworkTimeout(Runnable::run, (int) UNLISTEN_TIMEOUT_MILLIS);
            try (Statement s = c.createStatement()) {
                s.execute("UNLISTEN *");
            } finally {
                c.setNetworkTimeout(Runnable::run, lent);
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("{}: UNLISTEN failed ({}); the connection is closed anyway", description, e.toString());
        }
    }
}
