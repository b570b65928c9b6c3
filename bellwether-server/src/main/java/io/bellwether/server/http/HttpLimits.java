package io.bellwether.server.http;

import java.time.Duration;

/**
 * What one HTTP client may take from a node ({@code http-limits} in the configuration file). Every value is
 * validated here; {@code docs/configuration.md} documents each with its default and range.
 *
 * @param maxConnections open HTTP connections at once (event streams included); a connection beyond it is
 *     answered 503 and closed
 * @param maxEventClients {@code /events} subscribers at once, at most {@code maxConnections}; a subscription
 *     beyond it is answered 503
 * @param requestTimeout how long a connection may take to send a whole request (from its opening, or from the end
 *     of its previous response), and how long a response may take to be written; past it the connection is
 *     closed (a request still arriving gets a 408 first)
 * @param maxRequestBytes the largest request head (request line and headers) and body accepted; a larger one is
 *     answered 431 or 413 and the connection closed
 * @param eventBacklogBytes how many bytes of events may wait for an {@code /events} client that does not read;
 *     a client whose backlog exceeds it when an event is due is dropped
 */
public record HttpLimits(
        int maxConnections, int maxEventClients, Duration requestTimeout, int maxRequestBytes, int eventBacklogBytes) {

    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    public static final int DEFAULT_MAX_EVENT_CLIENTS = 16;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_REQUEST_BYTES = 8 * 1024;
    public static final int DEFAULT_EVENT_BACKLOG_BYTES = 64 * 1024;

    public static final int MAX_CONNECTIONS = 10_000;
    public static final Duration MIN_REQUEST_TIMEOUT = Duration.ofMillis(100);
    public static final Duration MAX_REQUEST_TIMEOUT = Duration.ofMinutes(5);
    public static final int MIN_REQUEST_BYTES = 1024;
    public static final int MAX_REQUEST_BYTES = 1024 * 1024;
    public static final int MIN_EVENT_BACKLOG_BYTES = 4 * 1024;
    public static final int MAX_EVENT_BACKLOG_BYTES = 16 * 1024 * 1024;

    /** Every limit at its default. */
    public static final HttpLimits DEFAULTS = new HttpLimits(
            DEFAULT_MAX_CONNECTIONS,
            DEFAULT_MAX_EVENT_CLIENTS,
            DEFAULT_REQUEST_TIMEOUT,
            DEFAULT_MAX_REQUEST_BYTES,
            DEFAULT_EVENT_BACKLOG_BYTES);

    /** @throws IllegalArgumentException naming the key ({@code http-limits.…}), the value and what is allowed */
    public HttpLimits {
        within("max-connections", maxConnections, 1, MAX_CONNECTIONS);
        within("max-event-clients", maxEventClients, 0, MAX_CONNECTIONS);
        if (maxEventClients > maxConnections) {
            throw new IllegalArgumentException("http-limits.max-event-clients = " + maxEventClients
                    + " exceeds http-limits.max-connections = " + maxConnections
                    + ": allowed at most max-connections (each event client holds a connection)");
        }
        if (requestTimeout == null
                || requestTimeout.compareTo(MIN_REQUEST_TIMEOUT) < 0
                || requestTimeout.compareTo(MAX_REQUEST_TIMEOUT) > 0) {
            throw new IllegalArgumentException("http-limits.request-timeout = "
                    + (requestTimeout == null ? "null" : requestTimeout.toMillis() + "ms")
                    + " is out of range: allowed a duration from 100ms to 5m, e.g. 10s");
        }
        within("max-request-bytes", maxRequestBytes, MIN_REQUEST_BYTES, MAX_REQUEST_BYTES);
        within("event-backlog-bytes", eventBacklogBytes, MIN_EVENT_BACKLOG_BYTES, MAX_EVENT_BACKLOG_BYTES);
    }

    private static void within(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("http-limits." + key + " = " + value
                    + " is out of range: allowed a whole number from " + min + " to " + max);
        }
    }

    public HttpLimits withMaxConnections(int value) {
        return new HttpLimits(
                value, Math.min(maxEventClients, value), requestTimeout, maxRequestBytes, eventBacklogBytes);
    }

    public HttpLimits withMaxEventClients(int value) {
        return new HttpLimits(maxConnections, value, requestTimeout, maxRequestBytes, eventBacklogBytes);
    }

    public HttpLimits withRequestTimeout(Duration value) {
        return new HttpLimits(maxConnections, maxEventClients, value, maxRequestBytes, eventBacklogBytes);
    }

    public HttpLimits withMaxRequestBytes(int value) {
        return new HttpLimits(maxConnections, maxEventClients, requestTimeout, value, eventBacklogBytes);
    }

    public HttpLimits withEventBacklogBytes(int value) {
        return new HttpLimits(maxConnections, maxEventClients, requestTimeout, maxRequestBytes, value);
    }
}
