package io.bellwether.invitation;

import io.bellwether.NodeId;
import io.bellwether.elector.Counters;
import java.util.Comparator;
import java.util.Objects;

/**
 * The number of one group of the invitation algorithm: {@code (counter, coordinator)}. Only the coordinator
 * creates a number with its own id, and it picks a counter above every counter it has persisted, so a number
 * is never created twice, across restarts too. Numbers are ordered by counter, then by coordinator id.
 *
 * @param counter 1 or more; persisted by the creator before the number is announced or sent
 * @param coordinator the member that created the group and coordinates it
 */
public record GroupNumber(long counter, NodeId coordinator) implements Comparable<GroupNumber> {
    /** The largest counter: {@code Counters.LIMIT − 1} ({@code 2^47 − 1}), the most an epoch can encode. */
    public static final long MAX_COUNTER = Counters.LIMIT - 1;

    private static final Comparator<GroupNumber> ORDER =
            Comparator.comparingLong(GroupNumber::counter).thenComparing(GroupNumber::coordinator);

    public GroupNumber {
        Objects.requireNonNull(coordinator, "coordinator");
        if (counter < 0 || counter > MAX_COUNTER) {
            throw new IllegalArgumentException(
                    "group counter " + counter + " is out of range: allowed 0 to " + MAX_COUNTER);
        }
    }

    @Override
    public int compareTo(GroupNumber other) {
        return ORDER.compare(this, other);
    }

    /** Whether this number is strictly above {@code other}. */
    public boolean isAbove(GroupNumber other) {
        return compareTo(other) > 0;
    }

    @Override
    public String toString() {
        return "(" + counter + ", " + coordinator + ")";
    }
}
