package io.bellwether.elector;

import io.bellwether.NodeId;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The configured members of an elector (bully, ring, invitation, quorum) ranked by id (bully: by priority, then id), and this member's place among
 * them: the rank is the index in the sorted member list that ranked epochs encode (see {@link RankedEpoch}).
 * Built once per elector, at construction, so that a member list that is too large or lacks this member fails
 * before anything starts. Immutable.
 */
public final class PeerGroup {
    private final NodeId self;
    private final List<NodeId> members;
    private final Map<NodeId, Integer> index = new HashMap<>();
    private final int selfRank;

    private PeerGroup(NodeId self, List<NodeId> members) {
        this.self = self;
        this.members = members;
        for (int i = 0; i < members.size(); i++) {
            index.put(members.get(i), i);
        }
        Integer rank = index.get(self);
        if (rank == null) {
            throw new IllegalArgumentException("this member " + self + " is not among the members " + members);
        }
        this.selfRank = rank;
    }

    /**
     * The members of {@code context} (sorted by id), checked.
     *
     * @param tooMany the message for a group of more than {@code maxMembers} members, given the member count
     * @throws IllegalArgumentException if there are more than {@code maxMembers} members or this member is not
     *     among them
     */
    public static PeerGroup of(ElectorContext context, int maxMembers, IntFunction<String> tooMany) {
        List<NodeId> members = List.copyOf(context.members());
        if (members.size() > maxMembers) {
            throw new IllegalArgumentException(tooMany.apply(members.size()));
        }
        return new PeerGroup(context.self(), members);
    }

    /**
     * The members of {@code context} (sorted by id), of any number.
     *
     * @throws IllegalArgumentException if this member is not among them
     */
    public static PeerGroup of(ElectorContext context) {
        return new PeerGroup(context.self(), List.copyOf(context.members()));
    }

    /** The members of a ranked-epoch elector (bully, ring): at most {@link RankedEpoch#MAX_MEMBERS}. */
    public static PeerGroup ranked(ElectorContext context, String algorithm) {
        return ranked(context, algorithm, Map.of());
    }

    /**
     * The members of a ranked-epoch elector in (priority, id) order: ranks, and with them the epochs' rank bits, order
     * the members by {@code priorities} (members left out have 0) and then by id. Empty priorities give the id order.
     */
    public static PeerGroup ranked(ElectorContext context, String algorithm, Map<NodeId, Integer> priorities) {
        PeerGroup byId = of(
                context,
                RankedEpoch.MAX_MEMBERS,
                n -> "members = " + n + " is too many for the " + algorithm + " elector: allowed at most "
                        + RankedEpoch.MAX_MEMBERS);
        if (priorities.isEmpty()) {
            return byId;
        }
        List<NodeId> ordered = byId.members.stream()
                .sorted(Comparator.<NodeId>comparingInt(m -> priorities.getOrDefault(m, 0))
                        .thenComparing(Comparator.naturalOrder()))
                .toList();
        return new PeerGroup(context.self(), ordered);
    }

    /** This member. */
    public NodeId self() {
        return self;
    }

    /** Every member in rank order (by id unless {@link #ranked(ElectorContext, String, Map)} ordered them by priority), this one included. */
    public List<NodeId> members() {
        return members;
    }

    /** How many members the group has. */
    public int size() {
        return members.size();
    }

    /** The member of sorted index {@code rank}. */
    public NodeId get(int rank) {
        return members.get(rank);
    }

    /** Whether {@code node} is a configured member. */
    public boolean contains(NodeId node) {
        return index.containsKey(node);
    }

    /** The rank of {@code node}, or {@code null} if it is not a member. */
    public Integer rankOf(NodeId node) {
        return index.get(node);
    }

    /** Every member's rank, by member; unmodifiable. */
    public Map<NodeId, Integer> ranks() {
        return Collections.unmodifiableMap(index);
    }

    /** This member's rank. */
    public int selfRank() {
        return selfRank;
    }

    /** The members ranked above this one, lowest first. */
    public List<NodeId> higher() {
        return members.subList(selfRank + 1, members.size());
    }

    /** The members ranked below this one, lowest first. */
    public List<NodeId> lower() {
        return members.subList(0, selfRank);
    }

    /** Whether {@code node} (a member) ranks below this member. */
    public boolean isLower(NodeId node) {
        return index.get(node) < selfRank;
    }
}
