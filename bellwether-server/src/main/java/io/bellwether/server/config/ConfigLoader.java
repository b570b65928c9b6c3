package io.bellwether.server.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.ring.RingConfig;
import io.bellwether.state.GroupNames;
import io.bellwether.transport.tcp.PeerResolver;
import io.bellwether.transport.tcp.TcpTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Reads and validates a node's YAML configuration file. Validation does not stop at the first problem: a
 * {@link ConfigException} lists every problem found, each naming the key, the value and what is allowed.
 *
 * <p>Relative paths ({@code secret-file}, {@code state-dir}, {@code tls.*}) are resolved against the directory
 * of the configuration file.
 */
public final class ConfigLoader {
    /** The algorithms that can run now. */
    public static final List<String> AVAILABLE_ALGORITHMS = List.of("quorum", "bully", "ring", "invitation", "lease");

    /** The classic algorithms, each with an optional section of its own timings named like it. */
    public static final List<String> CLASSIC_ALGORITHMS = List.of("bully", "ring", "invitation");

    static final int MIN_SECRET_BYTES = 16;
    static final int MIN_FRAME_BYTES = 1024;
    static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;

    private static final List<String> TOP_KEYS = List.of(
            "cluster",
            "node",
            "algorithm",
            "group",
            "listen",
            "http",
            "peers",
            "peers-dns",
            "members",
            "peers-dns-interval",
            "secret",
            "secret-file",
            "insecure",
            "state-dir",
            "tls",
            "max-frame-bytes",
            "handover-linger",
            HttpLimitsSection.KEY,
            "quorum",
            "bully",
            "ring",
            "invitation",
            "lease");
    private static final List<String> PEER_KEYS = List.of("address", "http");
    private static final List<String> TLS_KEYS =
            List.of("certificate", "private-key", "trusted", "verify-hostname", "server-name");
    private static final List<String> QUORUM_KEYS = List.of(
            "heartbeat-interval",
            "missed-heartbeats",
            "backoff-min",
            "backoff-max",
            "scouting-timeout",
            "proposal-timeout",
            "max-clock-drift",
            "validity-margin",
            "step-down-hold-down",
            "standby");

    private static final List<String> BULLY_KEYS = List.of(
            "message-time",
            "processing-time",
            "coordinator-timeout",
            "heartbeat-interval",
            "missed-heartbeats",
            "preemption",
            "preemption-hold-down",
            "strict");
    private static final List<String> RING_KEYS = List.of(
            "message-time",
            "processing-time",
            "hop-attempts",
            "heartbeat-interval",
            "missed-heartbeats",
            "preemption-hold-down");
    private static final List<String> INVITATION_KEYS = List.of(
            "check-interval",
            "answer-timeout",
            "merge-delay",
            "are-you-there-interval",
            "are-you-there-timeout",
            "invitation-timeout",
            "ready-timeout",
            "lease",
            "max-clock-drift",
            "validity-margin",
            "majority-gate");

    private static final List<String> LEASE_KEYS = List.of(
            "store",
            "table",
            "key-prefix",
            "create-schema",
            "duration",
            "renew-interval",
            "renew-deadline",
            "retry",
            "request-timeout",
            "max-clock-drift",
            "validity-margin",
            "username",
            "password-file");
    private static final List<String> SQL_STORES =
            List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:h2:");
    private static final String STORES_ALLOWED =
            "a JDBC URL (jdbc:postgresql://host:port/db?user=..., jdbc:mariadb://...,"
                    + " jdbc:mysql://..., jdbc:h2:...) or a Redis URI (redis://host:port[/db], rediss://...)";
    private static final java.util.regex.Pattern SQL_TABLE =
            java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
    private static final ObjectMapper YAML =
            new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** Every level that has its own keys, the top level as {@code ""}: where a misplaced key is looked up. */
    private static final Map<String, List<String>> SECTIONS = sections();

    private final List<String> errors = new ArrayList<>();
    private final Path baseDir;
    /** The section a misplaced key most likely belongs in: the configured algorithm's. */
    private String preferredSection = "quorum";

    private ConfigLoader(Path baseDir) {
        this.baseDir = baseDir;
    }

