package io.bellwether.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.server.node.ElectionMonitor;
import io.bellwether.server.node.PeerState;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@code /healthz} and {@code /readyz} answer, for orchestrators' probes.
 *
 * <ul>
 *   <li><b>Live</b> ({@code /healthz}): the election's event loop ran a probe task within {@link
 *       #LOOP_PROBE_TIMEOUT}. A node whose loop is stuck or dead is not live, and should be restarted.
 *   <li><b>Ready</b> ({@code /readyz}): the node leads (with a valid leadership), or knows a leader other than
 *       itself and, where peer connections are tracked, is connected to it.
 * </ul>
 */
final class Health {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How long {@code /healthz} waits for the election's loop. */
    static final Duration LOOP_PROBE_TIMEOUT = Duration.ofSeconds(1);

    private Health() {}

    /** How many groups that are not ready a node of several groups names in its readiness's reason. */
    static final int NAMED_NOT_READY = 3;

    /**
     * A node of one group: that group's readiness ({@link #readiness(ElectionMonitor, Map)}). A node of several:
     * ready when every group is, {@code {"node", "ready", "reason", "groups": {"count", "ready", "notReady"}}}, the
     * reason naming the first few groups that are not ready (by name) and why.
     */
    static ObjectNode readiness(io.bellwether.server.node.GroupMonitors monitors) {
        java.util.Map<NodeId, io.bellwether.server.node.PeerState> peers =
                monitors.first().peerStates();
        if (monitors.single()) {
            return readiness(monitors.first(), peers);
        }
        java.util.TreeMap<String, String> notReady = new java.util.TreeMap<>();
        int count = 0;
        for (ElectionMonitor m : monitors.all()) {
            count++;
            Verdict one = verdict(m, m.snapshot(), peers);
            if (!one.ready()) {
                notReady.put(m.group(), one.reason());
            }
        }
        ObjectNode json = JSON.createObjectNode();
        json.put("node", monitors.node().value());
        json.put("ready", notReady.isEmpty());
        if (notReady.isEmpty()) {
            json.put("reason", "every group (" + count + ") has a leader");
        } else {
            StringBuilder reason = new StringBuilder(notReady.size() + " of " + count + " groups not ready: ");
            int named = 0;
            for (java.util.Map.Entry<String, String> e : notReady.entrySet()) {
                if (named == NAMED_NOT_READY) {
                    reason.append(", ...");
                    break;
                }
                reason.append(named == 0 ? "" : ", ")
                        .append(e.getKey())
                        .append(" (")
                        .append(e.getValue())
                        .append(')');
                named++;
            }
            json.put("reason", reason.toString());
        }
        ObjectNode groups = json.putObject("groups");
        groups.put("count", count);
        groups.put("ready", count - notReady.size());
        groups.put("notReady", notReady.size());
        return json;
    }

    /** {@code {"ready": …, "reason": …, "role", "epoch", "leader"}}. */
    static ObjectNode readiness(ElectionMonitor monitor) {
        return readiness(monitor, monitor.peerStates());
    }

    /** As {@link #readiness(ElectionMonitor)}, with the peers' connection states read once for many groups. */
    static ObjectNode readiness(
            ElectionMonitor monitor, java.util.Map<NodeId, io.bellwether.server.node.PeerState> peers) {
        ElectionMonitor.Snapshot s = monitor.snapshot();
        Verdict verdict = verdict(monitor, s, peers);
        Optional<NodeId> leader = s.leader();
        ObjectNode json = JSON.createObjectNode();
        json.put("node", monitor.node().value());
        json.put("ready", verdict.ready());
        json.put("reason", verdict.reason());
        json.put("role", s.role().name());
        json.put("epoch", s.epoch());
        json.put("leader", leader.map(NodeId::value).orElse(null));
        return json;
    }

    /** Whether one group is ready, and why (or why not). */
    private record Verdict(boolean ready, String reason) {}

    /** The readiness of the group {@code monitor} watches, as it knew it in {@code s}. */
    private static Verdict verdict(
            ElectionMonitor monitor,
            ElectionMonitor.Snapshot s,
            java.util.Map<NodeId, io.bellwether.server.node.PeerState> peers) {
        Optional<NodeId> leader = s.leader();
        if (s.role() == Role.LEADER) {
            boolean valid = monitor.holdsLeadership();
            return new Verdict(valid, valid ? "leader" : "leader without a valid leadership");
        }
        if (leader.isEmpty()) {
            return new Verdict(false, "no leader known (" + s.role().name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
        if (leader.get().equals(monitor.node())) {
            return new Verdict(false, "named leader but not leading yet");
        }
        PeerState peer = peers.get(leader.get());
        if (peer != null && !"CONNECTED".equals(peer.state())) {
            return new Verdict(false, "leader " + leader.get() + " known but not connected (" + peer.state() + ")");
        }
        return new Verdict(true, "following " + leader.get());
    }

    static ObjectNode liveness(NodeId self, boolean alive, String reason) {
        ObjectNode json = JSON.createObjectNode();
        json.put("node", self.value());
        json.put("alive", alive);
        json.put("reason", reason);
        return json;
    }
}
