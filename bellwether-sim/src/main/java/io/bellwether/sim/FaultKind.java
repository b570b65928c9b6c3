package io.bellwether.sim;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** The kinds of fault the simulator injects; names as written on the command line. */
public enum FaultKind {
    /** Crash a node; peers' transports notice at once (connection reset). It restarts later, keeping its StateStore. */
    CRASH("crash"),
    /** Crash a node silently (host lost): peers notice nothing and must time out. It restarts later. */
    SILENT_CRASH("silent-crash"),
    /** Split the nodes into two sides that cannot reach each other in either direction; heal later. */
    PARTITION("partition"),
    /** Drop every message in one direction between two groups of nodes; heal later. */
    ONE_WAY("one-way"),
    /** Cut one node off from all others, then let it rejoin. */
    ISOLATE("isolate"),
    /** Lose a fraction of messages for a while. */
    LOSS("loss"),
    /** Deliver some messages twice for a while. */
    DUPLICATE("duplicate"),
    /** Delay messages by random amounts for a while, reordering them. */
    REORDER("reorder"),
    /** Reset the connection between two nodes: both ends are told, in-flight messages are lost. */
    RESET("reset"),
    /** Pause a node's process (it handles no events while time runs on), then resume it. */
    PAUSE("pause"),
    /** Give every node's monotonic clock its own rate error, within the configured drift bound. */
    DRIFT("drift"),
    /** Stop a node gracefully (a leader cedes its leadership), then start it again. */
    STOP("stop");

    private final String cliName;

    FaultKind(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** All kinds: the default fault mix. */
    public static Set<FaultKind> all() {
        return EnumSet.allOf(FaultKind.class);
    }

    /**
     * Parses a comma-separated list such as {@code crash,partition,loss}; {@code all} means every kind and
     * {@code none} means none.
     *
     * @throws IllegalArgumentException naming the unknown kind and listing the allowed ones
     */
    public static Set<FaultKind> parseList(String text) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        if (trimmed.equals("all")) {
            return all();
        }
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        if (trimmed.equals("none") || trimmed.isEmpty()) {
            return kinds;
        }
        for (String part : trimmed.split(",")) {
            String name = part.trim();
            kinds.add(Arrays.stream(values())
                    .filter(k -> k.cliName.equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + name + "': allowed "
                            + Arrays.stream(values()).map(FaultKind::cliName).collect(Collectors.joining(","))
                            + ", all or none")));
        }
        return kinds;
    }

    public static String toList(Set<FaultKind> kinds) {
        if (kinds.equals(all())) {
            return "all";
        }
        if (kinds.isEmpty()) {
            return "none";
        }
        return kinds.stream().map(FaultKind::cliName).collect(Collectors.joining(","));
    }
}
