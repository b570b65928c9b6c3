package io.bellwether.sim;

/**
 * One line of a simulated history.
 *
 * @param timeNanos true (simulated) time since the start of the run
 * @param node the node it happened at, or {@code "-"} for network-wide events (faults)
 * @param event a short event name: {@code role}, {@code send}, {@code recv}, {@code crash}, {@code partition}, …
 * @param epoch the node's epoch after the event (0 where it does not apply)
 * @param detail a human-readable detail
 */
public record HistoryEntry(long timeNanos, String node, String event, long epoch, String detail) {
    @Override
    public String toString() {
        return String.format("%10.3fms %-4s %-10s e=%-4d %s", timeNanos / 1e6, node, event, epoch, detail);
    }
}
