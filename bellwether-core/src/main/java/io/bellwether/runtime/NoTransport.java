package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport of an election built without one, whose algorithm sends no peer messages (the lease elector talks
 * only to its store): it connects nobody and registers nothing. A message sent anyway is an elector that broke its
 * algorithm's declaration; it is dropped with a warning rather than silently.
 */
final class NoTransport implements Transport {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;

    NoTransport(String group, NodeId self) {
        this.group = group;
        this.self = self;
    }

    @Override
    public void register(String group, NodeId self, TransportListener listener) {}

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        log.warn(
                "group {} node {}: dropped {} to {}: the election has no transport, as its algorithm declares that"
                        + " it sends no peer messages",
                this.group,
                self,
                message.type(),
                to);
    }

    @Override
    public void unregister(String group, NodeId self) {}

    @Override
    public String toString() {
        return "NoTransport{group=" + group + ", self=" + self + "}";
    }
}
