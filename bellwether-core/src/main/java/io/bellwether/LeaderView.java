package io.bellwether;

import java.util.Objects;
import java.util.Optional;

/**
 * Who leads the group, as this member knows it.
 *
 * @param leader the leader's id
 * @param address the leader's peer address, when the configuration knows it
 * @param epoch the leader's epoch: its fencing token, strictly increasing across leaderships of a group
 * @param learnedAtNanos when this member learned it, on the local monotonic clock ({@link System#nanoTime()}
 *     in the runtime, virtual time in the simulator)
 */
public record LeaderView(NodeId leader, Optional<NodeAddress> address, long epoch, long learnedAtNanos) {
    public LeaderView {
        Objects.requireNonNull(leader, "leader");
        Objects.requireNonNull(address, "address");
    }
}
