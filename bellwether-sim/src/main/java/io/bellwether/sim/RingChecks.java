package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.ring.RingMessage;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;

/**
 * The ring elector's checks ({@code ring} in a variant's checks), on every message a node sends:
 * ring-coordinator-names-max (a COORDINATOR names the greatest of its ids) and ring-forward-once (a node
 * forwards an election id at most once per message kind, per incarnation: what a node forwarded is volatile
 * state, and a restarted process has forgotten it, which is harmless because every other node still drops the
 * id).
 */
final class RingChecks {
    private final Engine e;
    // ring-forward-once, per node incarnation: (kind, election id) -> the message id it was forwarded under
    private final List<HashMap<Forward, Long>> forwarded;

    private record Forward(String kind, RingMessage.ElectionId election) {}

    RingChecks(Engine engine) {
        this.e = engine;
        this.forwarded = Invariants.perNode(engine, HashMap::new);
    }

    void onIncarnation(SimNode node) {
        forwarded.get(node.index).clear();
    }

    void onSend(SimNode from, RingMessage m) {
        Forward key;
        if (m instanceof RingMessage.Election el) {
            key = new Forward("ELECTION", el.election());
        } else if (m instanceof RingMessage.Coordinator c) {
            key = new Forward("COORDINATOR", c.election());
            NodeId max = Collections.max(c.ids());
            if (!c.leader().equals(max)) {
                e.violate(
                        "ring-coordinator-names-max",
                        from.name + " sent COORDINATOR of election " + c.election() + " naming " + c.leader()
                                + ", not the greatest of its ids " + c.ids(),
                        new int[] {from.index});
                return;
            }
        } else {
            return;
        }
        // Retransmissions and skips to a further successor keep the message id: the same forward.
        Long earlier = forwarded.get(from.index).putIfAbsent(key, m.messageId());
        if (earlier != null && earlier != m.messageId()) {
            e.violate(
                    "ring-forward-once",
                    from.name + " forwarded " + key.kind() + " of election " + key.election() + " twice (message ids "
                            + earlier + " and " + m.messageId() + ")",
                    new int[] {from.index});
        }
    }
}