    /**
     * Reads and validates the file at {@code file}.
     *
     * @throws ConfigException listing every problem, or saying why the file cannot be read
     */
    public static NodeConfig load(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), List.of("cannot read the configuration file: " + describe(e)));
        }
        Path dir = file.toAbsolutePath().getParent();
        return parse(text, dir == null ? Path.of("").toAbsolutePath() : dir, file.toString());
    }

    /**
     * Validates {@code yaml}, resolving relative paths against {@code baseDir}.
     *
     * @param source names the text in the error message (usually the file name)
     * @throws ConfigException listing every problem
     */
    public static NodeConfig parse(String yaml, Path baseDir, String source) throws ConfigException {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JacksonException e) {
            throw new ConfigException(source, List.of(syntaxError(e)));
        } catch (IOException e) {
            throw new ConfigException(source, List.of("cannot parse: " + describe(e)));
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new ConfigException(
                    source,
                    List.of("the file is empty: expected a mapping of keys such as"
                            + " cluster, node, listen, peers (see docs/configuration.md)"));
        }
        if (!root.isObject()) {
            throw new ConfigException(
                    source,
                    List.of("the file must be a mapping of keys (cluster: ..., node: ...), was a " + kind(root)));
        }
        ConfigLoader loader = new ConfigLoader(baseDir);
        NodeConfig config = loader.read((ObjectNode) root);
        if (!loader.errors.isEmpty()) {
            throw new ConfigException(source, loader.errors);
        }
        return config;
    }

    private static Map<String, List<String>> sections() {
        Map<String, List<String>> sections = new java.util.LinkedHashMap<>();
        sections.put("quorum", QUORUM_KEYS);
        sections.put("lease", LEASE_KEYS);
        sections.put("bully", BULLY_KEYS);
        sections.put("ring", RING_KEYS);
        sections.put("invitation", INVITATION_KEYS);
        sections.put("tls", TLS_KEYS);
        sections.put("", TOP_KEYS);
        return java.util.Collections.unmodifiableMap(sections);
    }

    private NodeConfig read(ObjectNode root) {
        preferredSection = root.path("algorithm").asText("quorum");
        unknownKeys("", root, TOP_KEYS);

        String cluster = requiredText(root, "cluster");
        if (cluster != null) {
            cluster =
                    check(() -> GroupNames.check("cluster", root.get("cluster").asText()));
        }
        NodeId node = nodeId(root, "node", true);
        String algorithm = algorithm(root);
        String group = NodeConfig.DEFAULT_GROUP;
        if (root.has("group")) {
            String text = scalar(root, "group");
            group = text == null ? null : check(() -> GroupNames.check("group", text));
        }
        // With a lease the store is the only channel between members: peer addresses, the secret and the
        // persisted term are not needed, though they are accepted (peers then only feed /cluster and the dashboard).
        boolean lease = "lease".equals(algorithm);
        NodeAddress listen = address("listen", root.get("listen"), !lease);
        boolean httpGiven = root.has("http");
        NodeAddress http = address("http", root.get("http"), false);

        boolean dns = root.has("peers-dns");
        Optional<NodeConfig.PeersDns> peersDns = Optional.empty();
        Map<NodeId, NodeConfig.Peer> peers;
        if (dns) {
            peersDns = peersDns(root, node, lease, listen);
            peers = peersDns.isPresent() ? new TreeMap<>() : null;
        } else {
            peers = lease && !root.has("peers") ? null : peers(root);
            for (String key : List.of("members", "peers-dns-interval")) {
                if (root.has(key)) {
                    errors.add(key + " is given without peers-dns: allowed only with peers-dns (with peers, the"
                            + " member ids are the keys under peers and their addresses are fixed)");
                }
            }
        }
        if (peers != null && node != null && !dns) {
            NodeConfig.Peer me = peers.get(node);
            if (me == null) {
                errors.add("node = '" + node + "' is not one of the peers " + peers.keySet()
                        + ": allowed one of the ids under peers (this node must be listed too)");
            } else {
                if (listen != null && !sameEndpoint(listen, me.address())) {
                    errors.add("listen = '" + listen + "' differs from this node's address under peers (peers." + node
                            + " = '" + me.address() + "'): allowed the same address, or a wildcard host"
                            + " (0.0.0.0, ::) with the same port");
                }
                boolean peerHttpGiven = root.path("peers").path(node.value()).has("http");
                if (http != null && peerHttpGiven && !sameEndpoint(http, me.http())) {
                    errors.add("http = '" + http + "' differs from peers." + node + ".http = '" + me.http()
                            + "': allowed the same address, or leave one of them out");
                } else if (http != null && !peerHttpGiven) {
                    // This node's own http key is the better source for the address its peers should use.
                    peers.put(node, new NodeConfig.Peer(me.address(), http));
                } else if (!httpGiven) {
                    http = me.http();
                }
            }
        }
        if (http == null && !httpGiven && listen != null) {
            http = offsetPort("http", listen);
        }
        if (lease && http == null && !httpGiven && listen == null && peers == null) {
            errors.add("http is missing: with algorithm lease and neither listen nor peers given, allowed the"
                    + " host:port to serve status, metrics and the dashboard on, e.g. http: 127.0.0.1:8101");
        }
        if (http != null) {
            httpClashes(listen, http, httpGiven, node, peers);
        }
        if (lease && peers == null && node != null && http != null) {
            // Alone in its member list: the member's "peer address" is never dialled, only reported.
            peers = new TreeMap<>(Map.of(node, new NodeConfig.Peer(listen != null ? listen : http, http)));
        }

        Optional<byte[]> secret = Optional.empty();
        boolean insecure = false;
        boolean hasSecret = root.has("secret");
        boolean hasSecretFile = root.has("secret-file");
        if (root.has("insecure")) {
            JsonNode value = root.get("insecure");
            if (!value.isBoolean()) {
                errors.add("insecure = '" + value.asText() + "' is invalid: allowed true or false");
            } else {
                insecure = value.booleanValue();
            }
        }
        if (hasSecret && hasSecretFile) {
            errors.add("secret and secret-file are both given: allowed one of them");
        } else if ((hasSecret || hasSecretFile) && insecure) {
            errors.add("insecure = true contradicts " + (hasSecret ? "secret" : "secret-file")
                    + ": allowed either a secret or insecure: true");
        } else if (hasSecret) {
            String text = scalar(root, "secret");
            if (text != null) {
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                if (bytes.length < MIN_SECRET_BYTES) {
                    errors.add("secret = (" + bytes.length + " bytes, not shown) is too short: allowed at least "
                            + MIN_SECRET_BYTES + " bytes");
                } else {
                    secret = Optional.of(bytes);
                }
            }
        } else if (hasSecretFile) {
            secret = secretFile(root);
        } else if (!insecure && !lease) {
            errors.add("secret-file is missing: give secret-file (a file holding at least " + MIN_SECRET_BYTES
                    + " bytes shared by all nodes), secret, or, knowingly, insecure: true");
        }

        Path stateDir = null;
        String stateText = lease && !root.has("state-dir") ? null : requiredText(root, "state-dir");
        if (stateText != null) {
            stateDir = resolve(stateText);
            String problem = StateDirs.problem(stateDir);
            if (problem != null) {
                errors.add("state-dir = '" + stateText + "' " + problem + ": allowed a directory this process can"
                        + " write (created if missing)");
            }
        }

        Optional<NodeConfig.Tls> tls = tls(root);

        int maxFrameBytes = NodeConfig.DEFAULT_MAX_FRAME_BYTES;
        if (root.has("max-frame-bytes")) {
            JsonNode value = root.get("max-frame-bytes");
            if (!value.canConvertToInt() || value.intValue() < MIN_FRAME_BYTES || value.intValue() > MAX_FRAME_BYTES) {
                errors.add("max-frame-bytes = '" + value.asText() + "' is invalid: allowed a whole number from "
                        + MIN_FRAME_BYTES + " to " + MAX_FRAME_BYTES);
            } else {
                maxFrameBytes = value.intValue();
            }
        }

        Duration handoverLinger = durationWithin(
                root,
                "handover-linger",
                NodeConfig.DEFAULT_HANDOVER_LINGER,
                Duration.ZERO,
                NodeConfig.MAX_HANDOVER_LINGER);

        io.bellwether.server.http.HttpLimits httpLimits =
                HttpLimitsSection.read(root.get(HttpLimitsSection.KEY), errors);

        QuorumConfig quorum = quorum(root.get("quorum"));
        if (algorithm != null && !algorithm.equals("quorum") && root.has("quorum")) {
            errors.add("quorum is given but algorithm = '" + algorithm + "': allowed only with algorithm: quorum"
                    + " (remove the quorum section, or set algorithm: quorum)");
        }
        ElectorSpec classic = null;
        for (String section : CLASSIC_ALGORITHMS) {
            if (section.equals(algorithm)) {
                classic = classic(section, root.get(section));
            } else if (algorithm != null && root.has(section)) {
                errors.add(section + " is given but algorithm = '" + algorithm + "': allowed only with algorithm: "
                        + section + " (remove the " + section + " section, or set algorithm: " + section + ")");
            }
        }
        Optional<LeaseSettings> leaseSettings = Optional.empty();
        if (lease) {
            leaseSettings = Optional.ofNullable(lease(root.get("lease"), group));
        } else if (algorithm != null && root.has("lease")) {
            errors.add("lease is given but algorithm = '" + algorithm + "': allowed only with algorithm: lease"
                    + " (remove the lease section, or set algorithm: lease)");
        }

        if (!errors.isEmpty()) {
            return null;
        }
        return new NodeConfig(
                cluster,
                node,
                algorithm,
                group,
                listen,
                http,
                java.util.Collections.unmodifiableMap(new TreeMap<>(peers)),
                peersDns,
                secret,
                insecure,
                stateDir,
                tls,
                maxFrameBytes,
                handoverLinger,
                quorum,
                leaseSettings,
                lease ? null : classic != null ? classic : quorum,
                httpLimits);
    }

    // ------------------------------------------------------------------ sections

    private String algorithm(ObjectNode root) {
        if (!root.has("algorithm")) {
            return "quorum";
        }
        String name = scalar(root, "algorithm");
        if (name == null) {
            return null;
        }
        if (AVAILABLE_ALGORITHMS.contains(name)) {
            return name;
        }
        String suggestion = DidYouMean.closest(name, AVAILABLE_ALGORITHMS)
                .map(s -> "did you mean '" + s + "'? ")
                .orElse("");
        errors.add("algorithm = '" + name + "' is unknown: " + suggestion + "allowed "
                + String.join(", ", AVAILABLE_ALGORITHMS));
        return null;
    }

    /**
     * {@code peers-dns} with {@code members} and {@code peers-dns-interval}: the member ids are fixed (they make the
     * quorum), only where they listen is discovered.
     */
    private Optional<NodeConfig.PeersDns> peersDns(ObjectNode root, NodeId node, boolean lease, NodeAddress listen) {
        int before = errors.size();
        String text = root.get("peers-dns").isValueNode()
                ? root.get("peers-dns").asText()
                : root.get("peers-dns").toString();
        if (root.has("peers")) {
            errors.add("peers and peers-dns are both given: allowed one of them (peers: every member's id with a"
                    + " fixed host:port; peers-dns: a DNS name:port resolved periodically, with the ids under"
                    + " members)");
        }
        if (lease) {
            errors.add("peers-dns = '" + text + "' is given with algorithm lease, whose nodes have no peer traffic:"
                    + " allowed with quorum, bully, ring or invitation (with lease, give peers for /cluster and the"
                    + " dashboard, or nothing)");
        }
        NodeAddress name = null;
        try {
            if (!root.get("peers-dns").isValueNode()) {
                throw new IllegalArgumentException("not a single value");
            }
            name = NodeAddress.parse(text);
        } catch (IllegalArgumentException e) {
            errors.add("peers-dns = '" + text + "' is not a name:port: allowed a DNS name (or an address) and a port"
                    + " from 1 to 65535, e.g. bellwether.default.svc.cluster.local:7101");
        }
        if (name != null && listen != null && listen.port() != name.port()) {
            errors.add("listen = '" + listen + "' has another port than peers-dns = '" + name + "': allowed port "
                    + name.port() + " (the members dial every address peers-dns resolves to at its port, so every"
                    + " member listens on it)");
        }
        List<NodeId> members = memberIds(root, node);
        // PeerResolver's bounds, not TcpTransport's: loading TcpTransport here would create its logger before
        // the node command sets the log levels, and hide its INFO lines.
        Duration interval = durationWithin(
                root,
                "peers-dns-interval",
                PeerResolver.DEFAULT_INTERVAL,
                PeerResolver.MIN_INTERVAL,
                PeerResolver.MAX_INTERVAL);
        if (errors.size() > before || name == null || members == null) {
            return Optional.empty();
        }
        return Optional.of(new NodeConfig.PeersDns(name, members, interval));
    }

    /** {@code members}: the fixed ids that go with {@code peers-dns}; null after an error. */
    private List<NodeId> memberIds(ObjectNode root, NodeId node) {
        JsonNode value = root.get("members");
        if (value == null || value.isNull()) {
            errors.add("members is missing: with peers-dns, allowed the list of every member's id, this node"
                    + " included, e.g. members: [n1, n2, n3] (the ids make the quorum, so they are fixed: only"
                    + " the addresses are discovered)");
            return null;
        }
        if (!value.isArray() || value.isEmpty()) {
            errors.add("members = '" + (value.isValueNode() ? value.asText() : value.toString()) + "' is invalid:"
                    + " allowed a non-empty list of member ids, e.g. members: [n1, n2, n3]");
            return null;
        }
        List<NodeId> ids = new ArrayList<>();
        boolean failed = false;
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            String key = "members[" + i + "]";
            String text = item.isValueNode() && !item.isNull() ? item.asText() : item.toString();
            NodeId id;
            try {
                if (!item.isValueNode() || item.isNull()) {
                    throw new IllegalArgumentException("not a single value");
                }
                id = NodeId.of(text);
            } catch (IllegalArgumentException e) {
                errors.add(key + " = '" + text + "' is invalid: allowed a member id, 1-64 characters of letters,"
                        + " digits, '.', '_' and '-'");
                failed = true;
                continue;
            }
            int first = ids.indexOf(id);
            if (first >= 0) {
                errors.add(key + " = '" + id + "' repeats members[" + first + "]: allowed each id once");
                failed = true;
            }
            ids.add(id);
        }
        if (failed) {
            return null;
        }
        if (node != null && !ids.contains(node)) {
            errors.add("node = '" + node + "' is not one of the members " + ids + ": allowed one of them (this node"
                    + " must be listed too)");
            return null;
        }
        return ids;
    }

    private Map<NodeId, NodeConfig.Peer> peers(ObjectNode root) {
        if (!root.has("peers")) {
            errors.add("peers is missing: allowed a mapping of every member's id (this node included) to its"
                    + " host:port, e.g. peers: {n1: 127.0.0.1:7101, n2: 127.0.0.1:7102}, or peers-dns: name:port"
                    + " with members: [ids]");
            return null;
        }
        JsonNode node = root.get("peers");
        if (!node.isObject() || node.isEmpty()) {
            errors.add("peers = '" + node.asText() + "' is invalid: allowed a non-empty mapping of member id to"
                    + " host:port or {address: host:port, http: host:port}");
            return null;
        }
        Map<NodeId, NodeConfig.Peer> peers = new TreeMap<>();
        Map<NodeAddress, NodeId> byAddress = new HashMap<>();
        Map<NodeAddress, NodeId> byHttp = new HashMap<>();
        java.util.Set<NodeId> httpGivenFor = new java.util.HashSet<>();
        boolean failed = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String key = "peers." + entry.getKey();
            NodeId id;
            try {
                id = NodeId.of(entry.getKey());
            } catch (IllegalArgumentException e) {
                errors.add("peers: id '" + entry.getKey() + "' is invalid: allowed 1-64 characters of letters,"
                        + " digits, '.', '_' and '-'");
                failed = true;
                continue;
            }
            JsonNode value = entry.getValue();
            NodeAddress address;
            NodeAddress http;
            if (value.isObject()) {
                unknownKeys(key + ".", (ObjectNode) value, PEER_KEYS);
                address = address(key + ".address", value.get("address"), true);
                http = value.has("http") ? address(key + ".http", value.get("http"), true) : null;
                if (http == null && !value.has("http") && address != null) {
                    http = offsetPort(key + ".http", address);
                }
            } else {
                address = address(key, value, true);
                http = address == null ? null : offsetPort(key + ".http", address);
            }
            if (address == null || http == null) {
                failed = true;
                continue;
            }
            if (Addresses.unspecified(address)) {
                errors.add((value.isObject() ? key + ".address" : key) + " = '" + address + "' is a wildcard address,"
                        + " which no member can dial: allowed the host name or IP address the other members reach "
                        + id + " at, e.g. 127.0.0.1:" + address.port() + " (a wildcard belongs in listen)");
                failed = true;
            }
            if (value.has("http") && Addresses.unspecified(http)) {
                errors.add(key + ".http = '" + http + "' is a wildcard address, which no member can reach: allowed"
                        + " the host name or IP address of " + id + "'s HTTP server, e.g. 127.0.0.1:" + http.port());
                failed = true;
            }
            if (value.has("http")) {
                httpGivenFor.add(id);
            }
            NodeId other = byAddress.putIfAbsent(address, id);
            if (other != null) {
                errors.add(key + " = '" + address + "' duplicates the address of peers." + other
                        + ": allowed a distinct host:port per member");
                failed = true;
            }
            NodeId otherHttp = byHttp.putIfAbsent(http, id);
            // A duplicate peer address already implies the derived HTTP addresses clash; say it once.
            if (otherHttp != null && other == null) {
                errors.add(key + ".http = '" + http + "' duplicates the HTTP address of peers." + otherHttp
                        + ": allowed a distinct host:port per member");
                failed = true;
            }
            peers.put(id, new NodeConfig.Peer(address, http));
        }
        if (!failed) {
            // One member's HTTP server on another's peer port: whichever starts second cannot bind.
            for (Map.Entry<NodeId, NodeConfig.Peer> e : peers.entrySet()) {
                NodeId owner = byAddress.get(e.getValue().http());
                if (owner != null) {
                    errors.add("peers." + e.getKey() + ".http = '"
                            + e.getValue().http() + "'"
                            + (httpGivenFor.contains(e.getKey())
                                    ? ""
                                    : " (its default: the peer port + " + NodeConfig.DEFAULT_HTTP_PORT_OFFSET + ")")
                            + " is the peer address of peers." + owner + ": allowed a host:port no member uses for"
                            + " anything else"
                            + (httpGivenFor.contains(e.getKey())
                                    ? ""
                                    : " (give peers." + e.getKey() + ".http explicitly)"));
                    failed = true;
                }
            }
        }
        return failed ? null : peers;
    }

    /**
     * This node's {@code http} against the addresses it must not take: its own {@code listen} (one port cannot serve
     * both), and another member's peer or HTTP address (that member could not bind it, or this node could not).
     */
    private void httpClashes(
            NodeAddress listen, NodeAddress http, boolean httpGiven, NodeId node, Map<NodeId, NodeConfig.Peer> peers) {
        if (listen != null && Addresses.overlap(listen, http)) {
            errors.add("http = '" + http + "' is the same address as listen = '" + listen + "': allowed a host:port"
                    + " of its own for the HTTP server (the peer transport and the HTTP server cannot share a port),"
                    + " e.g. http: "
                    + new NodeAddress(
                            listen.host(), Math.min(65535, listen.port() + NodeConfig.DEFAULT_HTTP_PORT_OFFSET)));
            return;
        }
        if (!httpGiven || peers == null) {
            return; // derived from this node's peer entry, which peers() has checked
        }
        for (Map.Entry<NodeId, NodeConfig.Peer> e : peers.entrySet()) {
            if (e.getKey().equals(node)) {
                continue;
            }
            String what = http.equals(e.getValue().address())
                    ? "the peer address of peers." + e.getKey()
                    : http.equals(e.getValue().http()) ? "the HTTP address of peers." + e.getKey() : null;
            if (what != null) {
                errors.add("http = '" + http + "' is " + what + ": allowed a host:port no other member uses");
            }
        }
    }

    private Optional<byte[]> secretFile(ObjectNode root) {
        String text = scalar(root, "secret-file");
        if (text == null) {
            return Optional.empty();
        }
        Path path = resolve(text);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (IOException | SecurityException e) {
            errors.add("secret-file = '" + text + "' cannot be read (" + describe(e) + "): allowed a readable file"
                    + " holding at least " + MIN_SECRET_BYTES + " bytes");
            return Optional.empty();
        }
        // Files written with echo end in a newline that other tools would not add; the key is the text before it.
        int end = bytes.length;
        while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
            end--;
        }
        if (end < MIN_SECRET_BYTES) {
            errors.add("secret-file = '" + text + "' holds " + end + " bytes (trailing newlines not counted), too"
                    + " short: allowed at least " + MIN_SECRET_BYTES + " bytes");
            return Optional.empty();
        }
        return Optional.of(Arrays.copyOf(bytes, end));
    }

    private Optional<NodeConfig.Tls> tls(ObjectNode root) {
        if (!root.has("tls")) {
            return Optional.empty();
        }
        JsonNode node = root.get("tls");
        if (!node.isObject()) {
            errors.add("tls = '" + node.asText() + "' is invalid: allowed a mapping with certificate, private-key"
                    + " and optionally trusted (PEM files), verify-hostname and server-name");
            return Optional.empty();
        }
        ObjectNode tls = (ObjectNode) node;
        unknownKeys("tls.", tls, TLS_KEYS);
        Path certificate = readableFile(tls, "tls.", "certificate", true);
        Path key = readableFile(tls, "tls.", "private-key", true);
        Path trusted = readableFile(tls, "tls.", "trusted", false);
        boolean[] verifyHostname = {true};
        sectionBoolean("tls", tls, "verify-hostname", v -> verifyHostname[0] = v);
        Optional<String> serverName = Optional.empty();
        if (tls.has("server-name")) {
            JsonNode value = tls.get("server-name");
            // The transport's own check, so that the two cannot disagree.
            Optional<String> problem =
                    TcpTransport.Builder.tlsServerNameProblem(value.isTextual() ? value.asText() : "");
            if (problem.isPresent()) {
                errors.add("tls.server-name = '" + value.asText() + "' is invalid: " + problem.get());
            } else {
                serverName = Optional.of(value.asText());
            }
        }
        if (certificate == null || key == null) {
            return Optional.empty();
        }
        return Optional.of(
                new NodeConfig.Tls(certificate, key, Optional.ofNullable(trusted), verifyHostname[0], serverName));
    }

    private Path readableFile(ObjectNode parent, String prefix, String key, boolean required) {
        if (!parent.has(key)) {
            if (required) {
                errors.add(prefix + key + " is missing: allowed the path of a PEM file");
            }
            return null;
        }
        String text = parent.get(key).asText();
        Path path = resolve(text);
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            errors.add(prefix + key + " = '" + text + "' is not a readable file: allowed the path of a PEM file");
            return null;
        }
        return path;
    }

    private QuorumConfig quorum(JsonNode node) {
        if (node == null) {
            return QuorumConfig.defaults();
        }
        if (!node.isObject()) {
            errors.add("quorum = '" + node.asText() + "' is invalid: allowed a mapping of the keys "
                    + String.join(", ", QUORUM_KEYS));
            return null;
        }
        ObjectNode q = (ObjectNode) node;
        int before = errors.size();
        unknownKeys("quorum.", q, QUORUM_KEYS);
        QuorumConfig.Builder b = QuorumConfig.builder();
        QuorumConfig defaults = QuorumConfig.defaults();
        duration(q, "heartbeat-interval", b::heartbeatInterval);
        if (q.has("missed-heartbeats")) {
            JsonNode value = q.get("missed-heartbeats");
            if (!value.canConvertToInt() || !value.isIntegralNumber()) {
                errors.add("quorum.missed-heartbeats = '" + value.asText() + "' is invalid: allowed a whole number"
                        + " from 2 to 100");
            } else {
                int missed = value.intValue();
                try {
                    b.missedHeartbeats(missed);
                } catch (IllegalArgumentException e) {
                    errors.add("quorum." + e.getMessage()
                            + " (the election timeout, heartbeat-interval × missed-heartbeats, must exceed the"
                            + " heartbeat interval)");
                }
            }
        }
        Duration[] backoff = {defaults.backoffMin(), defaults.backoffMax()};
        boolean backoffOk = parseDuration(q, "backoff-min", d -> backoff[0] = d);
        backoffOk &= parseDuration(q, "backoff-max", d -> backoff[1] = d);
        if (backoffOk) {
            catching(() -> b.backoff(backoff[0], backoff[1]));
        }
        duration(q, "scouting-timeout", b::scoutingTimeout);
        duration(q, "proposal-timeout", b::proposalTimeout);
        if (q.has("max-clock-drift")) {
            JsonNode value = q.get("max-clock-drift");
            if (!value.isNumber()) {
                errors.add("quorum.max-clock-drift = '" + value.asText() + "' is invalid: allowed a number from 0"
                        + " to 0.1");
            } else {
                catching(() -> b.maxClockDrift(value.doubleValue()));
            }
        }
        duration(q, "validity-margin", b::validityMargin);
        duration(q, "step-down-hold-down", b::stepDownHoldDown);
        sectionBoolean("quorum", q, "standby", b::standby);
        if (errors.size() > before) {
            return null;
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            errors.add("quorum." + e.getMessage());
            return null;
        }
    }

    /**
     * A top-level duration: {@code fallback} when the key is absent; otherwise the value, with an error naming the
     * key, the value and the allowed range when it is not a duration or lies outside [{@code min}, {@code max}].
     */
    private Duration durationWithin(ObjectNode root, String key, Duration fallback, Duration min, Duration max) {
        if (!root.has(key)) {
            return fallback;
        }
        String value = scalar(root, key);
        if (value == null) {
            return fallback;
        }
        try {
            Duration d = Durations.parse(key, value);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                errors.add(key + " = '" + value + "' is out of range: allowed " + Durations.format(min) + " to "
                        + Durations.format(max));
            }
            return d;
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return fallback;
        }
    }

    private void duration(ObjectNode q, String key, Consumer<Duration> setter) {
        parseDuration(q, key, d -> catching(() -> setter.accept(d)));
    }

    /**
     * The section of a classic algorithm ({@code bully:}, {@code ring:}, {@code invitation:}); its defaults when
     * absent. Each key goes through the algorithm's own builder, so the node's messages and the library's agree.
     */
    private ElectorSpec classic(String section, JsonNode node) {
        List<String> keys =
                switch (section) {
                    case "bully" -> BULLY_KEYS;
                    case "ring" -> RING_KEYS;
                    default -> INVITATION_KEYS;
                };
        if (node != null && !node.isObject()) {
            errors.add(section + " = '" + node.asText() + "' is invalid: allowed a mapping of the keys "
                    + String.join(", ", keys));
            return null;
        }
        ObjectNode s = node == null ? YAML.createObjectNode() : (ObjectNode) node;
        int before = errors.size();
        unknownKeys(section + ".", s, keys);
        java.util.function.Supplier<ElectorSpec> build;
        switch (section) {
            case "bully" -> {
                BullyConfig.Builder b = BullyConfig.builder();
                sectionDuration(section, s, "message-time", b::messageTime);
                sectionDuration(section, s, "processing-time", b::processingTime);
                sectionDuration(section, s, "coordinator-timeout", b::coordinatorTimeout);
                sectionDuration(section, s, "heartbeat-interval", b::heartbeatInterval);
                sectionInt(section, s, "missed-heartbeats", "2 to 100", b::missedHeartbeats);
                sectionBoolean(section, s, "preemption", b::preemption);
                sectionDuration(section, s, "preemption-hold-down", b::preemptionHoldDown);
                sectionBoolean(section, s, "strict", b::strict);
                build = b::build;
            }
            case "ring" -> {
                RingConfig.Builder b = RingConfig.builder();
                sectionDuration(section, s, "message-time", b::messageTime);
                sectionDuration(section, s, "processing-time", b::processingTime);
                sectionInt(section, s, "hop-attempts", "1 to 10", b::hopAttempts);
                sectionDuration(section, s, "heartbeat-interval", b::heartbeatInterval);
                sectionInt(section, s, "missed-heartbeats", "2 to 100", b::missedHeartbeats);
                sectionDuration(section, s, "preemption-hold-down", b::preemptionHoldDown);
                build = b::build;
            }
            default -> {
                InvitationConfig.Builder b = InvitationConfig.builder();
                sectionDuration(section, s, "check-interval", b::checkInterval);
                sectionDuration(section, s, "answer-timeout", b::answerTimeout);
                sectionDuration(section, s, "merge-delay", b::mergeDelay);
                sectionDuration(section, s, "are-you-there-interval", b::areYouThereInterval);
                sectionDuration(section, s, "are-you-there-timeout", b::areYouThereTimeout);
                sectionDuration(section, s, "invitation-timeout", b::invitationTimeout);
                sectionDuration(section, s, "ready-timeout", b::readyTimeout);
                sectionDuration(section, s, "lease", b::lease);
                if (s.has("max-clock-drift")) {
                    JsonNode value = s.get("max-clock-drift");
                    if (!value.isNumber()) {
                        errors.add(section + ".max-clock-drift = '" + value.asText()
                                + "' is invalid: allowed a number from 0 to 0.1");
                    } else {
                        sectionCatching(section, () -> b.maxClockDrift(value.doubleValue()));
                    }
                }
                sectionDuration(section, s, "validity-margin", b::validityMargin);
                sectionBoolean(section, s, "majority-gate", b::majorityGate);
                build = b::build;
            }
        }
        if (errors.size() > before) {
            return null;
        }
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            errors.add(section + "." + e.getMessage());
            return null;
        }
    }

    private void sectionDuration(String section, ObjectNode s, String key, Consumer<Duration> setter) {
        if (!s.has(key)) {
            return;
        }
        JsonNode value = s.get(key);
        Duration d;
        try {
            d = Durations.parse(section + "." + key, value.isValueNode() ? value.asText() : value.toString());
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return;
        }
        sectionCatching(section, () -> setter.accept(d));
    }

    private void sectionInt(
            String section, ObjectNode s, String key, String allowed, java.util.function.IntConsumer setter) {
        if (!s.has(key)) {
            return;
        }
        JsonNode value = s.get(key);
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            errors.add(section + "." + key + " = '" + value.asText() + "' is invalid: allowed a whole number from "
                    + allowed);
            return;
        }
        sectionCatching(section, () -> setter.accept(value.intValue()));
    }

    private void sectionBoolean(String section, ObjectNode s, String key, Consumer<Boolean> setter) {
        if (!s.has(key)) {
            return;
        }
        JsonNode value = s.get(key);
        if (!value.isBoolean()) {
            errors.add(section + "." + key + " = '" + value.asText() + "' is invalid: allowed true or false");
            return;
        }
        setter.accept(value.booleanValue());
    }

    private void sectionCatching(String section, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            errors.add(section + "." + e.getMessage());
        }
    }

    private LeaseSettings lease(JsonNode node, String group) {
        if (node == null || node.isNull()) {
            errors.add(
                    "lease is missing: with algorithm lease, allowed a mapping with at least store (" + STORES_ALLOWED
                            + "), e.g. lease: {store: 'jdbc:postgresql://127.0.0.1:5432/app?user=app', create-schema: true}");
            return null;
        }
        if (!node.isObject()) {
            errors.add("lease = '" + node.asText() + "' is invalid: allowed a mapping of the keys "
                    + String.join(", ", LEASE_KEYS));
            return null;
        }
        ObjectNode l = (ObjectNode) node;
        int before = errors.size();
        unknownKeys("lease.", l, LEASE_KEYS);

        String store = null;
        if (!l.has("store") || l.get("store").isNull()) {
            errors.add("lease.store is missing: allowed " + STORES_ALLOWED);
        } else {
            store = scalar(l, "lease.store", "store");
            if (store != null
                    && !LeaseSettings.isRedis(store)
                    && SQL_STORES.stream().noneMatch(store.toLowerCase(java.util.Locale.ROOT)::startsWith)) {
                errors.add("lease.store = '" + LeaseSettings.redact(store) + "' is not a supported store: allowed "
                        + STORES_ALLOWED);
                store = null;
            }
        }
        boolean redis = store != null && LeaseSettings.isRedis(store);
        Optional<String> table = Optional.empty();
        if (l.has("table")) {
            String text = scalar(l, "lease.table", "table");
            if (text != null && redis) {
                errors.add(
                        "lease.table = '" + text + "' applies to SQL stores only: for Redis, allowed lease.key-prefix"
                                + " (e.g. key-prefix: 'bellwether:lease:')");
            } else if (text != null && (!SQL_TABLE.matcher(text).matches() || text.length() > 63)) {
                errors.add("lease.table = '" + text + "' is invalid: allowed " + describeKey("lease.table"));
            } else if (text != null) {
                table = Optional.of(text);
            }
        }
        Optional<String> keyPrefix = Optional.empty();
        if (l.has("key-prefix")) {
            String text = scalar(l, "lease.key-prefix", "key-prefix");
            if (text != null && store != null && !redis) {
                errors.add("lease.key-prefix = '" + text + "' applies to Redis only: for SQL stores, allowed"
                        + " lease.table (e.g. table: bellwether_lease)");
            } else if (text != null && (text.isEmpty() || text.length() > 100 || !text.matches("\\S+"))) {
                errors.add("lease.key-prefix = '" + text + "' is invalid: allowed " + describeKey("lease.key-prefix"));
            } else if (text != null) {
                keyPrefix = Optional.of(text);
            }
        }
        boolean createSchema = false;
        if (l.has("create-schema")) {
            JsonNode value = l.get("create-schema");
            if (!value.isBoolean()) {
                errors.add("lease.create-schema = '" + value.asText() + "' is invalid: allowed true or false");
            } else if (redis && value.booleanValue()) {
                errors.add("lease.create-schema = true applies to SQL stores only: Redis needs no schema, allowed"
                        + " false or leave it out");
            } else {
                createSchema = value.booleanValue();
            }
        }

        Optional<String> username = leaseUsername(l, store, redis);
        Optional<String> password = leasePassword(l, store);
        if (redis && username.isPresent() && password.isEmpty() && !l.has("password-file")) {
            errors.add("lease.username = '" + username.get() + "' is given without lease.password-file: for Redis,"
                    + " allowed only with a password (Redis authenticates a user by its password)");
        }

        // The timings are checked by the elector's own configuration, against a stand-in store, so that the
        // node's messages and the library's agree; the real store is built only when the node starts.
        io.bellwether.lease.LeaseConfig.Builder b = io.bellwether.lease.LeaseConfig.builder()
                .store(NoStore.INSTANCE)
                .name(group == null ? "default" : group);
        leaseDuration(l, "duration", b::duration);
        leaseDuration(l, "renew-interval", b::renewInterval);
        leaseDuration(l, "renew-deadline", b::renewDeadline);
        leaseDuration(l, "retry", b::retry);
        leaseDuration(l, "request-timeout", b::requestTimeout);
        if (l.has("max-clock-drift")) {
            JsonNode value = l.get("max-clock-drift");
            if (!value.isNumber()) {
                errors.add(
                        "lease.max-clock-drift = '" + value.asText() + "' is invalid: allowed a number from 0 to 0.1");
            } else {
                leaseCatching(() -> b.maxClockDrift(value.doubleValue()));
            }
        }
        leaseDuration(l, "validity-margin", b::validityMargin);
        if (errors.size() > before) {
            return null;
        }
        io.bellwether.lease.LeaseConfig c;
        try {
            c = b.build();
        } catch (IllegalArgumentException e) {
            errors.add("lease." + e.getMessage());
            return null;
        }
        if (store == null) {
            return null;
        }
        if (!redis && table.isEmpty()) {
            table = Optional.of(io.bellwether.store.jdbc.JdbcLeaseStore.DEFAULT_TABLE);
        }
        if (redis && keyPrefix.isEmpty()) {
            keyPrefix = Optional.of(io.bellwether.store.redis.RedisLeaseStore.DEFAULT_KEY_PREFIX);
        }
        return new LeaseSettings(
                store,
                table,
                keyPrefix,
                createSchema,
                c.duration(),
                c.renewInterval(),
                c.renewDeadline(),
                c.retry(),
                c.requestTimeout(),
                c.maxClockDrift(),
                c.validityMargin(),
                username,
                password.map(LeaseSettings.Password::new));
    }

    private Optional<String> leaseUsername(ObjectNode l, String store, boolean redis) {
        if (!l.has("username")) {
            return Optional.empty();
        }
        String text = scalar(l, "lease.username", "username");
        if (text == null) {
            return Optional.empty();
        }
        if (text.isEmpty() || text.length() > 128 || !text.matches("\\S+")) {
            errors.add("lease.username = '" + text + "' is invalid: allowed " + describeKey("lease.username"));
            return Optional.empty();
        }
        if (store != null && LeaseCredentials.userIn(store)) {
            errors.add("lease.username = '" + text + "' is given but lease.store = '" + LeaseSettings.redact(store)
                    + "' names a user too: allowed one of them (remove the user from the store's "
                    + (redis ? "URI" : "URL") + ", or leave lease.username out)");
            return Optional.empty();
        }
        return Optional.of(text);
    }

    /** {@code lease.password-file}: the password, read now so that a missing or empty file stops the node here. */
    private Optional<String> leasePassword(ObjectNode l, String store) {
        if (!l.has("password-file")) {
            return Optional.empty();
        }
        String text = scalar(l, "lease.password-file", "password-file");
        if (text == null) {
            return Optional.empty();
        }
        LeaseCredentials.Read read = LeaseCredentials.passwordFile(resolve(text));
        if (read.problem() != null) {
            errors.add("lease.password-file = '" + text + "' " + read.problem() + ": allowed "
                    + describeKey("lease.password-file"));
            return Optional.empty();
        }
        if (store != null && LeaseCredentials.passwordIn(store)) {
            errors.add("lease.password-file = '" + text + "' is given but lease.store = '" + LeaseSettings.redact(store)
                    + "' carries a password too: allowed one of them (remove the password from the store's address)");
            return Optional.empty();
        }
        return Optional.of(read.password());
    }

    private void leaseDuration(ObjectNode l, String key, Consumer<Duration> setter) {
        if (!l.has(key)) {
            return;
        }
        JsonNode value = l.get(key);
        Duration d;
        try {
            d = Durations.parse("lease." + key, value.isValueNode() ? value.asText() : value.toString());
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return;
        }
        leaseCatching(() -> setter.accept(d));
    }

    private void leaseCatching(Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            errors.add("lease." + e.getMessage());
        }
    }

    /** Stands in for the store while the lease timings are validated; never called. */
    private enum NoStore implements io.bellwether.spi.LeaseStore {
        INSTANCE;

        @Override
        public String describe() {
            return "(validation only)";
        }

        @Override
        public java.util.concurrent.CompletionStage<io.bellwether.spi.LeaseRecord> acquireOrRenew(
                String group, String holder, long token, Duration duration) {
            throw new UnsupportedOperationException("validation only");
        }

        @Override
        public java.util.concurrent.CompletionStage<Boolean> release(String group, String holder, long token) {
            throw new UnsupportedOperationException("validation only");
        }

        @Override
        public java.util.concurrent.CompletionStage<Optional<io.bellwether.spi.LeaseRecord>> read(String group) {
            throw new UnsupportedOperationException("validation only");
        }

        @Override
        public void close() {}
    }

    /** Parses {@code key} if present and passes it on; false if it is present and malformed. */
    private boolean parseDuration(ObjectNode q, String key, Consumer<Duration> setter) {
        if (!q.has(key)) {
            return true;
        }
        JsonNode value = q.get(key);
        try {
            setter.accept(Durations.parse("quorum." + key, value.isValueNode() ? value.asText() : value.toString()));
            return true;
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return false;
        }
    }

    private void catching(Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            errors.add("quorum." + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ helpers

    private void unknownKeys(String prefix, ObjectNode node, List<String> allowed) {
        String here = prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                // A key valid at another level (heartbeat-interval at the top, store under quorum:) is far likelier
                // misplaced than misspelt; only levels that are sections are looked at (not peers.<id>).
                List<String> homes = SECTIONS.containsKey(here)
                        ? DidYouMean.elsewhere(key, SECTIONS, here, preferredSection)
                        : List.of();
                String suggestion = !homes.isEmpty()
                        ? "did you mean '" + homes.get(0) + "'? (" + key + " belongs "
                                + (homes.get(0).equals(key)
                                        ? "at the top level"
                                        : "under " + section(homes.get(0)) + ":")
                                + (homes.size() > 1
                                        ? "; also valid as " + String.join(", ", homes.subList(1, homes.size()))
                                        : "")
                                + ") "
                        : DidYouMean.closest(key, allowed)
                                .map(s -> "did you mean '" + prefix + s + "'? ")
                                .orElse("");
                String hint = key.equals("election-timeout")
                        ? " (the election timeout is heartbeat-interval × missed-heartbeats)"
                        : "";
                errors.add("unknown key '" + prefix + key + "'" + shownValue(key, node.get(key)) + ": " + suggestion
                        + "allowed " + String.join(", ", allowed) + hint);
            }
        }
    }

    private static String section(String qualified) {
        return qualified.substring(0, qualified.indexOf('.'));
    }

    /** {@code " = 'value'"} for a single value, hiding what may be a credential; nothing for a mapping or list. */
    private static String shownValue(String key, JsonNode value) {
        if (value == null || !value.isValueNode()) {
            return "";
        }
        String lower = key.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("secret") || lower.contains("password")) {
            return " = (not shown)";
        }
        String text = value.asText();
        return " = '" + (lower.contains("store") || lower.contains("url") ? LeaseSettings.redact(text) : text) + "'";
    }

    private String requiredText(ObjectNode root, String key) {
        if (!root.has(key) || root.get(key).isNull()) {
            errors.add(key + " is missing: " + describeKey(key));
            return null;
        }
        return scalar(root, key);
    }

    private String scalar(ObjectNode root, String key) {
        return scalar(root, key, key);
    }

    /** The text of {@code field} in {@code parent}, reported as {@code key} when it is not a single value. */
    private String scalar(ObjectNode parent, String key, String field) {
        JsonNode value = parent.get(field);
        if (value == null || !value.isValueNode() || value.isNull()) {
            errors.add(key + " = '" + (value == null ? "" : value.toString()) + "' is invalid: allowed "
                    + describeKey(key));
            return null;
        }
        return value.asText();
    }

    private NodeId nodeId(ObjectNode root, String key, boolean required) {
        String text = required ? requiredText(root, key) : scalar(root, key);
        if (text == null) {
            return null;
        }
        try {
            return NodeId.of(text);
        } catch (IllegalArgumentException e) {
            errors.add(key + " = '" + text + "' is invalid: allowed 1-64 characters of letters, digits, '.', '_'"
                    + " and '-'");
            return null;
        }
    }

    private NodeAddress address(String key, JsonNode value, boolean required) {
        if (value == null || value.isNull()) {
            if (required) {
                errors.add(key + " is missing: allowed host:port, e.g. 127.0.0.1:7101");
            }
            return null;
        }
        if (!value.isValueNode()) {
            errors.add(key + " = '" + value + "' is invalid: allowed host:port, e.g. 127.0.0.1:7101");
            return null;
        }
        String text = value.asText();
        try {
            return NodeAddress.parse(text);
        } catch (IllegalArgumentException e) {
            errors.add(key + " = '" + text + "' is not an address: allowed host:port with a port from 1 to 65535,"
                    + " e.g. 127.0.0.1:7101 or [::1]:7101");
            return null;
        }
    }

    private NodeAddress offsetPort(String key, NodeAddress address) {
        int port = address.port() + NodeConfig.DEFAULT_HTTP_PORT_OFFSET;
        if (port > 65535) {
            errors.add(key + " is missing and its default (port " + address.port() + " + "
                    + NodeConfig.DEFAULT_HTTP_PORT_OFFSET + " = " + port + ") is out of range: give it explicitly");
            return null;
        }
        return new NodeAddress(address.host(), port);
    }

    private static boolean sameEndpoint(NodeAddress bind, NodeAddress advertised) {
        if (bind.port() != advertised.port()) {
            return false;
        }
        String host = bind.host();
        return host.equals(advertised.host()) || host.equals("0.0.0.0") || host.equals("::") || host.equals("*");
    }

    private Path resolve(String text) {
        Path path = Path.of(text);
        return path.isAbsolute() ? path : baseDir.resolve(path).normalize();
    }

    private <T> T check(java.util.function.Supplier<T> validation) {
        try {
            return validation.get();
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return null;
        }
    }

    private static String describeKey(String key) {
        return switch (key) {
            case "cluster" -> "a cluster name, " + GroupNames.ALLOWED;
            case "node" -> "this node's id, one of the ids under peers (or members)";
            case "group" -> "an election group name, " + GroupNames.ALLOWED;
            case "algorithm" -> "one of " + String.join(", ", AVAILABLE_ALGORITHMS);
            case "lease.store" -> STORES_ALLOWED;
            case "lease.table" -> "an SQL table name: letters, digits and '_', not starting with a digit, optionally"
                    + " schema.table, at most 63 characters";
            case "lease.key-prefix" -> "1 to 100 characters without whitespace";
            case "lease.username" -> "the store's user name, 1 to 128 characters without whitespace";
            case "lease.password-file" -> "the path of a readable file holding the store's password (UTF-8, at most "
                    + LeaseCredentials.MAX_PASSWORD_BYTES + " bytes, not empty; trailing newlines are ignored)";
            case "state-dir" -> "a directory where this node keeps its term (created if missing)";
            case "secret" -> "a text of at least " + MIN_SECRET_BYTES + " bytes";
            case "secret-file" -> "the path of a file holding at least " + MIN_SECRET_BYTES + " bytes";
            case "handover-linger" -> "a duration from 0ms to 10s, e.g. 200ms";
            default -> "a single value";
        };
    }

    private static String syntaxError(JacksonException e) {
        JsonLocation at = e.getLocation();
        String where = at == null ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": ";
        String message = e.getOriginalMessage();
        if (message != null && message.startsWith("Duplicate field")) {
            String field = message.substring(message.indexOf('\'') + 1, message.lastIndexOf('\''));
            return where + "duplicate key '" + field + "': allowed each key once (and each peer id once under"
                    + " peers)";
        }
        return where + "not valid YAML: " + message;
    }

    private static String kind(JsonNode node) {
        return node.isArray() ? "list" : "single value";
    }

    private static String describe(Exception e) {
        return e.getMessage() == null
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
