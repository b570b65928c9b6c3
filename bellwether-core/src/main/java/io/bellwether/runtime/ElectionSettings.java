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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;

/**
 * Internal: the one way into the runtime from outside its package. {@link io.bellwether.ElectionBuilder} validates a
 * configuration, puts it in one of these and calls {@link #newElection()}; users build elections with {@link
 * Election#builder()}, never with this. Public only because the builder lives in another package; not part of the
 * API (the runtime package is not exported).
 *
 * @param group the group's name
 * @param self this member
 * @param members every member, this one included
 * @param addresses the address of each member that has one (all of them for a peer transport; a lease member's may
 *     have none), for {@link io.bellwether.LeaderView#address()}
 * @param algorithm the elector to run
 * @param stateStore where the elector's counters survive restarts
 * @param transport the transport shared by the process's elections; null for an election without one (its
 *     algorithm sends no peer messages), which then registers nowhere and drops what its elector sends
 * @param revocationLead how long before a leadership's validity ends the watchdog revokes it
 * @param seed the seed of the elector's random source; empty for one drawn from {@link java.security.SecureRandom}
 * @param listenerExecutor where listeners' callbacks run, each listener in order; empty for the election's notifier
 */
public record ElectionSettings(
        String group,
        NodeId self,
        SortedSet<NodeId> members,
        Map<NodeId, NodeAddress> addresses,
        ElectorSpec algorithm,
        StateStore stateStore,
        Transport transport,
        Duration revocationLead,
        OptionalLong seed,
        Optional<Executor> listenerExecutor) {
    /**
     * Checks for nulls (but {@code transport}'s) and that {@code self} is among the members; the builder has checked
     * the rest.
     */
    public ElectionSettings {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(self, "self");
        members = Collections.unmodifiableSortedSet(new TreeSet<>(Objects.requireNonNull(members, "members")));
        addresses = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(addresses, "addresses")));
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(stateStore, "stateStore");
        transport = transport != null ? transport : new NoTransport(group, self);
        Objects.requireNonNull(revocationLead, "revocationLead");
        Objects.requireNonNull(seed, "seed");
        Objects.requireNonNull(listenerExecutor, "listenerExecutor");
        if (!members.contains(self)) {
            throw new IllegalArgumentException("self = " + self + " is not among members " + members);
        }
    }

    /** A dormant election over these settings; {@link Election#start()} it. */
    public Election newElection() {
        return new RuntimeElection(this);
    }
}
