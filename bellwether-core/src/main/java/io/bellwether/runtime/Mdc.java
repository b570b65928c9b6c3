package io.bellwether.runtime;

import io.bellwether.ElectionMdc;
import io.bellwether.NodeId;
import org.slf4j.MDC;

/**
 * Puts an election's group and node into the SLF4J MDC ({@link ElectionMdc}): once for good on the threads the
 * election owns, around each task on threads it shares with others.
 */
final class Mdc {
    private Mdc() {}

    /** Sets the election's keys on the calling thread, for good: for threads the election owns. */
    static void put(String group, NodeId self) {
        MDC.put(ElectionMdc.GROUP, group);
        MDC.put(ElectionMdc.NODE, self.value());
    }

    /**
     * {@code task} with the election's keys set while it runs and the thread's previous values (or their absence)
     * restored afterwards: for threads the election does not own.
     */
    static Runnable around(String group, NodeId self, Runnable task) {
        return () -> {
            String previousGroup = MDC.get(ElectionMdc.GROUP);
            String previousNode = MDC.get(ElectionMdc.NODE);
            put(group, self);
            try {
                task.run();
            } finally {
                restore(ElectionMdc.GROUP, previousGroup);
                restore(ElectionMdc.NODE, previousNode);
            }
        };
    }

    private static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
