package io.bellwether.spring;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.spi.LeaseStore;
import io.bellwether.state.GroupNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.springframework.boot.convert.DurationStyle;

/**
 * The {@code bellwether.*} properties checked and with their defaults filled in. Every refusal is a {@link
 * BellwetherConfigurationException} naming the property; the core builders' own messages are reused, their keys
 * prefixed with the property's path.
 *
 * @param group the election group
 * @param node this member's id
 * @param algorithm the algorithm
 * @param timings the values of the algorithm's section, typed as {@link Algorithm#configure} wants them
 * @param peers every member with its address (peer algorithms), empty in lease mode
 * @param listen where to accept peer connections (peer algorithms)
 * @param cluster the TCP cluster name
 * @param secret the cluster secret, or null with {@code insecure}
 * @param stateDir where a peer algorithm persists its state, null in lease mode
 * @param lease the lease-mode store properties
 * @param stopTimeout how long shutdown waits for leader-only methods
 */
record Settings(
        String group,
        NodeId node,
        Algorithm algorithm,
        Map<String, Object> timings,
        Map<NodeId, NodeAddress> peers,
        NodeAddress listen,
        String cluster,
        byte[] secret,
        Path stateDir,
        BellwetherProperties.Lease lease,
        Duration stopTimeout) {
    static final String PREFIX = "bellwether.";
    private static final int MIN_SECRET_BYTES = 16;

    /** Whether the members elect through a lease store rather than by messages to each other. */
    boolean leaseMode() {
        return algorithm.traits().contains(Trait.USES_STORE);
    }

    /**
     * The algorithm's specification for {@code group}, checking the relations between its timings.
     *
     * @param store the lease store, in lease mode
     */
    ElectorSpec spec(String group, LeaseStore store) {
        try {
            return algorithm.configure(timings, new Environment(group, store, null));
        } catch (IllegalArgumentException e) {
            throw refused(algorithm.name(), algorithm, e);
        }
    }

    /**
     * The bound the lease store puts on each of its calls: the lease's {@code request-timeout} (default a third of
     * its {@code duration}), clamped to what the stores allow, 100 ms to 60 s.
     */
    Duration storeRequestTimeout() {
        Duration timeout = (Duration) timings.get("request-timeout");
        if (timeout == null) {
            timeout = ((Duration) timings.getOrDefault("duration", Duration.ofSeconds(3))).dividedBy(3);
        }
        Duration min = Duration.ofMillis(100);
        Duration max = Duration.ofSeconds(60);
        return timeout.compareTo(min) < 0 ? min : timeout.compareTo(max) > 0 ? max : timeout;
    }

    /** Checks {@code properties}; {@code applicationName} is the default group. */
    static Settings resolve(BellwetherProperties properties, String applicationName) {
        String group = group(properties.getGroup(), applicationName);
        boolean peersSet = !properties.getPeers().isEmpty();
        String algorithmName = Optional.ofNullable(properties.getAlgorithm())
                .map(a -> a.trim().toLowerCase(Locale.ROOT))
                .orElse(peersSet ? "quorum" : "lease");
        Algorithm algorithm = Algorithms.byName(algorithmName)
                .orElseThrow(() -> new BellwetherConfigurationException(
                        PREFIX + "algorithm",
                        PREFIX + "algorithm = '" + properties.getAlgorithm() + "' is unknown: allowed "
                                + String.join(", ", Algorithms.names()),
                        null));
        boolean lease = algorithm.traits().contains(Trait.USES_STORE);
        Map<String, Object> timings = timings(properties, algorithm);

        Map<NodeId, NodeAddress> peers = new TreeMap<>();
        properties.getPeers().forEach((id, address) -> {
            NodeId member = nodeId(PREFIX + "peers key", id);
            peers.put(member, address(PREFIX + "peers." + id, address));
        });
        checkDistinct(peers);
        NodeId node =
                properties.getNode() != null ? nodeId(PREFIX + "node", properties.getNode()) : NodeId.of(defaultNode());
        if (!lease && peers.isEmpty()) {
            throw new BellwetherConfigurationException(
                    PREFIX + "peers",
                    PREFIX + "peers is required with " + PREFIX + "algorithm = " + algorithm.name()
                            + ": every member, this one included, as id: host:port (or use algorithm lease)",
                    null);
        }
        if (!peers.isEmpty() && !peers.containsKey(node)) {
            throw new BellwetherConfigurationException(
                    PREFIX + "node",
                    PREFIX + "node = '" + node + "' is not one of " + PREFIX + "peers " + peers.keySet()
                            + ": allowed one of them (set " + PREFIX + "node)",
                    null);
        }
        NodeAddress listen = null;
        byte[] secret = null;
        Path stateDir = null;
        String cluster = properties.getCluster() == null ? group : check(PREFIX + "cluster", properties.getCluster());
        if (!lease) {
            listen = properties.getListen() == null
                    ? peers.get(node)
                    : address(PREFIX + "listen", properties.getListen());
            checkListen(listen, peers.get(node));
            secret = secret(properties);
            stateDir = properties.getStateDir();
            if (stateDir == null) {
                throw new BellwetherConfigurationException(
                        PREFIX + "state-dir",
                        PREFIX + "state-dir is required with " + PREFIX + "algorithm = " + algorithm.name()
                                + ": a directory this process can write, where the member keeps its term (a member"
                                + " that forgets it after a restart can vote twice in one term)",
                        null);
            }
        }
        Duration stopTimeout = properties.getStopTimeout();
        if (stopTimeout == null || stopTimeout.isNegative() || stopTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new BellwetherConfigurationException(
                    PREFIX + "stop-timeout",
                    PREFIX + "stop-timeout = " + stopTimeout + " is out of range: allowed 0ms to 10m",
                    null);
        }
        checkLeaseStore(properties.getLease());
        return new Settings(
                group,
                node,
                algorithm,
                timings,
                peers,
                listen,
                cluster,
                secret,
                stateDir,
                properties.getLease(),
                stopTimeout);
    }

    private static String group(String configured, String applicationName) {
        if (configured != null) {
            return check(PREFIX + "group", configured);
        }
        if (applicationName != null && !applicationName.isBlank()) {
            if (!validGroup(applicationName)) {
                throw new BellwetherConfigurationException(
                        PREFIX + "group",
                        PREFIX + "group is not set and its default, spring.application.name = '" + applicationName
                                + "', is not a valid group name: set " + PREFIX + "group to " + GroupNames.ALLOWED,
                        null);
            }
            return applicationName;
        }
        return "default";
    }

    /** Whether {@code name} is a valid group name. */
    static boolean validGroup(String name) {
        try {
            GroupNames.check("group", name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String check(String property, String value) {
        try {
            return GroupNames.check(property, value);
        } catch (IllegalArgumentException e) {
            throw new BellwetherConfigurationException(property, e.getMessage(), e);
        }
    }

    private static NodeId nodeId(String property, String value) {
        if (!NodeId.isValid(value)) {
            throw new BellwetherConfigurationException(
                    property,
                    property + " = '" + value + "' is invalid: allowed 1-64 characters of letters, digits, '.', '_'"
                            + " and '-' (write an id with '.' as " + PREFIX + "peers[a.b])",
                    null);
        }
        return NodeId.of(value);
    }

    private static NodeAddress address(String property, String value) {
        try {
            NodeAddress address = NodeAddress.parse(value == null ? "" : value.trim());
            return address;
        } catch (IllegalArgumentException e) {
            throw new BellwetherConfigurationException(
                    property,
                    property + " = '" + value + "' is invalid: allowed host:port (IPv6 as [::1]:7101), port 1-65535",
                    e);
        }
    }

    private static void checkDistinct(Map<NodeId, NodeAddress> peers) {
        Map<NodeAddress, NodeId> seen = new LinkedHashMap<>();
        peers.forEach((id, address) -> {
            NodeId before = seen.putIfAbsent(address, id);
            if (before != null) {
                throw new BellwetherConfigurationException(
                        PREFIX + "peers." + id,
                        PREFIX + "peers." + id + " = '" + address + "' duplicates the address of " + PREFIX + "peers."
                                + before + ": allowed a distinct host:port per member",
                        null);
            }
        });
    }

    private static void checkListen(NodeAddress listen, NodeAddress own) {
        boolean wildcard = listen.host().equals("0.0.0.0") || listen.host().equals("::");
        if (!listen.equals(own) && !(wildcard && listen.port() == own.port())) {
            throw new BellwetherConfigurationException(
                    PREFIX + "listen",
                    PREFIX + "listen = '" + listen + "' differs from this member's address under " + PREFIX + "peers ("
                            + own + "): allowed that address, or a wildcard host with its port",
                    null);
        }
    }

    private static byte[] secret(BellwetherProperties properties) {
        String secret = properties.getSecret();
        if (properties.isInsecure()) {
            if (secret != null) {
                throw new BellwetherConfigurationException(
                        PREFIX + "insecure",
                        PREFIX + "insecure = true and " + PREFIX + "secret are both set: allowed one of them",
                        null);
            }
            return null;
        }
        if (secret == null) {
            throw new BellwetherConfigurationException(
                    PREFIX + "secret",
                    PREFIX + "secret is required with peers: at least " + MIN_SECRET_BYTES + " bytes shared by every"
                            + " member (or, knowingly, " + PREFIX + "insecure = true)",
                    null);
        }
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_SECRET_BYTES) {
            throw new BellwetherConfigurationException(
                    PREFIX + "secret",
                    PREFIX + "secret = (" + bytes.length + " bytes, not shown) is too short: allowed at least "
                            + MIN_SECRET_BYTES + " bytes",
                    null);
        }
        return bytes;
    }

    private static void checkLeaseStore(BellwetherProperties.Lease lease) {
        if (lease.getStore() == null) {
            throw new BellwetherConfigurationException(
                    PREFIX + "lease.store", PREFIX + "lease.store is empty: allowed auto, jdbc or redis", null);
        }
    }

    /**
     * The values of the algorithm's section, each checked by the algorithm's builder. A section of another algorithm
     * than the one chosen is refused, as the daemon does.
     */
    private static Map<String, Object> timings(BellwetherProperties properties, Algorithm algorithm) {
        Map<String, Map<String, ?>> sections = new LinkedHashMap<>();
        sections.put("lease", properties.getLease().timings());
        sections.put("quorum", properties.getQuorum().timings());
        sections.put("bully", properties.getBully());
        sections.put("ring", properties.getRing());
        sections.put("invitation", properties.getInvitation());
        for (Map.Entry<String, Map<String, ?>> section : sections.entrySet()) {
            if (!section.getKey().equals(algorithm.name())
                    && !section.getValue().isEmpty()) {
                String key = section.getValue().keySet().iterator().next();
                throw new BellwetherConfigurationException(
                        PREFIX + section.getKey() + "." + key,
                        PREFIX + section.getKey() + "." + key + " is set but " + PREFIX + "algorithm is "
                                + algorithm.name() + ": allowed only the " + PREFIX + algorithm.name() + ".* timings",
                        null);
            }
        }
        Map<String, ?> raw = sections.getOrDefault(algorithm.name(), Map.of());
        Map<String, Object> typed = new LinkedHashMap<>();
        raw.forEach((key, value) -> {
            Object v = value instanceof String text ? typed(algorithm, key, text) : value;
            try {
                algorithm.check(key, v);
            } catch (IllegalArgumentException e) {
                throw refused(algorithm.name(), algorithm, e);
            }
            typed.put(key, v);
        });
        return typed;
    }

    /** A text value of a map-bound section converted to its setting's kind, as Spring binds typed properties. */
    private static Object typed(Algorithm algorithm, String key, String text) {
        Setting<?> setting = algorithm.settings().stream()
                .filter(s -> s.key().equals(key))
                .findFirst()
                .orElseThrow(() -> new BellwetherConfigurationException(
                        PREFIX + algorithm.name() + "." + key,
                        PREFIX + algorithm.name() + "." + key + " is unknown: allowed "
                                + String.join(
                                        ", ",
                                        algorithm.settings().stream()
                                                .map(Setting::key)
                                                .toList()),
                        null));
        String value = text.trim();
        try {
            return switch (setting.kind()) {
                case DURATION -> DurationStyle.detectAndParse(value);
                case INTEGER -> Integer.valueOf(value);
                case DECIMAL -> Double.valueOf(value);
                case BOOLEAN -> {
                    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                        throw new IllegalArgumentException(value);
                    }
                    yield Boolean.valueOf(value);
                }
                case TEXT -> value;
            };
        } catch (IllegalArgumentException e) {
            String property = PREFIX + algorithm.name() + "." + key;
            throw new BellwetherConfigurationException(
                    property, property + " = '" + text + "' is invalid: allowed " + setting.allowed(), e);
        }
    }

    /**
     * The builder's refusal with its key turned into the property: its messages start with the key as the daemon's
     * YAML writes it ({@code duration = -1000ms is out of range: ...}).
     */
    private static BellwetherConfigurationException refused(
            String section, Algorithm algorithm, IllegalArgumentException e) {
        String message = String.valueOf(e.getMessage());
        for (Setting<?> setting : algorithm.settings()) {
            if (message.startsWith(setting.key() + " ")) {
                String property = PREFIX + section + "." + setting.key();
                return new BellwetherConfigurationException(property, PREFIX + section + "." + message, e);
            }
        }
        return new BellwetherConfigurationException(PREFIX + section, PREFIX + section + ": " + message, e);
    }

    /** {@code <host>-<pid>}: what tells this process apart, stable for its life, cut to a valid id. */
    static String defaultNode() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                host = "localhost";
            }
        }
        String pid = "-" + ProcessHandle.current().pid();
        String cleaned = host.replaceAll("[^A-Za-z0-9._-]", "-");
        int room = 64 - pid.length();
        return (cleaned.length() > room ? cleaned.substring(0, room) : cleaned) + pid;
    }
}
