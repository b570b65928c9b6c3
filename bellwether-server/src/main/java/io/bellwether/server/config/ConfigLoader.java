package io.bellwether.server.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.bellwether.NodeId;
import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Trait;
import io.bellwether.server.http.HttpLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
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
 * {@link TlsSection}, {@link HttpLimitsSection}, {@link AlgorithmSection} for every algorithm's section, and
 * {@link LeaseSection} for the store of an algorithm that elects through one), all reading through
 * {@link ConfigValues}; this class runs them in the order their problems are reported and puts the result
 * together. The algorithms, their sections and their keys come from {@link Algorithms}.
 *
 * <p>Relative paths ({@code secret-file}, {@code state-dir}, {@code tls.*}) are resolved against the directory
 * of the configuration file.
 */
public final class ConfigLoader {
    /**
     * The algorithms a node can run, in the order messages list them: those whose members exchange messages first,
     * then those that elect through a store.
     */
    private static final List<Algorithm> ALGORITHMS = Algorithms.all().stream()
            .sorted(Comparator.comparing(a -> a.traits().contains(Trait.USES_STORE)))
            .toList();

    /** The default algorithm: {@link Algorithms}' first. */
    private static final Algorithm DEFAULT_ALGORITHM = Algorithms.all().get(0);

    /** The algorithms that can run now. */
    public static final List<String> AVAILABLE_ALGORITHMS =
            ALGORITHMS.stream().map(Algorithm::name).toList();

    static final int MIN_FRAME_BYTES = 1024;
    static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;

