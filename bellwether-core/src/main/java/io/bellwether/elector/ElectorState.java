package io.bellwether.elector;

import io.bellwether.NodeId;
import io.bellwether.Role;
import java.util.Objects;
import java.util.Optional;

/**
 * What an elector announces and what observers read.
 *
 * @param role this member's role
 * @param epoch the epoch this member is in (quorum: its term); for a leader, its fencing token
 * @param leader the leader this member follows (itself when leader), if any
 */
public record ElectorState(Role role, long epoch, Optional<NodeId> leader) {
    public static final ElectorState DORMANT = new ElectorState(Role.DORMANT, 0, Optional.empty());

    public ElectorState {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(leader, "leader");
    }

    // Written out rather than generated (through method handles, which the C1 compiler node daemons run with does
    // not inline): electors compare states on every heartbeat.
    @Override
    public boolean equals(Object o) {
        return this == o
                || (o instanceof ElectorState other
                        && role == other.role
                        && epoch == other.epoch
                        && leader.equals(other.leader));
    }

    @Override
    public int hashCode() {
        return (role.hashCode() * 31 + Long.hashCode(epoch)) * 31 + leader.hashCode();
    }

    @Override
    public String toString() {
        return role + "@" + epoch + leader.map(l -> " leader=" + l).orElse("");
    }
}
