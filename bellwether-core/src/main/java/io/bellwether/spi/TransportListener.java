package io.bellwether.spi;

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

    /**
     * After a reported closing, and with no connection since, a new connection to {@code peer}'s address was
     * refused: no process listens there (see {@link io.bellwether.elector.Elector#onPeerGone}). A transport
     * that cannot tell never calls it; electors then wait for their timeouts.
     */
    default void onPeerGone(NodeId peer) {}
}
