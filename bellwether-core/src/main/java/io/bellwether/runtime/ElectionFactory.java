package io.bellwether.runtime;

import io.bellwether.Election;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.Transport;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Internal: the one way into the runtime from outside its package. {@link io.bellwether.ElectionBuilder} validates a
 * configuration and calls {@link #create}; users build elections with {@link Election#builder()}, never with this.
 * Public only because the builder lives in another package; not part of the API (the runtime package is not
 * exported).
 */
public final class ElectionFactory {
    private ElectionFactory() {}

    /**
     * A dormant election over an already validated configuration (the builder's checks are not repeated beyond
     * nulls and self among the members).
     *
     * @param group the group's name
     * @param self this member
     * @param members every member with its address, this one included
     * @param algorithm the elector to run
     * @param stateStore where the elector's counters survive restarts
     * @param transport the transport shared by the process's elections
     * @param revocationLead how long before a leadership's validity ends the watchdog revokes it
     * @param seed the seed of the elector's random source; empty for one drawn from {@link
     *     java.security.SecureRandom}
     * @throws IllegalArgumentException if {@code self} is not among {@code members}
     */
    public static Election create(
            String group,
            NodeId self,
            Map<NodeId, NodeAddress> members,
            ElectorSpec algorithm,
            StateStore stateStore,
            Transport transport,
            Duration revocationLead,
            OptionalLong seed) {
        return new RuntimeElection(
                new ElectionSettings(group, self, members, algorithm, stateStore, transport, revocationLead, seed));
    }
}
