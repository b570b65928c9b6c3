package io.bellwether.server.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.NodeId;
import io.bellwether.Role;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The monitors of every election group of one node, one {@link ElectionMonitor} per group, and what the status
 * server reads of them all: the node's status (for one group, that group's; for several, a summary), the list of
 * groups, the merged history and the readiness.
 *
 * <p>A node of one group answers exactly as it always has; one of several groups ({@code groups} in its
 * configuration) answers {@code /status} with a summary and each group's own document under {@code
 * /status?group=NAME}.
 *
 * <p>Thread-safe.
 */
public final class GroupMonitors implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How many changes the merged {@link #history()} of a node of several groups gives. */
    public static final int MERGED_HISTORY = ElectionMonitor.HISTORY;

    private final String cluster;
    private final String algorithm;
    private final List<NodeId> members;
    private final Map<String, ElectionMonitor> byName;
    private final List<ElectionMonitor> sorted;
    private final ElectionMonitor first;
    private final java.util.function.Supplier<Map<NodeId, PeerState>> peers;
    private final Map<String, java.util.function.Supplier<? extends com.fasterxml.jackson.databind.JsonNode>> sections =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    private final long startedNanos = System.nanoTime();

    /**
     * @param monitors every group's monitor, in the order configured (the first is the node's group when there is
     *     one); distinct groups, at least one
     * @param peers the connection state of each peer, as the monitors read it
     */
    public GroupMonitors(
            String cluster,
            String algorithm,
            List<NodeId> members,
            List<ElectionMonitor> monitors,
            java.util.function.Supplier<Map<NodeId, PeerState>> peers) {
        if (monitors.isEmpty()) {
            throw new IllegalArgumentException("monitors must hold at least one group's monitor");
        }
        this.cluster = cluster;
        this.algorithm = algorithm;
        this.members = List.copyOf(members);
        this.peers = peers;
        Map<String, ElectionMonitor> map = new LinkedHashMap<>();
        for (ElectionMonitor m : monitors) {
            if (map.put(m.group(), m) != null) {
                throw new IllegalArgumentException("group '" + m.group() + "' has two monitors");
            }
        }
        this.byName = java.util.Collections.unmodifiableMap(map);
        this.sorted = monitors.stream()
                .sorted(Comparator.comparing(ElectionMonitor::group))
                .toList();
        this.first = monitors.get(0);
    }

    /** The monitors of a node of one group, whose status is that group's. */
    public static GroupMonitors of(ElectionMonitor monitor) {
        return new GroupMonitors("", "", List.of(), List.of(monitor), monitor::peerStates);
    }

    /** Whether the node has one group only: its status is that group's, as on a node of one group. */
    public boolean single() {
        return byName.size() == 1;
    }

    /** The node's first (with one group, its only) group's monitor. */
    public ElectionMonitor first() {
        return first;
    }

    /** The monitor of {@code group}, if the node has it. */
    public Optional<ElectionMonitor> group(String group) {
        return Optional.ofNullable(byName.get(group));
    }

    /** Every group's monitor, in the order configured. */
    public Collection<ElectionMonitor> all() {
        return byName.values();
    }

    /** This node's id. */
    public NodeId node() {
        return first.node();
    }

    /** Starts every monitor. */
    public void start() {
        byName.values().forEach(ElectionMonitor::start);
    }

    /** Adds {@code subscriber} to every group's monitor (see {@link ElectionMonitor#subscribe}). */
    public void subscribe(Consumer<ElectionMonitor.Change> subscriber) {
        byName.values().forEach(m -> m.subscribe(subscriber));
    }

    public void unsubscribe(Consumer<ElectionMonitor.Change> subscriber) {
        byName.values().forEach(m -> m.unsubscribe(subscriber));
    }

    /**
     * Adds {@code key} to the status documents: each group's (see {@link ElectionMonitor#statusSection}), and on a
     * node of several groups the summary too.
     */
    public void statusSection(
            String key, java.util.function.Supplier<? extends com.fasterxml.jackson.databind.JsonNode> section) {
        byName.values().forEach(m -> m.statusSection(key, section));
        if (!single()) {
            sections.put(key, section);
        }
    }