    private static final List<String> TOP_KEYS = topKeys();
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
        String preferred = root.path("algorithm").asText(DEFAULT_ALGORITHM.name());
        ConfigValues top = ConfigValues.top((ObjectNode) root, baseDir, LEVELS, preferred);
        NodeConfig config = read(top);
        if (!top.errors().isEmpty()) {
            throw new ConfigException(source, top.errors());
        }
        return config;
    }

    private static List<String> topKeys() {
        List<String> keys = new ArrayList<>(List.of(
                "cluster",
                "node",
                "algorithm",
                "group",
                "groups",
                "spread-leaders",
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
                HttpLimitsSection.KEY));
        keys.addAll(AVAILABLE_ALGORITHMS);
        return List.copyOf(keys);
    }

    private static Map<String, List<String>> levels() {
        Map<String, List<String>> levels = new LinkedHashMap<>();
        for (Algorithm a : Algorithms.all()) {
            levels.put(a.name(), usesStore(a) ? LeaseSection.keys(a) : AlgorithmSection.keys(a));
        }
        levels.put(TlsSection.KEY, TlsSection.KEYS);
        levels.put("", TOP_KEYS);
        return Collections.unmodifiableMap(levels);
    }

    private static boolean usesStore(Algorithm algorithm) {
        return algorithm.traits().contains(Trait.USES_STORE);
    }

    private static NodeConfig read(ConfigValues top) {
        top.unknownKeys(TOP_KEYS);
        IdentitySection.Identity identity = IdentitySection.read(top, AVAILABLE_ALGORITHMS, DEFAULT_ALGORITHM.name());
        String algorithm = identity.algorithm();
        Algorithm chosen =
                algorithm == null ? null : Algorithms.byName(algorithm).orElse(null);
        // With a store the store is the only channel between members: peer addresses, the secret and the
        // persisted term are not needed, though they are accepted.
        boolean store = chosen != null && usesStore(chosen);
        PeersSection.Members members =
                PeersSection.read(top, identity.node(), store ? algorithm : null, peerAlgorithms());
        SecretSection.Secret secret = SecretSection.read(top, store);
        Path stateDir = stateDir(top, store);
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

        String group = identity.group() == null ? NodeConfig.DEFAULT_GROUP : identity.group();
        ElectorSpec elector = null;
        Optional<LeaseSettings> leaseSettings = Optional.empty();
        for (Algorithm a : ALGORITHMS) {
            if (a == chosen && usesStore(a)) {
                // Its elector is built when the node starts, over the store the settings name.
                leaseSettings = Optional.ofNullable(LeaseSection.read(top, a, identity.group()));
            } else if (a == chosen || a == DEFAULT_ALGORITHM) {
                // The default's section is read whatever the algorithm, so that its own problems are reported too.
                ElectorSpec spec = AlgorithmSection.read(top, a, Environment.of(group));
                elector = a == chosen ? spec : elector;
            }
            givenFor(top, a.name(), algorithm);
        }

        boolean spread = spreadLeaders(top, identity, chosen, elector);

        if (!top.errors().isEmpty()) {
            return null;
        }
        return new NodeConfig(
                identity.cluster(),
                identity.node(),
                algorithm,
                identity.group(),
                identity.groups(),
                spread,
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
                leaseSettings,
                elector,
                httpLimits);
    }

    /**
     * {@code spread-leaders}: given, it must suit the algorithm; not given, it is on for a node of several groups
     * whose algorithm spreads leaders (quorum, bully) and has no priorities set by hand, so that many groups are
     * led by all members alike rather than mostly by one.
     */
    private static boolean spreadLeaders(
            ConfigValues top, IdentitySection.Identity identity, Algorithm chosen, ElectorSpec elector) {
        boolean spreads = chosen != null
                && chosen.traits().contains(Trait.PEER_MESSAGES)
                && elector != null
                && spreadsLeaders(elector);
        boolean handSet = elector != null
                && (elector.priority() != 0
                        || (elector instanceof io.bellwether.elector.RankedConfig r
                                && !r.memberPriorities().isEmpty()));
        if (!top.has("spread-leaders")) {
            return spreads
                    && !handSet
                    && identity.groups() != null
                    && identity.groups().size() > 1;
        }
        Boolean given = top.bool("spread-leaders");
        if (given == null || !given || chosen == null || elector == null && !usesStore(chosen)) {
            return false;
        }
        if (!spreads) {
            top.error("spread-leaders = true is not allowed with algorithm: " + chosen.name() + ": allowed only with"
                    + " an algorithm that orders its members by priority (quorum, bully); set spread-leaders false");
            return false;
        }
        if (handSet) {
            top.error("spread-leaders = true is given with priorities set by hand in the " + chosen.name()
                    + " section: allowed one of them (spread-leaders gives each member its priority in each group"
                    + " from the group's name)");
            return false;
        }
        return true;
    }

    /** Whether an election of {@code spec} can take its priorities from {@link io.bellwether.LeaderSpread}. */
    private static boolean spreadsLeaders(ElectorSpec spec) {
        try {
            spec.withPriorities(Map.of(NodeId.of("probe"), 1), NodeId.of("probe"));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The algorithms whose members exchange messages, as a message lists them: {@code quorum, bully or ring}. */
    private static String peerAlgorithms() {
        List<String> names = ALGORITHMS.stream()
                .filter(a -> a.traits().contains(Trait.PEER_MESSAGES))
                .map(Algorithm::name)
                .toList();
        return names.size() < 2
                ? String.join("", names)
                : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    /** A problem if the section of the algorithm {@code section} is given while {@code algorithm} is another. */
    private static void givenFor(ConfigValues top, String section, String algorithm) {
        if (algorithm != null && !algorithm.equals(section) && top.has(section)) {
            top.error(section + " is given but algorithm = '" + algorithm + "': allowed only with algorithm: " + section
                    + " (remove the " + section + " section, or set algorithm: " + section + ")");
        }
    }

    /** {@code state-dir}: required unless the algorithm elects through a store (it persists nothing then). */
    private static Path stateDir(ConfigValues top, boolean store) {
        String what = "a directory where this node keeps its term (created if missing)";
        String text = store && !top.has("state-dir") ? null : top.requiredText("state-dir", what);
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
