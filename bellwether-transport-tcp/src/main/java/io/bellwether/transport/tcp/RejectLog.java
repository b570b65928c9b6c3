package io.bellwether.transport.tcp;

import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs refused frames at WARN (or ERROR), at most one line per reason per interval, and says how many were left out: a
 * misconfigured or hostile peer reconnecting in a loop must not flood the log. Thread-safe.
 */
final class RejectLog {
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    private final long intervalNanos;
    private final Map<String, long[]> byReason = new HashMap<>(); // reason -> {last logged at, suppressed since}

    RejectLog(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /** Logs {@code line} at WARN unless a line for {@code reason} was logged within the interval. */
    void warn(String reason, String line) {
        write(false, reason, line);
    }

    /** Logs {@code line} at ERROR unless a line for {@code reason} was logged within the interval. */
    void error(String reason, String line) {
        write(true, reason, line);
    }

    private synchronized void write(boolean error, String reason, String line) {
        long now = System.nanoTime();
        long[] s = byReason.get(reason);
        if (s != null && now - s[0] < intervalNanos) {
            s[1]++;
            return;
        }
        long suppressed = s == null ? 0 : s[1];
        byReason.put(reason, new long[] {now, 0});
        String text = suppressed > 0
                ? line + " [" + reason + "; " + suppressed + " more like it in the last "
                        + intervalNanos / 1_000_000_000L + " s not logged]"
                : line + " [" + reason + "]";
        if (error) {
            log.error(text);
        } else {
            log.warn(text);
        }
    }
}
