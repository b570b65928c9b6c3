package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.bully.BullyElector;
import io.bellwether.bully.BullyMessage;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the bully elector's strict mode promises beyond the bully checks ({@code bully-strict} runs), checked
 * from the messages the engine carries and the states nodes announce, never from the elector's insides:
 *
 * <ul>
 *   <li><b>strict-ready-only-to-adopters</b>: when a coordinator sends Ready for epoch e to a member, that member
 *       has persisted an epoch of at least e and does not act as leader at an older epoch. The coordinator sends
 *       its Ready set just before it announces LEADER, so this is "no coordinator acts before every member it
 *       counts has adopted its epoch and stopped acting on the old one".
 *   <li><b>strict-follow-only-after-ready</b>: a member names coordinator c at epoch e only after a Ready for e
 *       from c was delivered to it, in its current incarnation (a restarted member is admitted anew).
 * </ul>
 */
final class StrictBullyChecks {
    private final Engine e;
    /** Per node, this incarnation: the (coordinator, epoch) pairs of the Ready messages delivered to it. */
    private final List<Set<Delivered>> readies;

    private record Delivered(int from, long epoch) {}

    StrictBullyChecks(Engine engine) {
        this.e = engine;
        this.readies = Invariants.perNode(engine, HashSet::new);
    }

    void onIncarnation(SimNode node) {
        readies.get(node.index).clear();
    }

    void beforeDeliver(SimNode to, int from, ElectorMessage m) {
        if (m instanceof BullyMessage.Ready r) {
            readies.get(to.index).add(new Delivered(from, r.epoch()));
        }
    }

    void onSend(SimNode from, int to, ElectorMessage m) {
        if (!(m instanceof BullyMessage.Ready r)) {
            return;
        }
        SimNode member = e.nodes[to];
        long adopted = member.store.state.get(BullyElector.EPOCH_KEY, 0);
        if (adopted < r.epoch()) {
            e.violate(
                    "strict-ready-only-to-adopters",
                    from.name + " sent Ready for epoch " + r.epoch() + " to " + member.name
                            + ", which has persisted only epoch " + adopted,
                    new int[] {from.index, to});
        } else if (member.live() && member.announced.role() == Role.LEADER && member.announced.epoch() < r.epoch()) {
            e.violate(
                    "strict-ready-only-to-adopters",
                    from.name + " sent Ready for epoch " + r.epoch() + " to " + member.name
                            + ", which still acts as LEADER at epoch " + member.announced.epoch(),
                    new int[] {from.index, to});
        }
    }

    void onAnnounce(SimNode node, ElectorState prev, ElectorState st) {
        Optional<NodeId> named = st.leader();
        if (st.role() != Role.FOLLOWER || named.isEmpty()) {
            return;
        }
        if (prev.role() == Role.FOLLOWER && prev.leader().equals(named) && prev.epoch() == st.epoch()) {
            return;
        }
        int coordinator = e.indexOf(named.get());
        if (!readies.get(node.index).contains(new Delivered(coordinator, st.epoch()))) {
            e.violate(
                    "strict-follow-only-after-ready",
                    node.name + " names " + named.get() + " as coordinator of epoch " + st.epoch()
                            + " without having received its Ready for that epoch",
                    new int[] {node.index, coordinator});
        }
    }
}
