package io.bellwether;

import java.util.Objects;

/**
 * The identity of one member of an election group. Ids are compared as strings; algorithms that rank
 * members (bully, ring, the quorum elector's successor choice) use this natural order.
 *
 * <p>An id is 1–64 characters of letters, digits, {@code .}, {@code _} and {@code -}.
 */
public record NodeId(String value) implements Comparable<NodeId> {
    public NodeId {
        Objects.requireNonNull(value, "node id");
        if (!isValid(value)) {
            throw new IllegalArgumentException(
                    "node id '" + value + "' is invalid: use 1-64 characters of letters, digits, '.', '_' and '-'");
        }
    }

    public static NodeId of(String value) {
        return new NodeId(value);
    }

    /**
     * Whether {@code s} is 1–64 characters of {@code [A-Za-z0-9._-]}. A loop rather than a regular expression: the
     * transport makes an id of every frame's sender.
     */
    public static boolean isValid(String s) {
        int n = s.length();
        if (n < 1 || n > 64) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!isIdChar(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code c} is one of {@code [A-Za-z0-9._-]}. */
    private static boolean isIdChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '.'
                || c == '_'
                || c == '-';
    }

    // Written out rather than generated: a record's generated equals and hashCode go through method handles,
    // which the quick (C1) compiler the node daemon runs with does not inline, and ids are map keys on every
    // message's path.
    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof NodeId other && value.equals(other.value));
    }

    @Override
    public int hashCode() {
        return value.hashCode();
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
