package io.bellwether.runtime;

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
 * What {@link io.bellwether.ElectionBuilder} hands to {@link RuntimeElection} (through {@link ElectionFactory}):
 * already validated by the builder.
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
record ElectionSettings(
        String group,
        NodeId self,
        Map<NodeId, NodeAddress> members,
        ElectorSpec algorithm,
        StateStore stateStore,
        Transport transport,
        Duration revocationLead,
        OptionalLong seed) {
    ElectionSettings {
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
}
