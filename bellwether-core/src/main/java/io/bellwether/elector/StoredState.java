package io.bellwether.elector;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What an elector needs to survive restarts: a few named counters (the quorum elector's term, the bully
 * elector's epoch counter, …). Immutable; keys are sorted so that the stored form is stable.
 */
public final class StoredState {
    public static final StoredState EMPTY = new StoredState(Map.of());

    private final Map<String, Long> values;

    private StoredState(Map<String, Long> values) {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    public static StoredState of(Map<String, Long> values) {
        Objects.requireNonNull(values, "values");
        values.keySet().forEach(StoredState::checkKey);
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

    public Map<String, Long> values() {
        return values;
    }

    private static void checkKey(String key) {
        if (key == null || !key.matches("[a-z][a-z0-9.-]{0,63}")) {
            throw new IllegalArgumentException("state key '" + key + "' is invalid: use [a-z][a-z0-9.-]{0,63}");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredState other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
