package io.bellwether.server.config;

import io.bellwether.server.http.HttpLimits;
import java.time.Duration;
import java.util.List;

/** Reads the {@code http-limits} section: what one HTTP client may take from the node (see {@link HttpLimits}). */
final class HttpLimitsSection {
    static final String KEY = "http-limits";
    static final List<String> KEYS = List.of(
            "max-connections", "max-event-clients", "request-timeout", "max-request-bytes", "event-backlog-bytes");
    private static final String WHOLE = "a whole number (see docs/configuration.md for its range)";

    private HttpLimitsSection() {}

    /** The limits, defaults for what is not given; null after a problem. */
    static HttpLimits read(ConfigValues top) {
        if (!top.given(KEY)) {
            return HttpLimits.DEFAULTS;
        }
        ConfigValues section =
                top.section(KEY, "a mapping of " + String.join(", ", KEYS) + " (see docs/configuration.md)");
        if (section == null) {
            return null;
        }
        int before = top.errorCount();
        section.unknownKeys(KEYS, true);
        HttpLimits d = HttpLimits.DEFAULTS;
        int maxConnections = or(section.wholeNumber("max-connections", WHOLE), d.maxConnections());
        int maxEventClients = or(section.wholeNumber("max-event-clients", WHOLE), d.maxEventClients());
        int maxRequestBytes = or(section.wholeNumber("max-request-bytes", WHOLE), d.maxRequestBytes());
        int eventBacklogBytes = or(section.wholeNumber("event-backlog-bytes", WHOLE), d.eventBacklogBytes());
        Duration requestTimeout = section.duration("request-timeout");
        if (top.errorCount() > before) {
            return null;
        }
        // HttpLimits names the keys in full in its messages.
        return top.check(() -> new HttpLimits(
                maxConnections,
                maxEventClients,
                requestTimeout == null ? d.requestTimeout() : requestTimeout,
                maxRequestBytes,
                eventBacklogBytes));
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
