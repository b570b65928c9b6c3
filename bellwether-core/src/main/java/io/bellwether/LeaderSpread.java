package io.bellwether;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The order in which a group prefers its members as leader when leaders are spread ({@link
 * ElectionBuilder#spreadLeaders}): each member gets a score from a hash of the group's name and its own id, and the
 * highest score is preferred (rendezvous hashing). Every member computes the same order from the same names, with
 * nothing exchanged, so a process that hosts many groups leads about one in {@code members} of them; when a member is
 * gone, the groups it was preferred for go to their next choices, which are themselves spread over the others, and
 * come back to it when it returns.
 *
 * <p>The hash is fixed here (FNV-1a over the UTF-8 bytes of the group, a zero byte and the member id, then the
 * SplitMix64 finalizer), so the order does not depend on the JVM, its version or its hash seeds. Thread-safe.
 */
public final class LeaderSpread {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    /** Between the group's name and the member's id in a score's hash. */
    private static final byte[] SEPARATOR = {0};

    private LeaderSpread() {}

    /** The members of {@code group}, most preferred as leader first. */
    public static List<NodeId> order(String group, Collection<NodeId> members) {
        Objects.requireNonNull(group, "group");
        List<NodeId> order = new ArrayList<>(members);
        Comparator<NodeId> byScore =
                Comparator.comparingLong((NodeId m) -> score(group, m)).reversed();
        order.sort(byScore.thenComparing(Comparator.naturalOrder()));
        return List.copyOf(order);
    }

    /**
     * Each member's priority in {@code group} (rule 11 of {@code docs/quorum.md}): {@code members − 1} for the most
     * preferred, down to 0 for the least, in {@link #order} order.
     */
    public static Map<NodeId, Integer> priorities(String group, Collection<NodeId> members) {
        List<NodeId> order = order(group, members);
        Map<NodeId, Integer> priorities = new LinkedHashMap<>();
        for (int i = 0; i < order.size(); i++) {
            priorities.put(order.get(i), order.size() - 1 - i);
        }
        return priorities;
    }

    /**
     * The group's own fraction, in [0, 1), of the priority hold-down that is added to it when leaders are spread: the
     * groups that prefer a member that comes back are handed to it over one more hold-down, not all at once.
     */
    public static double stagger(String group) {
        long h = fnv(FNV_OFFSET, Objects.requireNonNull(group, "group").getBytes(StandardCharsets.UTF_8));
        return (mix(h) >>> 11) * 0x1.0p-53;
    }

    /** The score of {@code member} in {@code group}: higher is preferred. */
    static long score(String group, NodeId member) {
        long h = fnv(FNV_OFFSET, group.getBytes(StandardCharsets.UTF_8));
        h = fnv(h, SEPARATOR);
        return mix(fnv(h, member.value().getBytes(StandardCharsets.UTF_8)));
    }

    private static long fnv(long h, byte[] bytes) {
        for (byte b : bytes) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        return h;
    }

    /** The SplitMix64 finalizer: every input bit moves about half the output bits. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
