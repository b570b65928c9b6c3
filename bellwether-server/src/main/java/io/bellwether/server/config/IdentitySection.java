package io.bellwether.server.config;

import io.bellwether.NodeId;
import io.bellwether.state.GroupNames;
import java.util.List;

/**
 * Reads who this node is: {@code cluster}, {@code node}, {@code algorithm}, and its election groups ({@code group}
 * or {@code groups}).
 */
final class IdentitySection {
    /** What the node id may be, for messages. */
    static final String NODE_ID_ALLOWED = "1-64 characters of letters, digits, '.', '_' and '-'";

    /**
     * Who this node is; a field is null after a problem with its key.
     *
     * @param cluster the cluster name
     * @param node this node's id
     * @param algorithm the election algorithm's name
     * @param group the election group's name: the only one, or with {@code groups} the first
     * @param groups every election group's name, in the order given; null after a problem
     */
    record Identity(String cluster, NodeId node, String algorithm, String group, List<String> groups) {}

    /** The most groups one node may host ({@code groups}). */
    static final int MAX_GROUPS = 10_000;

    /** The form of {@code groups}, for messages. */
    static final String GROUPS_ALLOWED = "a whole number of groups from 1 to " + MAX_GROUPS + " (named "
            + NodeConfig.COUNTED_GROUP_PREFIX + "0, " + NodeConfig.COUNTED_GROUP_PREFIX + "1, ...), or a list of 1 to "
            + MAX_GROUPS + " distinct group names, each " + GroupNames.ALLOWED;

    private IdentitySection() {}

    /**
     * Reads who this node is.
     *
     * @param algorithms the names {@code algorithm} may take
     * @param defaultAlgorithm the algorithm when none is named
     */
    static Identity read(ConfigValues top, List<String> algorithms, String defaultAlgorithm) {
        String cluster = top.requiredText("cluster", "a cluster name, " + GroupNames.ALLOWED);
        if (cluster != null) {
            String text = cluster;
            cluster = top.check(() -> GroupNames.check("cluster", text));
        }
        NodeId node = nodeId(top);
        String algorithm = top.has("algorithm") ? algorithm(top, algorithms) : defaultAlgorithm;
        String group = NodeConfig.DEFAULT_GROUP;
        if (top.has("group")) {
            String text = top.text("group", "an election group name, " + GroupNames.ALLOWED);
            group = text == null ? null : top.check(() -> GroupNames.check("group", text));
        }
        List<String> groups = group == null ? null : List.of(group);
        if (top.has("groups")) {
            if (top.has("group")) {
                top.error("group and groups are both given: allowed one of them (group names this node's only"
                        + " election group, groups several)");
                groups = null;
            } else {
                groups = groups(top);
            }
            group = groups == null ? null : groups.get(0);
        }
        return new Identity(cluster, node, algorithm, group, groups);
    }

    /** {@code groups}: a count or a list of names; null after a problem. */
    private static List<String> groups(ConfigValues top) {
        com.fasterxml.jackson.databind.JsonNode value = top.get("groups");
        if (value.isIntegralNumber()) {
            if (!value.canConvertToInt() || value.intValue() < 1 || value.intValue() > MAX_GROUPS) {
                top.invalid("groups", value, GROUPS_ALLOWED);
                return null;
            }
            List<String> names = new java.util.ArrayList<>(value.intValue());
            for (int i = 0; i < value.intValue(); i++) {
                names.add(NodeConfig.COUNTED_GROUP_PREFIX + i);
            }
            return List.copyOf(names);
        }
        if (!value.isArray() || value.isEmpty() || value.size() > MAX_GROUPS) {
            top.invalid("groups", value, GROUPS_ALLOWED);
            return null;
        }
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        boolean ok = true;
        for (int i = 0; i < value.size(); i++) {
            com.fasterxml.jackson.databind.JsonNode one = value.get(i);
            String key = "groups[" + i + "]";
            if (!one.isTextual()) {
                top.error(key + " = " + ConfigValues.shown(one) + " is invalid: allowed a group name, "
                        + GroupNames.ALLOWED);
                ok = false;
            } else if (top.check(() -> GroupNames.check(key, one.textValue())) == null) {
                ok = false;
            } else if (!names.add(one.textValue())) {
                top.error(key + " = '" + one.textValue() + "' is given twice: allowed each group once");
                ok = false;
            }
        }
        return ok ? List.copyOf(names) : null;
    }

    private static NodeId nodeId(ConfigValues top) {
        String text = top.requiredText("node", "this node's id, one of the ids under peers (or members)");
        if (text == null) {
            return null;
        }
        try {
            return NodeId.of(text);
        } catch (IllegalArgumentException e) {
            top.invalid("node", text, NODE_ID_ALLOWED);
            return null;
        }
    }

    /** {@code algorithm}, given: one of {@code algorithms}; null after a problem. */
    private static String algorithm(ConfigValues top, List<String> algorithms) {
        String name = top.text("algorithm", "one of " + String.join(", ", algorithms));
        if (name == null || algorithms.contains(name)) {
            return name;
        }
        String suggestion = DidYouMean.closest(name, algorithms)
                .map(s -> "did you mean '" + s + "'? ")
                .orElse("");
        top.error("algorithm = '" + name + "' is unknown: " + suggestion + "allowed " + String.join(", ", algorithms));
        return null;
    }
}
