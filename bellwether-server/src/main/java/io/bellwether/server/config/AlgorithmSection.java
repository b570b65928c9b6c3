package io.bellwether.server.config;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Setting;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an algorithm's section (named like it: {@code quorum:}, {@code bully:} …) through its descriptor: every
 * {@link Setting} is read by its {@link Setting.Kind}, and {@link Algorithm#configure} builds the spec, so that the
 * node's messages and the library's are the same ones. A new algorithm needs nothing here.
 */
final class AlgorithmSection {
    /**
     * What a builder's message on a key leaves unsaid in a configuration file, by qualified key. The quorum
     * builder names missed-heartbeats alone; the file's reader also needs to know what it bounds.
     */
    private static final Map<String, String> HINTS = Map.of(
            "quorum.missed-heartbeats",
            " (the election timeout, heartbeat-interval × missed-heartbeats, must exceed the heartbeat interval)");

    /** One problem of the section and the index of the setting it is about, to report them in key order. */
    private record Problem(int index, String message) {}

    private final ConfigValues section;
    private final Algorithm algorithm;
    private final Environment environment;
    private final List<Setting<?>> settings;
    private final List<Problem> problems = new ArrayList<>();

    private AlgorithmSection(ConfigValues section, Algorithm algorithm, Environment environment) {
        this.section = section;
        this.algorithm = algorithm;
        this.environment = environment;
        this.settings = algorithm.settings();
    }

    /** The keys of {@code algorithm}'s section, in documentation order. */
    static List<String> keys(Algorithm algorithm) {
        return algorithm.settings().stream().map(Setting::key).toList();
    }

    /**
     * The section of {@code algorithm}, its defaults when absent; null after a problem.
     *
     * @param top the file's top level, where the section is named like the algorithm
     */
    static ElectorSpec read(ConfigValues top, Algorithm algorithm, Environment environment) {
        List<String> keys = keys(algorithm);
        ConfigValues section = top.section(algorithm.name(), "a mapping of the keys " + String.join(", ", keys));
        if (section == null) {
            return null;
        }
        int start = top.errorCount();
        section.unknownKeys(keys);
        return configure(section, algorithm, environment, start);
    }

    /**
     * Reads the settings of {@code algorithm} from {@code section} (which may hold other keys, the caller's
     * business) and builds its spec; null after a problem.
     *
     * @param start the file's problem count when the section began: problems since then keep the builder from
     *     reporting relations between values, as they may involve a value the file does not hold as written
     */
    static ElectorSpec configure(ConfigValues section, Algorithm algorithm, Environment environment, int start) {
        return new AlgorithmSection(section, algorithm, environment).configure(start);
    }

    private ElectorSpec configure(int start) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i < settings.size(); i++) {
            Setting<?> setting = settings.get(i);
            int before = section.errorCount();
            Object value = read(setting);
            if (value != null) {
                values.put(setting.key(), value);
            }
            // Taken out, to be reported in key order with the builder's problems.
            for (String message : section.takeErrorsSince(before)) {
                problems.add(new Problem(i, message));
            }
        }
        ElectorSpec spec = build(values, section.errorCount() > start);
        problems.sort(Comparator.comparingInt(Problem::index));
        problems.forEach(p -> section.error(p.message()));
        return problems.isEmpty() && section.errorCount() == start ? spec : null;
    }

    private Object read(Setting<?> setting) {
        String key = setting.key();
        return switch (setting.kind()) {
            case DURATION -> section.duration(key);
            case INTEGER -> section.wholeNumber(key, setting.allowed());
            case DECIMAL -> section.decimal(key, setting.allowed());
            case BOOLEAN -> section.bool(key);
            case TEXT -> section.text(key, setting.allowed());
        };
    }

    /**
     * Checks every value read on its own ({@link Algorithm#check}), so that each refused value is reported, then
     * builds the spec with {@link Algorithm#configure}. A relation between values (the builder's checks at build
     * time) is reported only as the section's first problem: after another one, the values are not all the file's.
     *
     * @param earlier whether the section has problems already
     */
    private ElectorSpec build(Map<String, Object> values, boolean earlier) {
        for (Map.Entry<String, Object> e : values.entrySet()) {
            try {
                algorithm.check(e.getKey(), e.getValue());
            } catch (IllegalArgumentException refused) {
                problem(String.valueOf(refused.getMessage()));
            }
        }
        if (earlier || !problems.isEmpty()) {
            return null;
        }
        try {
            return algorithm.configure(values, environment);
        } catch (IllegalArgumentException refused) {
            problem(String.valueOf(refused.getMessage()));
            return null;
        }
    }

    /** A builder's message, placed by the key it starts with (after every key when it names none). */
    private void problem(String message) {
        int index = indexOfKeyNamedIn(message);
        String key = index < 0 ? null : settings.get(index).key();
        problems.add(new Problem(
                index < 0 ? settings.size() : index,
                section.name(message) + (key == null ? "" : HINTS.getOrDefault(section.name(key), ""))));
    }

    /** The index of the setting whose key starts {@code message} (the longest such key); -1 if none. */
    private int indexOfKeyNamedIn(String message) {
        int found = -1;
        for (int i = 0; i < settings.size(); i++) {
            String key = settings.get(i).key();
            if (message.startsWith(key + " ")
                    && (found < 0 || key.length() > settings.get(found).key().length())) {
                found = i;
            }
        }
        return found;
    }
}
