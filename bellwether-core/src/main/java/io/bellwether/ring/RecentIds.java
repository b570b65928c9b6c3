package io.bellwether.ring;

import io.bellwether.NodeId;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The last message ids seen from each sender, to drop duplicates by {@code (from, message id)}. Bounded per
 * sender: a duplicate (or a retransmission) arrives soon after the original.
 */
final class RecentIds {
    private static final int PER_SENDER = 128;

    private final Map<NodeId, LinkedHashSet<Long>> seen = new HashMap<>();

    /** Whether this is the first time {@code id} arrives from {@code from}; remembers it. */
    boolean firstTime(NodeId from, long id) {
        LinkedHashSet<Long> ids = seen.computeIfAbsent(from, k -> new LinkedHashSet<>());
        if (!ids.add(id)) {
            return false;
        }
        if (ids.size() > PER_SENDER) {
            ids.remove(ids.iterator().next());
        }
        return true;
    }
}
