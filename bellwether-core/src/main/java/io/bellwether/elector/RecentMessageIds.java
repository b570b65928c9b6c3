package io.bellwether.elector;

import io.bellwether.NodeId;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The last message ids seen from each sender, for algorithms that drop duplicates by {@code (from, message
 * id)} (bully, ring, invitation). Bounded per sender: a duplicate or a retransmission arrives soon after the
 * original, never after a window's worth of later messages. Not thread-safe, like the electors that use it.
 */
public final class RecentMessageIds {
    private final int perSender;
    private final Map<NodeId, LinkedHashSet<Long>> seen = new HashMap<>();

    /** @param perSender how many ids to remember per sender, at least 1 */
    public RecentMessageIds(int perSender) {
        if (perSender < 1) {
            throw new IllegalArgumentException("perSender must be at least 1, was " + perSender);
        }
        this.perSender = perSender;
    }

    /** Whether this is the first time {@code id} arrives from {@code from}; remembers it either way. */
    public boolean firstTime(NodeId from, long id) {
        LinkedHashSet<Long> ids = seen.computeIfAbsent(from, k -> new LinkedHashSet<>());
        if (!ids.add(id)) {
            return false;
        }
        if (ids.size() > perSender) {
            Iterator<Long> oldest = ids.iterator();
            oldest.next();
            oldest.remove();
        }
        return true;
    }
}
