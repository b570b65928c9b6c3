package io.bellwether.server.config;

import io.bellwether.NodeId;
import io.bellwether.state.GroupNames;
import java.util.List;

/** Reads who this node is: {@code cluster}, {@code node}, {@code algorithm} and {@code group}. */
final class IdentitySection {
    /** What the node id may be, for messages. */
    static final String NODE_ID_ALLOWED = "1-64 characters of letters, digits, '.', '_' and '-'";

    /**
     * Who this node is; a field is null after a problem with its key.
     *
     * @param cluster the cluster name
     * @param node this node's id
     * @param algorithm the election algorithm's name
     * @param group the election group's name
     */
    record Identity(String cluster, NodeId node, String algorithm, String group) {}

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
        return new Identity(cluster, node, algorithm, group);
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