    /**
     * A liveness probe of the election loop: the first group's. A node's groups share the runtime's threads (see
     * {@code io.bellwether.runtime.RuntimeThreads}), so one group's loop answering shows that they run.
     */
    public CompletionStage<Void> probeLoop() {
        return first.probeLoop();
    }

    /**
     * {@code GET /status}: the group's document on a node of one group; on a node of several, {@code {"node",
     * "cluster", "algorithm", "members", "peers", "groups": {"count", "leading", "following", "leaderless"},
     * "leaders": {member: groups it leads as this node knows}, "uptimeMs", sections...}}.
     */
    public ObjectNode status() {
        if (single()) {
            return first.status();
        }
        ObjectNode json = JSON.createObjectNode();
        json.put("node", node().value());
        json.put("cluster", cluster);
        json.put("algorithm", algorithm);
        members.forEach(m -> json.withArray("members").add(m.value()));
        ElectionMonitor.putPeers(json, peers.get());
        Map<String, Long> states = stateCounts();
        ObjectNode groups = json.putObject("groups");
        groups.put("count", byName.size());
        states.forEach(groups::put);
        ObjectNode leaders = json.putObject("leaders");
        Map<String, Long> byLeader = new TreeMap<>();
        members.forEach(m -> byLeader.put(m.value(), 0L));
        for (ElectionMonitor m : byName.values()) {
            m.snapshot().leader().ifPresent(l -> byLeader.merge(l.value(), 1L, Long::sum));
        }
        byLeader.forEach(leaders::put);
        json.put("uptimeMs", java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
        sections.forEach((key, section) -> json.set(key, section.get()));
        return json;
    }

    /**
     * How many groups this node leads ({@code leading}), follows a known leader in ({@code following}) and knows
     * no leader in ({@code leaderless}), every state present.
     */
    public Map<String, Long> stateCounts() {
        long leading = 0;
        long following = 0;
        long leaderless = 0;
        NodeId self = node();
        for (ElectionMonitor m : byName.values()) {
            ElectionMonitor.Snapshot s = m.snapshot();
            if (s.leader().isEmpty()) {
                leaderless++;
            } else if (s.role() == Role.LEADER && s.leader().get().equals(self)) {
                leading++;
            } else {
                following++;
            }
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("leading", leading);
        counts.put("following", following);
        counts.put("leaderless", leaderless);
        return counts;
    }

    /**
     * {@code GET /groups}: {@code {"node", "count", "groups": [{"group", "role", "epoch", "leader", "leaderSince"},
     * ...]}}, every group sorted by name.
     */
    public ObjectNode groups() {
        ObjectNode json = JSON.createObjectNode();
        json.put("node", node().value());
        json.put("count", sorted.size());
        ArrayNode list = json.putArray("groups");
        for (ElectionMonitor m : sorted) {
            ElectionMonitor.Snapshot s = m.snapshot();
            ObjectNode one = list.addObject();
            one.put("group", m.group());
            one.put("role", s.role().name());
            one.put("epoch", s.epoch());
            one.put("leader", s.leader().map(NodeId::value).orElse(null));
            one.put(
                    "leaderSince",
                    s.leaderSinceEpochMillis()
                            .map(ms -> Instant.ofEpochMilli(ms).toString())
                            .orElse(null));
        }
        return json;
    }

    /**
     * The latest changes of every group, oldest first: a node of one group's whole {@link ElectionMonitor#history()};
     * on a node of several, the latest {@value #MERGED_HISTORY} of all groups' changes, by time (each group keeps a
     * few, {@link ElectionMonitor#historyLimit}).
     */
    public List<ElectionMonitor.Change> history() {
        if (single()) {
            return first.history();
        }
        List<ElectionMonitor.Change> all = new ArrayList<>();
        byName.values().forEach(m -> all.addAll(m.history()));
        all.sort(Comparator.comparing(ElectionMonitor.Change::at));
        return List.copyOf(all.subList(Math.max(0, all.size() - MERGED_HISTORY), all.size()));
    }

    /** How many changes {@link #history()} gives at most. */
    public int historyLimit() {
        return single() ? ElectionMonitor.HISTORY : MERGED_HISTORY;
    }

    @Override
    public void close() {
        byName.values().forEach(ElectionMonitor::close);
    }
}
