package io.bellwether;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The identity of one member of an election group. Ids are compared as strings; algorithms that rank
 * members (bully, ring, the quorum elector's successor choice) use this natural order.
 *
 * <p>An id is 1–64 characters of letters, digits, {@code .}, {@code _} and {@code -}.
 */
public record NodeId(String value) implements Comparable<NodeId> {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public NodeId {
        Objects.requireNonNull(value, "node id");
        if (!VALID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "node id '" + value + "' is invalid: use 1-64 characters of letters, digits, '.', '_' and '-'");
        }
    }

    public static NodeId of(String value) {
        return new NodeId(value);
    }

    @Override
    public int compareTo(NodeId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
