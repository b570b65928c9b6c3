package io.bellwether.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.NodeAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The values of one YAML mapping of a configuration file (the top level, or a section such as {@code quorum:}),
 * read by type. Every read names the key with its section's prefix ({@code quorum.heartbeat-interval}) and, when
 * the value is not allowed, adds one problem of the form {@code <key> = '<value>' is invalid: allowed <what>} to
 * the list every section of the file shares, so that one run reports every problem. A read that fails returns
 * null; an absent key also reads as null, without a problem, unless it is required.
 */
final class ConfigValues {
    /** What the sections of one file share: its problems, its directory, and which keys each level has. */
    private static final class File {
        final List<String> errors = new ArrayList<>();
        final Path baseDir;
        final Map<String, List<String>> levels;
        final String preferredSection;

        File(Path baseDir, Map<String, List<String>> levels, String preferredSection) {
            this.baseDir = baseDir;
            this.levels = levels;
            this.preferredSection = preferredSection;
        }
    }

    private final ObjectNode node;
    private final String prefix;
    private final File file;

    private ConfigValues(ObjectNode node, String prefix, File file) {
        this.node = node;
        this.prefix = prefix;
        this.file = file;
    }

    /**
     * The top level of a file.
     *
     * @param baseDir what relative paths are resolved against
     * @param levels the keys of every level that is a section, the top level as {@code ""}: where a misplaced key
     *     is looked up
     * @param preferredSection the section a misplaced key most likely belongs in (the configured algorithm's)
     */
    static ConfigValues top(ObjectNode root, Path baseDir, Map<String, List<String>> levels, String preferredSection) {
        return new ConfigValues(root, "", new File(baseDir, levels, preferredSection));
    }

    /** Every problem found so far in the file, in the order found. */
    List<String> errors() {
        return file.errors;
    }

    /** How many problems the file has so far: a reader compares it before and after to see whether it added one. */
    int errorCount() {
        return file.errors.size();
    }

    /**
     * Takes out the problems added since the count was {@code mark}, for a reader that reports them in an order of
     * its own.
     */
    List<String> takeErrorsSince(int mark) {
        List<String> since = file.errors.subList(mark, file.errors.size());
        List<String> taken = List.copyOf(since);
        since.clear();
        return taken;
    }

    /** Adds a problem, worded by the caller. */
    void error(String message) {
        file.errors.add(message);
    }

    /** Whether {@code key} is given, if only as null. */
    boolean has(String key) {
        return node.has(key);
    }

    /** Whether {@code key} is given with a value other than null. */
    boolean given(String key) {
        return node.has(key) && !node.get(key).isNull();
    }

    /** The raw value of {@code key}; null if absent. */
    JsonNode get(String key) {
        return node.get(key);
    }

    /** The key as messages name it, with its section: {@code quorum.heartbeat-interval}. */
    String name(String key) {
        return prefix + key;
    }

    /** Adds {@code <key> = '<value>' is invalid: allowed <allowed>}. */
    void invalid(String key, JsonNode value, String allowed) {
        invalid(key, shown(value), allowed);
    }

    /** Adds {@code <key> = '<text>' is invalid: allowed <allowed>}. */
    void invalid(String key, String text, String allowed) {
        error(name(key) + " = '" + text + "' is invalid: allowed " + allowed);
    }

    /** A value as messages show it: a single value as written, a mapping or a list as JSON. */
    static String shown(JsonNode value) {
        return value == null ? "" : value.isValueNode() ? value.asText() : value.toString();
    }

    // ------------------------------------------------------------------ sections

    /**
     * The mapping under {@code key} as a section of its own (an empty one if the key is absent), or null after a
     * problem if the value is not a mapping.
     *
     * @param allowed what is allowed instead, for the message
     */
    ConfigValues section(String key, String allowed) {
        JsonNode value = node.get(key);
        if (value == null) {
            return new ConfigValues(JsonNodeFactory.instance.objectNode(), name(key) + ".", file);
        }
        if (!value.isObject()) {
            invalid(key, value, allowed);
            return null;
        }
        return new ConfigValues((ObjectNode) value, name(key) + ".", file);
    }

    /** Whether this mapping has no keys. */
    boolean isEmpty() {
        return node.isEmpty();
    }

