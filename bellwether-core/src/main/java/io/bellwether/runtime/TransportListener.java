package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;

/**
 * Receives one group's traffic from a {@link Transport}. Callbacks run on transport threads, never inside
 * {@link Transport#send}, and must return quickly. See {@link Transport} for the delivery contract.
 */
public interface TransportListener {
    /** A message from {@code from}. */
    void onMessage(NodeId from, ElectorMessage message);

    /** A working connection to {@code peer} exists (again). */
    void onPeerConnected(NodeId peer);

    /**
     * The connection to {@code peer} was closed by the remote end or the network (never a local idle timeout).
     * No message sent by {@code peer} on that connection is delivered after this call.
     */
    void onPeerDisconnected(NodeId peer);
}
