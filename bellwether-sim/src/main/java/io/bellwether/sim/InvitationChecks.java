package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.invitation.GroupNumber;
import io.bellwether.invitation.InvitationElector;
import io.bellwether.invitation.InvitationElector.GroupView;
import io.bellwether.invitation.InvitationElector.Phase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * The invitation elector's checks ({@code invitation} in a variant's checks), on every node's {@link
 * InvitationElector#group()} view after each of its events and announcements: within one group number every
 * node in the normal state reports the same member list, containing itself and the coordinator, and a node
 * names (and acts as) no coordinator but its group's (one-group-view-per-number); each node's group numbers
 * strictly increase, across restarts too (group-numbers-increase). After the faults stop, {@link
 * #oneGroupProblem} tells the convergence check whether every live node is in one normal group.
 */
final class InvitationChecks {
    private final Engine e;
    // one-group-view-per-number: the member list first reported for each number
    private final HashMap<GroupNumber, List<NodeId>> membersOfGroup = new HashMap<>();
    // group-numbers-increase (kept across restarts: the counter is persisted)
    private final GroupNumber[] lastGroup;
    private final boolean[] newIncarnation;

    InvitationChecks(Engine engine) {
        this.e = engine;
        this.lastGroup = new GroupNumber[engine.n];
        this.newIncarnation = new boolean[engine.n];
    }

    void onIncarnation(SimNode node) {
        newIncarnation[node.index] = true;
    }

    /** The node's group view; empty when it is down or its elector is not an invitation elector. */
    private static Optional<GroupView> groupOf(SimNode node) {
        return node.elector instanceof InvitationElector ie ? ie.group() : Optional.empty();
    }

    /** The group-view checks of the class comment; false when one was violated. */
    boolean checkGroup(SimNode node) {
        Optional<GroupView> view = groupOf(node);
        if (view.isEmpty()) {
            return true;
        }
        GroupView g = view.get();
        int i = node.index;
        GroupNumber last = lastGroup[i];
        if (newIncarnation[i] || !g.number().equals(last)) {
            if (last != null && !g.number().isAbove(last)) {
                e.violate(
                        "group-numbers-increase",
                        node.name + " is in group " + g.number() + " (" + g.phase() + ")"
                                + (newIncarnation[i] ? " after restarting" : "") + " after having been in group "
                                + last,
                        new int[] {i});
                return false;
            }
            lastGroup[i] = g.number();
            newIncarnation[i] = false;
        }
        if (g.phase() != Phase.NORMAL) {
            return true;
        }
        int coordinator = e.indexOf(g.coordinator());
        if (!g.members().contains(node.id) || !g.members().contains(g.coordinator())) {
            e.violate(
                    "one-group-view-per-number",
                    node.name + " reports group " + g.number() + " with members " + g.members()
                            + ", which lack it or the coordinator",
                    new int[] {i, coordinator});
            return false;
        }
        List<NodeId> known = membersOfGroup.putIfAbsent(g.number(), g.members());
        if (known != null && !known.equals(g.members())) {
            e.violate(
                    "one-group-view-per-number",
                    node.name + " reports group " + g.number() + " with members " + g.members()
                            + ", another member reported " + known,
                    new int[] {i, coordinator});
            return false;
        }
        Optional<NodeId> named = node.elector.state().leader();
        boolean wrongLeader = named.isPresent() && !named.get().equals(g.coordinator());
        if (wrongLeader || (g.acting() && !g.coordinator().equals(node.id))) {
            e.violate(
                    "one-group-view-per-number",
                    node.name + " is in group " + g.number() + " coordinated by " + g.coordinator() + " but "
                            + (wrongLeader ? "names " + named.get() + " as leader" : "acts as its coordinator"),
                    new int[] {i, coordinator});
            return false;
        }
        return true;
    }

    /** Every live node is in the normal state of one group, whose members are the live nodes; or what is not. */
    String oneGroupProblem(SimNode leader) {
        List<NodeId> live = new ArrayList<>();
        for (SimNode node : e.nodes) {
            if (node.live()) {
                live.add(node.id);
            }
        }
        Collections.sort(live);
        GroupView lg = groupOf(leader).orElse(null);
        if (lg == null || lg.phase() != Phase.NORMAL || !lg.members().equals(live)) {
            return leader.name + " leads group " + (lg == null ? "?" : lg.number() + " with members " + lg.members())
                    + ", not one group of the live nodes " + live;
        }
        for (SimNode node : e.nodes) {
            if (!node.live()) {
                continue;
            }
            GroupView g = groupOf(node).orElse(null);
            if (g == null || g.phase() != Phase.NORMAL || !g.number().equals(lg.number())) {
                return node.name + " is in " + (g == null ? "no group" : g.phase() + " of group " + g.number())
                        + " while " + leader.name + " leads group " + lg.number();
            }
        }
        return null;
    }
}
