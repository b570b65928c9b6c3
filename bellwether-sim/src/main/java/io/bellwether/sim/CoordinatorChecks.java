package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorState;
import java.util.HashMap;

/**
 * What the classic split-brain algorithms (bully, ring) promise about the coordinators nodes adopt, since two
 * coordinators under a partition are not a violation for them: each epoch names one coordinator
 * (one-coordinator-per-epoch), and every node's adopted epochs strictly increase (adopted-epochs-increase; kept
 * across restarts: the adopted epoch is persisted).
 */
final class CoordinatorChecks {
    private final Engine e;
    // adopted-epochs-increase
    private final long[] adoptedEpoch;
    private final NodeId[] adoptedLeader;
    // one-coordinator-per-epoch
    private final HashMap<Long, NodeId> coordinatorOfEpoch = new HashMap<>();

    CoordinatorChecks(Engine engine) {
        this.e = engine;
        this.adoptedEpoch = new long[engine.n];
        this.adoptedLeader = new NodeId[engine.n];
    }

    /** A node names a coordinator only at an epoch above every one it named before. */
    void onAnnounce(SimNode node, ElectorState st) {
        if (st.leader().isEmpty()) {
            return;
        }
        int i = node.index;
        NodeId coordinator = st.leader().get();
        NodeId known = coordinatorOfEpoch.putIfAbsent(st.epoch(), coordinator);
        if (known != null && !known.equals(coordinator)) {
            e.violate(
                    "one-coordinator-per-epoch",
                    node.name + " names " + coordinator + " as coordinator of epoch " + st.epoch() + ", which " + known
                            + " coordinates",
                    new int[] {i, e.indexOf(known), e.indexOf(coordinator)});
            return;
        }
        long before = adoptedEpoch[i];
        NodeId beforeLeader = adoptedLeader[i];
        if (st.epoch() < before || (st.epoch() == before && !coordinator.equals(beforeLeader))) {
            e.violate(
                    "adopted-epochs-increase",
                    node.name + " adopted " + coordinator + " at epoch " + st.epoch() + " after having adopted "
                            + beforeLeader + " at epoch " + before,
                    new int[] {i});
            return;
        }
        adoptedEpoch[i] = st.epoch();
        adoptedLeader[i] = coordinator;
    }
}
