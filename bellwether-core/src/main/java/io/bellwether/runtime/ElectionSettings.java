package io.bellwether.runtime;

import io.bellwether.Election;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.Transport;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Internal: the one way into the runtime from outside its package. {@link io.bellwether.ElectionBuilder} validates a
 * configuration, puts it in one of these and calls {@link #newElection()}; users build elections with {@link
 * Election#builder()}, never with this. Public only because the builder lives in another package; not part of the
 * API (the runtime package is not exported).
 *
 * @param group the group's name
 * @param self this member
 * @param members every member with its address, this one included
 * @param algorithm the elector to run
 * @param stateStore where the elector's counters survive restarts
 * @param transport the transport shared by the process's elections
 * @param revocationLead how long before a leadership's validity ends the watchdog revokes it
 * @param seed the seed of the elector's random source; empty for one drawn from {@link java.security.SecureRandom}
 */
public record ElectionSettings(
        String group,
        NodeId self,
        Map<NodeId, NodeAddress> members,
        ElectorSpec algorithm,
        StateStore stateStore,
        Transport transport,
        Duration revocationLead,
        OptionalLong seed) {
    /** Checks for nulls and that {@code self} is among the members; the builder has checked the rest. */
    public ElectionSettings {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(self, "self");
        members = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(members, "members")));
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(stateStore, "stateStore");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(revocationLead, "revocationLead");
        Objects.requireNonNull(seed, "seed");
        if (!members.containsKey(self)) {
            throw new IllegalArgumentException("self = " + self + " is not among members " + members.keySet());
        }
    }

    /** A dormant election over these settings; {@link Election#start()} it. */
    public Election newElection() {
        return new RuntimeElection(this);
    }
}
