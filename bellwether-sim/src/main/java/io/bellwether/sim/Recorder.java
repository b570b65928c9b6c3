package io.bellwether.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Records a run's history cheaply: every entry goes into a fixed ring of primitive columns, and strings are
 * built only when the whole history is kept or when a violation needs an excerpt.
 */
final class Recorder {
    static final int NETWORK = -1;
    /** Events at one node that change what every node can reach: shown in every excerpt. */
    private static final java.util.Set<String> FAULTS =
            java.util.Set.of("crash", "silent-crash", "stop", "restart", "pause", "resume");

    private final int capacity;
    private static final int MAX_EXCERPT = 40;

    private final String[] nodeNames;
    private final long[] times;
    private final int[] nodes;
    private final int[] peers;
    private final String[] events;
    private final long[] epochs;
    private final Object[] details;
    private long count;
    private final List<HistoryEntry> full;

    Recorder(String[] nodeNames, boolean keepAll, int capacity) {
        this.nodeNames = nodeNames;
        this.capacity = capacity;
        this.times = new long[capacity];
        this.nodes = new int[capacity];
        this.peers = new int[capacity];
        this.events = new String[capacity];
        this.epochs = new long[capacity];
        this.details = new Object[capacity];
        this.full = keepAll ? new ArrayList<>() : null;
    }

    /**
     * Adds an entry. {@code peer} is the other node of a send or receive (-1 if none); {@code detail} is turned
     * into text only when needed.
     */
    void add(long time, int node, String event, long epoch, int peer, Object detail) {
        int slot = (int) (count++ % capacity);
        times[slot] = time;
        nodes[slot] = node;
        peers[slot] = peer;
        events[slot] = event;
        epochs[slot] = epoch;
        details[slot] = detail;
        if (full != null) {
            full.add(materialise(slot));
        }
    }

    List<HistoryEntry> history() {
        return full == null ? List.of() : full;
    }

    /**
     * At most 40 recent entries that concern one of {@code involved} nodes or the whole network, in order:
     * the shortest context that shows how those nodes got where they are. Faults, role changes, persists and
     * timers are kept in preference to messages, which are the bulk of a history and mostly routine.
     */
    List<HistoryEntry> excerpt(int[] involved) {
        long oldest = Math.max(0, count - capacity);
        List<Long> important = new ArrayList<>();
        List<Long> messages = new ArrayList<>();
        for (long i = count - 1;
                i >= oldest && important.size() < MAX_EXCERPT && messages.size() < 4 * MAX_EXCERPT;
                i--) {
            int slot = (int) (i % capacity);
            if (concerns(slot, involved)) {
                String event = events[slot];
                (event.equals("send") || event.equals("recv") ? messages : important).add(i);
            }
        }
        List<Long> picked = new ArrayList<>(important);
        for (int k = 0; k < messages.size() && picked.size() < MAX_EXCERPT; k++) {
            picked.add(messages.get(k));
        }
        picked.sort(null);
        List<HistoryEntry> out = new ArrayList<>(picked.size());
        for (long i : picked) {
            out.add(materialise((int) (i % capacity)));
        }
        return out;
    }

    private boolean concerns(int slot, int[] involved) {
        int node = nodes[slot];
        if (node == NETWORK || FAULTS.contains(events[slot])) {
            return true;
        }
        for (int n : involved) {
            if (n == node) {
                return true;
            }
        }
        return false;
    }

    private HistoryEntry materialise(int slot) {
        int node = nodes[slot];
        String event = events[slot];
        Object detail = details[slot];
        String text;
        int peer = peers[slot];
        if (peer >= 0) {
            String direction = event.equals("recv") || event.startsWith("drop") ? "from " : "to ";
            text = direction + nodeNames[peer] + (detail == null ? "" : " " + detail);
        } else {
            text = detail == null ? "" : detail.toString();
        }
        return new HistoryEntry(times[slot], node == NETWORK ? "-" : nodeNames[node], event, epochs[slot], text);
    }
}
