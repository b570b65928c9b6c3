package io.bellwether.server.report;

import io.bellwether.Role;
import io.bellwether.sim.HistoryEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who held which role when, reconstructed from one run's history: one lane per node made of role spans, and
 * the network-wide fault events (history entries whose node is {@code "-"}).
 *
 * <p>The history format is the simulator's, meant for people; role changes are read from entries whose event
 * is {@code role} by finding a role name in the detail (after the last {@code ->} when there is one), and a
 * crash or stop of a node ends its current span.
 */
public final class Timeline {
    /** A node's role from {@code startNanos} (inclusive) to {@code endNanos} (exclusive). {@code down} = crashed. */
    public record Span(long startNanos, long endNanos, Role role, long epoch, boolean down) {}

    /** A network-wide event such as a partition, drawn as a marker across all lanes. */
    public record Marker(long timeNanos, String event, String detail) {}

    private static final Pattern ROLE = Pattern.compile("\\b(DORMANT|FOLLOWER|CANDIDATE|LEADER)\\b");
    private static final Set<String> ROLE_EVENTS = Set.of("role", "announce");
    private static final Set<String> DOWN_EVENTS = Set.of("crash", "silent-crash", "stop", "crashed", "stopped");

    private final Map<String, List<Span>> lanes;
    private final List<Marker> markers;
    private final long endNanos;

    private Timeline(Map<String, List<Span>> lanes, List<Marker> markers, long endNanos) {
        this.lanes = lanes;
        this.markers = markers;
        this.endNanos = endNanos;
    }

    /** Builds the timeline of a history (entries in time order, as the simulator records them). */
    public static Timeline of(List<HistoryEntry> history) {
        long end = 1;
        List<String> names = new ArrayList<>();
        for (HistoryEntry entry : history) {
            end = Math.max(end, entry.timeNanos());
            if (!entry.node().equals("-") && !names.contains(entry.node())) {
                names.add(entry.node());
            }
        }
        names.sort(Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder()));

        Map<String, List<Span>> lanes = new LinkedHashMap<>();
        Map<String, Open> open = new LinkedHashMap<>();
        for (String name : names) {
            lanes.put(name, new ArrayList<>());
        }
        List<Marker> markers = new ArrayList<>();
        for (HistoryEntry entry : history) {
            String node = entry.node();
            String event = entry.event();
            if (node.equals("-")) {
                markers.add(new Marker(entry.timeNanos(), event, entry.detail()));
                if (DOWN_EVENTS.contains(event)) {
                    // A crash recorded as a network-wide fault names its node in the detail.
                    for (String name : names) {
                        if (Pattern.compile("\\b" + Pattern.quote(name) + "\\b")
                                .matcher(entry.detail())
                                .find()) {
                            switchTo(lanes, open, name, entry.timeNanos(), new Open(entry.timeNanos(), null, 0, true));
                        }
                    }
                }
            } else if (ROLE_EVENTS.contains(event)) {
                Optional<Role> role = parseRole(entry.detail());
                if (role.isPresent()) {
                    switchTo(
                            lanes,
                            open,
                            node,
                            entry.timeNanos(),
                            new Open(entry.timeNanos(), role.get(), entry.epoch(), false));
                }
            } else if (DOWN_EVENTS.contains(event)) {
                switchTo(lanes, open, node, entry.timeNanos(), new Open(entry.timeNanos(), null, entry.epoch(), true));
            }
        }
        for (Map.Entry<String, Open> e : open.entrySet()) {
            close(lanes.get(e.getKey()), e.getValue(), end);
        }
        return new Timeline(lanes, markers, end);
    }

    /** The role named in a role-change detail: the first after the last {@code ->}, else the first. */
    static Optional<Role> parseRole(String detail) {
        int arrow = detail.lastIndexOf("->");
        String tail = arrow >= 0 ? detail.substring(arrow + 2) : detail;
        Matcher m = ROLE.matcher(tail);
        if (m.find()) {
            return Optional.of(Role.valueOf(m.group(1)));
        }
        m = ROLE.matcher(detail);
        return m.find() ? Optional.of(Role.valueOf(m.group(1))) : Optional.empty();
    }

    private record Open(long startNanos, Role role, long epoch, boolean down) {}

    private static void switchTo(
            Map<String, List<Span>> lanes, Map<String, Open> open, String node, long time, Open next) {
        Open previous = open.put(node, next);
        if (previous != null) {
            close(lanes.get(node), previous, time);
        }
    }

    private static void close(List<Span> lane, Open span, long endNanos) {
        if (endNanos > span.startNanos() && (span.down() || span.role() != Role.DORMANT)) {
            lane.add(new Span(span.startNanos(), endNanos, span.role(), span.epoch(), span.down()));
        }
    }

    /** Node name → its spans in time order; nodes in natural order (n2 before n10). */
    public Map<String, List<Span>> lanes() {
        return lanes;
    }

    public List<Marker> markers() {
        return markers;
    }

    /** The time of the last history entry. */
    public long endNanos() {
        return endNanos;
    }
}
