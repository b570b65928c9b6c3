package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MessageCodec;

/**
 * Carries elector messages between the members of election groups. One transport serves every election
 * group of a process: each group's election registers itself under the group's name, and messages are
 * addressed by group and node.
 *
 * <p>The contract every implementation keeps (the electors' safety arguments rely on it):
 *
 * <ul>
 *   <li><b>Best effort.</b> {@link #send} never blocks on the network and never throws for a network problem;
 *       a message may be lost, delayed, duplicated or reordered. Electors treat silence as a possible failure.
 *   <li><b>Disconnects are facts, not guesses.</b> {@link TransportListener#onPeerDisconnected} is called when
 *       the remote end or the network closed the connection (FIN or RST received) and when this transport
 *       closed it itself (a protocol violation, a duplicate connection replaced, {@code close()}), so that
 *       both ends learn of every closing at once. A transport must not report its own idle timeouts or
 *       keep-alive guesses there: those show up as missing messages, and electors have their own timeouts.
 *       {@code onPeerConnected} means the connection is up, not that the peer has registered the group.
 *   <li><b>Nothing from before a reported close.</b> Once {@code onPeerDisconnected(peer)} was called, no
 *       message that {@code peer} sent on the closed connection is delivered any more.
 *   <li><b>No re-entrance.</b> Listener callbacks never run inside a {@link #send} call; they run on a
 *       transport thread and must return quickly (the runtime only queues them onto the election's loop).
 * </ul>
 *
 * <p>Thread-safe.
 */
public interface Transport {
    /**
     * Starts receiving {@code group}'s messages addressed to {@code self}. Peers whose connection is (or
     * becomes) working are reported through {@link TransportListener#onPeerConnected}.
     *
     * @throws IllegalStateException if {@code group} is already registered on this transport
     */
    void register(String group, NodeId self, TransportListener listener);

    /**
     * Like {@link #register(String, NodeId, TransportListener)}, with the codec that turns {@code group}'s
     * messages into bytes; transports that cross a process boundary need it, in-process ones may ignore it.
     */
    default void register(String group, NodeId self, MessageCodec codec, TransportListener listener) {
        register(group, self, listener);
    }

    /**
     * Sends {@code message} to {@code to} in {@code group}, from the member registered for {@code group}.
     * Best effort; a message for an unregistered group or an unreachable peer is dropped.
     */
    void send(String group, NodeId to, ElectorMessage message);

    /** Stops receiving {@code group}'s messages; a no-op if it was not registered. */
    void unregister(String group, NodeId self);
}
