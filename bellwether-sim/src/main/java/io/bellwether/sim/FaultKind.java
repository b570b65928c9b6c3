package io.bellwether.sim;

import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The kinds of fault the simulator injects; names as written on the command line.
 *
 * <p>Not every kind applies to every algorithm, and a run silently skips the kinds that do not: the lease
 * elector talks to nothing but its store, so lease runs ignore the network-only kinds ({@link #isNetworkOnly()}:
 * partitions, loss, duplication, reordering, resets, forged frames); the message-passing algorithms use no store, so their runs
 * ignore the store kinds ({@link #isStoreOnly()}). Process and clock faults (crash, silent crash, pause, pause-all,
 * starve, drift, stop) apply to all, and resign to every algorithm that can resign. {@code all} therefore means "every kind that
 * applies".
 */
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
    /**
     * Pause every node's process at once (a stall of the whole host or hypervisor, a stop-the-world pause of a
     * process that hosts every member), then resume them all at the same instant, in a random order: every
     * timer of every node falls due together, as after an overload.
     */
    PAUSE_ALL("pause-all"),
    /**
     * CPU starvation (an overloaded host): for a while, every member's process (or, half the time, one member's,
     * often the leader's) runs slowly. Each event it handles (a message, a timer, a notification) costs it a random
     * service time up to the fault's bound (1–100 ms per member), and events wait their turn in the order they arrived,
     * so timers fire late, answers go out late, and a backlog builds up when events arrive faster than they are
     * served, up to a second behind. When the fault ends the backlog drains at once.
     */
    STARVE("starve"),
    /** Give every node's monotonic clock its own rate error, within the configured drift bound. */
    DRIFT("drift"),
    /** Stop a node gracefully (a leader cedes its leadership), then start it again. */
    STOP("stop"),
    /** The lease store stops answering for a while: requests that reach it are neither applied nor answered. */
    STORE_OUTAGE("store-outage"),
    /** The lease store answers late for a while (up to seconds), often after the request's timeout. */
    STORE_SLOW("store-slow"),
    /** For a while, a fraction of the store's replies are lost after the store applied the request. */
    LOST_REPLY("lost-reply"),
    /**
     * A Byzantine-lite peer: for a while, one member also sends well-formed frames whose term, epoch or group
     * counter is extreme ({@code Long.MAX_VALUE}, {@code Long.MAX_VALUE − 1}, the counter bound, the bound + 1,
     * negative) to random members at random times. Receivers must refuse them (see {@link ByzantinePeer}).
     */
    BYZANTINE_LITE("byzantine-lite"),
    /**
     * A member, often the leader, resigns and stays a member ({@link io.bellwether.elector.Elector#resign}) with a
     * random hold-off, during which it must not lead (the {@code no-leadership-during-hold-off} check). Only for
     * algorithms that can resign ({@link io.bellwether.elector.ElectorSpec#resignHoldOff()}).
     */
    RESIGN("resign");

    private final String cliName;

    FaultKind(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** Whether the kind acts only on the store, so only lease runs use it. */
    public boolean isStoreOnly() {
        return this == STORE_OUTAGE || this == STORE_SLOW || this == LOST_REPLY;
    }

    /** Whether the kind acts only on peer-to-peer messages, so lease runs (which send none) skip it. */
    public boolean isNetworkOnly() {
        return switch (this) {
            case PARTITION, ONE_WAY, ISOLATE, LOSS, DUPLICATE, REORDER, RESET, BYZANTINE_LITE -> true;
            default -> false;
        };
    }

    /**
     * Whether a run of the registered run {@code algorithm} injects this kind.
     *
     * @throws IllegalArgumentException if no registered algorithm offers that run
     */
    public boolean appliesTo(String algorithm) {
        return appliesTo(SimulationConfig.variantOf(algorithm));
    }

    /** Whether {@code run} injects this kind: store faults need a store, network faults peer messages. */
    public boolean appliesTo(Variant run) {
        if (isStoreOnly()) {
            return run.has(Trait.USES_STORE);
        }
        return !isNetworkOnly() || run.has(Trait.PEER_MESSAGES);
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