    /** The keys given, in the file's order. */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /**
     * Adds a problem for every key not in {@code allowed}, suggesting where it belongs when another section has it
     * (a key at the wrong level is likelier than a misspelt one), else the closest allowed key.
     */
    void unknownKeys(List<String> allowed) {
        unknownKeys(allowed, false);
    }

    /**
     * As {@link #unknownKeys(List)}; {@code brief} leaves the value and the election-timeout hint out of the
     * message, as the {@code http-limits} section always has.
     */
    void unknownKeys(List<String> allowed, boolean brief) {
        String here = prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (allowed.contains(key)) {
                continue;
            }
            // Only levels that are sections are looked at (not peers.<id>).
            List<String> homes = file.levels.containsKey(here)
                    ? DidYouMean.elsewhere(key, file.levels, here, file.preferredSection)
                    : List.of();
            String suggestion = !homes.isEmpty()
                    ? "did you mean '" + homes.get(0) + "'? (" + key + " belongs "
                            + (homes.get(0).equals(key) ? "at the top level" : "under " + section(homes.get(0)) + ":")
                            + (homes.size() > 1
                                    ? "; also valid as " + String.join(", ", homes.subList(1, homes.size()))
                                    : "")
                            + ") "
                    : DidYouMean.closest(key, allowed)
                            .map(s -> "did you mean '" + prefix + s + "'? ")
                            .orElse("");
            String hint = !brief && key.equals("election-timeout")
                    ? " (the election timeout is heartbeat-interval × missed-heartbeats)"
                    : "";
            error("unknown key '" + prefix + key + "'" + (brief ? "" : shownValue(key, node.get(key))) + ": "
                    + suggestion + "allowed " + String.join(", ", allowed) + hint);
        }
    }

    private static String section(String qualified) {
        return qualified.substring(0, qualified.indexOf('.'));
    }

    /** {@code " = 'value'"} for a single value, hiding what may be a credential; nothing for a mapping or list. */
    private static String shownValue(String key, JsonNode value) {
        if (value == null || !value.isValueNode()) {
            return "";
        }
        String lower = key.toLowerCase(Locale.ROOT);
        if (lower.contains("secret") || lower.contains("password")) {
            return " = (not shown)";
        }
        String text = value.asText();
        return " = '" + (lower.contains("store") || lower.contains("url") ? LeaseSettings.redact(text) : text) + "'";
    }

    // ------------------------------------------------------------------ typed values

    /**
     * The text of {@code key}, which must be a single value; null if absent, or after a problem naming
     * {@code allowed} if it is null, a mapping or a list.
     */
    String text(String key, String allowed) {
        JsonNode value = node.get(key);
        if (value == null) {
            return null;
        }
        if (!value.isValueNode() || value.isNull()) {
            invalid(key, value.toString(), allowed);
            return null;
        }
        return value.asText();
    }

    /** As {@link #text}, with {@code <key> is missing: <what>} when absent or null. */
    String requiredText(String key, String what) {
        if (!given(key)) {
            error(name(key) + " is missing: " + what);
            return null;
        }
        return text(key, what);
    }

    /** A duration ({@code 100ms}, {@code 2s}); null if absent or malformed. */
    Duration duration(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return null;
        }
        try {
            return Durations.parse(name(key), shown(value));
        } catch (IllegalArgumentException e) {
            error(e.getMessage());
            return null;
        }
    }

    /**
     * A duration that must be a single value from {@code min} to {@code max}; {@code fallback} when absent or
     * malformed.
     *
     * @param allowed what is allowed, for a value that is not a single value
     */
    Duration duration(String key, Duration fallback, Duration min, Duration max, String allowed) {
        String text = text(key, allowed);
        if (text == null) {
            return fallback;
        }
        try {
            Duration d = Durations.parse(name(key), text);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                error(name(key) + " = '" + text + "' is out of range: allowed " + Durations.format(min) + " to "
                        + Durations.format(max));
            }
            return d;
        } catch (IllegalArgumentException e) {
            error(e.getMessage());
            return fallback;
        }
    }

    /** A whole number; null if absent, or after a problem naming {@code allowed} if it is not one. */
    Integer wholeNumber(String key, String allowed) {
        JsonNode value = node.get(key);
        if (value == null) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            invalid(key, value, allowed);
            return null;
        }
        return value.intValue();
    }

    /**
     * A number from {@code min} to {@code max}, its fraction dropped ({@code max-frame-bytes} has always taken
     * {@code 2048.5} as 2048); {@code fallback} when absent or not allowed.
     */
    int wholeNumber(String key, int fallback, int min, int max) {
        JsonNode value = node.get(key);
        if (value == null) {
            return fallback;
        }
        if (!value.canConvertToInt() || value.intValue() < min || value.intValue() > max) {
            invalid(key, value, "a whole number from " + min + " to " + max);
            return fallback;
        }
        return value.intValue();
    }

    /** A number, whole or not; null if absent, or after a problem naming {@code allowed} if it is not one. */
    Double decimal(String key, String allowed) {
        JsonNode value = node.get(key);
        if (value == null) {
            return null;
        }
        if (!value.isNumber()) {
            invalid(key, value, allowed);
            return null;
        }
        return value.doubleValue();
    }

    /** {@code true} or {@code false}; null if absent or neither. */
    Boolean bool(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return null;
        }
        if (!value.isBoolean()) {
            invalid(key, value, "true or false");
            return null;
        }
        return value.booleanValue();
    }

    /** A {@code host:port}; null if absent (a problem if {@code required}) or not an address. */
    NodeAddress address(String key, boolean required) {
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            if (required) {
                error(name(key) + " is missing: allowed host:port, e.g. 127.0.0.1:7101");
            }
            return null;
        }
        if (!value.isValueNode()) {
            invalid(key, value, "host:port, e.g. 127.0.0.1:7101");
            return null;
        }
        String text = value.asText();
        try {
            return NodeAddress.parse(text);
        } catch (IllegalArgumentException e) {
            error(name(key) + " = '" + text + "' is not an address: allowed host:port with a port from 1 to 65535,"
                    + " e.g. 127.0.0.1:7101 or [::1]:7101");
            return null;
        }
    }

    /** A readable PEM file, resolved against the file's directory; null if absent (a problem if required). */
    Path pemFile(String key, boolean required) {
        JsonNode value = node.get(key);
        if (value == null) {
            if (required) {
                error(name(key) + " is missing: allowed the path of a PEM file");
            }
            return null;
        }
        String text = value.asText();
        Path path = path(text);
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            error(name(key) + " = '" + text + "' is not a readable file: allowed the path of a PEM file");
            return null;
        }
        return path;
    }

    /** {@code text} as a path, a relative one resolved against the configuration file's directory. */
    Path path(String text) {
        Path path = Path.of(text);
        return path.isAbsolute() ? path : file.baseDir.resolve(path).normalize();
    }

    /**
     * The items of a non-empty list; null if absent, or after a problem naming {@code allowed} if it is not a
     * non-empty list.
     */
    List<JsonNode> list(String key, String allowed) {
        JsonNode value = node.get(key);
        if (value == null) {
            return null;
        }
        if (!value.isArray() || value.isEmpty()) {
            invalid(key, value, allowed);
            return null;
        }
        List<JsonNode> items = new ArrayList<>();
        value.forEach(items::add);
        return items;
    }

    // ------------------------------------------------------------------ checks by others

    /** Runs a check whose {@link IllegalArgumentException} names the key in full; null after adding its message. */
    <T> T check(Supplier<T> validation) {
        try {
            return validation.get();
        } catch (IllegalArgumentException e) {
            error(e.getMessage());
            return null;
        }
    }

    /** Hands {@code value}, if read, to {@code setter} through {@link #apply}. */
    <T> void set(T value, java.util.function.Consumer<T> setter) {
        if (value != null) {
            apply(() -> setter.accept(value));
        }
    }

    /**
     * Hands a value to a builder whose {@link IllegalArgumentException} names the bare key; its message gets this
     * section's prefix. False after a problem.
     */
    boolean apply(Runnable setter) {
        return build(() -> {
                    setter.run();
                    return true;
                })
                != null;
    }

    /** Builds a section's value with a builder that names the bare key; null after a problem, as {@link #apply}. */
    <T> T build(Supplier<T> builder) {
        try {
            return builder.get();
        } catch (IllegalArgumentException e) {
            error(prefix + e.getMessage());
            return null;
        }
    }
}
