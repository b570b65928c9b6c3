package io.bellwether.elector;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What an elector needs to survive restarts: a few named counters (the quorum elector's term, the bully
 * elector's epoch counter, …). Immutable; keys are sorted so that the stored form is stable.
 *
 * @param values the counters by key, each key matching {@code [a-z][a-z0-9.-]{0,63}}; kept as a sorted,
 *     unmodifiable copy
 */
public record StoredState(Map<String, Long> values) {
    public static final StoredState EMPTY = new StoredState(Map.of());

    /** @throws IllegalArgumentException naming a key that does not match {@code [a-z][a-z0-9.-]{0,63}} */
    public StoredState {
        Objects.requireNonNull(values, "values");
        values.keySet().forEach(StoredState::checkKey);
        values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    /** The same as {@code new StoredState(values)}. */
    public static StoredState of(Map<String, Long> values) {
        return new StoredState(values);
    }

    /** The value of {@code key}, or {@code absent} if it was never stored. */
    public long get(String key, long absent) {
        Long v = values.get(key);
        return v == null ? absent : v;
    }

    /** A copy with {@code key} set to {@code value}. */
    public StoredState with(String key, long value) {
        checkKey(key);
        TreeMap<String, Long> copy = new TreeMap<>(values);
        copy.put(key, value);
        return new StoredState(copy);
    }

    private static void checkKey(String key) {
        if (key == null || !key.matches("[a-z][a-z0-9.-]{0,63}")) {
            throw new IllegalArgumentException("state key '" + key + "' is invalid: use [a-z][a-z0-9.-]{0,63}");
        }
    }

    /** The counters alone, as in {@code {counter=3, epoch=12}}. */
    @Override
    public String toString() {
        return values.toString();
    }
}
