package io.bellwether.elector;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One election algorithm as the rest of Bellwether sees it: its name, what it guarantees and needs, its
 * configuration section, the runs the simulator and the demo know, and which of its messages are keep-alives.
 * Each algorithm package exposes exactly one; {@link Algorithms} lists them. The configuration loader, the
 * simulator and its checks, the demo and the comparison benchmark read this descriptor instead of matching
 * names, so a new algorithm touches its own package and one line of {@link Algorithms}.
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface Algorithm {
    /**
     * Its name in configuration files, metrics, the CLI and {@link ElectorSpec#algorithm()}: lower case letters,
     * digits and dashes, e.g. {@code quorum}.
     */
    String name();

    /** One sentence for help texts and the docs: what it is and when to choose it. */
    String summary();

    /** What it guarantees and needs, for its defaults (a {@link Variant} may differ). */
    default Set<Trait> traits() {
        return variants().get(0).traits();
    }

    /**
     * Its configuration section (named like the algorithm), in documentation order. Keys the section does not
     * list are refused by every loader.
     */
    List<Setting<?>> settings();

    /**
     * Builds its validated specification from the values of its section.
     *
     * @param values typed values by key, only keys of {@link #settings()}, each of its setting's {@link
     *     Setting.Kind} ({@code Duration}, {@code Integer}, {@code Double}, {@code Boolean} or {@code String});
     *     keys left out keep their defaults
     * @param environment what the algorithm needs from outside its section (group name, store)
     * @throws IllegalArgumentException naming the key (as written in configuration files), the value and what
     *     is allowed
     */
    ElectorSpec configure(Map<String, Object> values, Environment environment);

    /**
     * Checks one value on its own, as its builder's setter does (its kind and range), without the relations
     * between keys that {@link #configure} checks when it builds. Loaders call it for every value so that a file
     * with several bad values gets every one of them reported, then {@link #configure} once.
     *
     * <p>The default checks that the key is one of {@link #settings()} and the value of its kind; algorithms with a
     * builder ({@link AbstractAlgorithm}) check it with the builder's setter.
     *
     * @throws IllegalArgumentException naming the key, the value and what is allowed, if the value is refused
     */
    default void check(String key, Object value) {
        Setting<?> setting = settings().stream()
                .filter(s -> s.key().equals(key))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(key + " is unknown: allowed "
                        + String.join(
                                ", ", settings().stream().map(Setting::key).toList())));
        if (!setting.kind().type().isInstance(value)) {
            throw new IllegalArgumentException(key + " = '" + value + "' is invalid: allowed " + setting.allowed());
        }
    }

    /**
     * The runs the simulator, the demo and the comparison offer: first the algorithm with its defaults (named
     * like it), then any named variants (for example {@code bully-strict}).
     */
    List<Variant> variants();

    /**
     * Whether {@code message} flows whether or not an election is under way (heartbeats and their answers,
     * periodic probes): such messages are not counted as election traffic. Only called with this algorithm's
     * messages.
     */
    boolean isKeepAlive(ElectorMessage message);

    /**
     * How many low bits of its epochs rank the member that minted them (0: epochs are plain counters). Checks
     * and fault injection read the counter part as {@code epoch >>> epochRankBits()}.
     */
    default int epochRankBits() {
        return 0;
    }

    /**
     * Where an encoded message body (as its codec writes it) carries the message's counter (term, epoch or group
     * counter), for the simulator's forged frames, which overwrite it with extreme values. The default: the body
     * starts with the epoch, ranked by {@link #epochRankBits()}.
     *
     * @param body a body its codec encoded
     */
    default CounterField counterField(byte[] body) {
        return new CounterField(0, epochRankBits());
    }

    /**
     * Where a message body carries its counter.
     *
     * @param offset the byte offset of the field (a big-endian {@code long})
     * @param rankBits how many low bits of the field rank the member that minted it (0: it is the counter itself)
     */
    record CounterField(int offset, int rankBits) {}

    /** Its default specification in {@code environment}: {@link #configure} with no values. */
    default ElectorSpec defaults(Environment environment) {
        return configure(Map.of(), environment);
    }

    /** The variant named {@code name}, if this algorithm offers it. */
    default java.util.Optional<Variant> variant(String name) {
        return variants().stream().filter(v -> v.name().equals(name)).findFirst();
    }
}
