package io.bellwether.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.bellwether.server.http.HttpLimits;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

/** Reads the {@code http-limits} section: what one HTTP client may take from the node (see {@link HttpLimits}). */
final class HttpLimitsSection {
    static final String KEY = "http-limits";
    static final List<String> KEYS = List.of(
            "max-connections", "max-event-clients", "request-timeout", "max-request-bytes", "event-backlog-bytes");

    private HttpLimitsSection() {}

    /** The limits, defaults for what is not given; null after adding an error to {@code errors}. */
    static HttpLimits read(JsonNode section, List<String> errors) {
        if (section == null || section.isNull()) {
            return HttpLimits.DEFAULTS;
        }
        if (!section.isObject()) {
            errors.add(KEY + " = '" + section.asText() + "' is invalid: allowed a mapping of " + String.join(", ", KEYS)
                    + " (see docs/configuration.md)");
            return null;
        }
        int before = errors.size();
        for (Iterator<String> it = section.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                String suggestion = DidYouMean.closest(key, KEYS)
                        .map(s -> "did you mean '" + KEY + "." + s + "'? ")
                        .orElse("");
                errors.add(
                        "unknown key '" + KEY + "." + key + "': " + suggestion + "allowed " + String.join(", ", KEYS));
            }
        }
        HttpLimits d = HttpLimits.DEFAULTS;
        int maxConnections = whole(section, "max-connections", d.maxConnections(), errors);
        int maxEventClients = whole(section, "max-event-clients", d.maxEventClients(), errors);
        int maxRequestBytes = whole(section, "max-request-bytes", d.maxRequestBytes(), errors);
        int eventBacklogBytes = whole(section, "event-backlog-bytes", d.eventBacklogBytes(), errors);
        Duration requestTimeout = d.requestTimeout();
        if (section.has("request-timeout")) {
            JsonNode value = section.get("request-timeout");
            try {
                requestTimeout = Durations.parse(
                        KEY + ".request-timeout", value.isValueNode() ? value.asText() : value.toString());
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        if (errors.size() > before) {
            return null;
        }
        try {
            return new HttpLimits(maxConnections, maxEventClients, requestTimeout, maxRequestBytes, eventBacklogBytes);
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return null;
        }
    }

    private static int whole(JsonNode section, String key, int fallback, List<String> errors) {
        if (!section.has(key)) {
            return fallback;
        }
        JsonNode value = section.get(key);
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            errors.add(KEY + "." + key + " = '" + (value.isValueNode() ? value.asText() : value.toString())
                    + "' is invalid: allowed a whole number (see docs/configuration.md for its range)");
            return fallback;
        }
        return value.intValue();
    }
}
