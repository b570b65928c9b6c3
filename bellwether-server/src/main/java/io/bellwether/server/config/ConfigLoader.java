package io.bellwether.server.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.server.http.HttpLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads and validates a node's YAML configuration file. Validation does not stop at the first problem: a
 * {@link ConfigException} lists every problem found, each naming the key, the value and what is allowed.
 *
 * <p>Each section has its reader ({@link IdentitySection}, {@link PeersSection}, {@link SecretSection},
 * {@link TlsSection}, {@link HttpLimitsSection}, {@link QuorumSection}, {@link ClassicSection},
 * {@link LeaseSection}), all reading through {@link ConfigValues}; this class runs them in the order their
 * problems are reported and puts the result together.
 *
 * <p>Relative paths ({@code secret-file}, {@code state-dir}, {@code tls.*}) are resolved against the directory
 * of the configuration file.
 */
public final class ConfigLoader {
    /** The algorithms that can run now. */
    public static final List<String> AVAILABLE_ALGORITHMS = List.of("quorum", "bully", "ring", "invitation", "lease");

    /** The classic algorithms, each with an optional section of its own timings named like it. */
    public static final List<String> CLASSIC_ALGORITHMS = List.of("bully", "ring", "invitation");

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
            TlsSection.KEY,
            "max-frame-bytes",
            "handover-linger",
            HttpLimitsSection.KEY,
            QuorumSection.KEY,
            "bully",
            "ring",
            "invitation",
            LeaseSection.KEY);
    private static final ObjectMapper YAML =
            new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** Every level that has its own keys, the top level as {@code ""}: where a misplaced key is looked up. */
    private static final Map<String, List<String>> LEVELS = levels();

    private ConfigLoader() {}

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
                    List.of("the file must be a mapping of keys (cluster: ..., node: ...), was a "
                            + (root.isArray() ? "list" : "single value")));
        }
        // A misplaced key most likely belongs in the configured algorithm's section.
        String preferred = root.path("algorithm").asText("quorum");
        ConfigValues top = ConfigValues.top((ObjectNode) root, baseDir, LEVELS, preferred);
        NodeConfig config = read(top);
        if (!top.errors().isEmpty()) {
            throw new ConfigException(source, top.errors());
        }
        return config;
    }

    private static Map<String, List<String>> levels() {
        Map<String, List<String>> levels = new LinkedHashMap<>();
        levels.put(QuorumSection.KEY, QuorumSection.KEYS);
        levels.put(LeaseSection.KEY, LeaseSection.KEYS);
        for (String classic : CLASSIC_ALGORITHMS) {
            levels.put(classic, ClassicSection.KEYS.get(classic));
        }
        levels.put(TlsSection.KEY, TlsSection.KEYS);
        levels.put("", TOP_KEYS);
        return Collections.unmodifiableMap(levels);
    }

    private static NodeConfig read(ConfigValues top) {
        top.unknownKeys(TOP_KEYS);
        IdentitySection.Identity identity = IdentitySection.read(top, AVAILABLE_ALGORITHMS);
        String algorithm = identity.algorithm();
        boolean lease = LeaseSection.KEY.equals(algorithm);
        PeersSection.Members members = PeersSection.read(top, identity.node(), lease);
        SecretSection.Secret secret = SecretSection.read(top, lease);
        Path stateDir = stateDir(top, lease);
        Optional<NodeConfig.Tls> tls = TlsSection.read(top);
        int maxFrameBytes = top.wholeNumber(
                "max-frame-bytes", NodeConfig.DEFAULT_MAX_FRAME_BYTES, MIN_FRAME_BYTES, MAX_FRAME_BYTES);
        Duration handoverLinger = top.duration(
                "handover-linger",
                NodeConfig.DEFAULT_HANDOVER_LINGER,
                Duration.ZERO,
                NodeConfig.MAX_HANDOVER_LINGER,
                "a duration from 0ms to 10s, e.g. 200ms");
        HttpLimits httpLimits = HttpLimitsSection.read(top);

        QuorumConfig quorum = QuorumSection.read(top);
        givenFor(top, QuorumSection.KEY, algorithm);
        ElectorSpec classic = null;
        for (String section : CLASSIC_ALGORITHMS) {
            if (section.equals(algorithm)) {
                classic = ClassicSection.read(top, section);
            } else {
                givenFor(top, section, algorithm);
            }
        }
        Optional<LeaseSettings> leaseSettings = Optional.empty();
        if (lease) {
            leaseSettings = Optional.ofNullable(LeaseSection.read(top, identity.group()));
        } else {
            givenFor(top, LeaseSection.KEY, algorithm);
        }

        if (!top.errors().isEmpty()) {
            return null;
        }
        return new NodeConfig(
                identity.cluster(),
                identity.node(),
                algorithm,
                identity.group(),
                members.listen(),
                members.http(),
                Collections.unmodifiableMap(new TreeMap<>(members.peers())),
                members.peersDns(),
                secret.secret(),
                secret.insecure(),
                stateDir,
                tls,
                maxFrameBytes,
                handoverLinger,
                quorum,
                leaseSettings,
                lease ? null : classic != null ? classic : quorum,
                httpLimits);
    }

    /** A problem if the section of the algorithm {@code section} is given while {@code algorithm} is another. */
    private static void givenFor(ConfigValues top, String section, String algorithm) {
        if (algorithm != null && !algorithm.equals(section) && top.has(section)) {
            top.error(section + " is given but algorithm = '" + algorithm + "': allowed only with algorithm: " + section
                    + " (remove the " + section + " section, or set algorithm: " + section + ")");
        }
    }

    /** {@code state-dir}: required unless the algorithm is lease (the lease elector persists nothing). */
    private static Path stateDir(ConfigValues top, boolean lease) {
        String what = "a directory where this node keeps its term (created if missing)";
        String text = lease && !top.has("state-dir") ? null : top.requiredText("state-dir", what);
        if (text == null) {
            return null;
        }
        Path dir = top.path(text);
        String problem = StateDirs.problem(dir);
        if (problem != null) {
            top.error("state-dir = '" + text + "' " + problem + ": allowed a directory this process can write"
                    + " (created if missing)");
        }
        return dir;
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

    static String describe(Exception e) {
        return e.getMessage() == null
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
