package io.bellwether.spi;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MessageCodec;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

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
 *       both ends learn of every closing; <em>when</em> each end learns is not bounded (the end that writes
 *       next learns first, a half-open end only when it writes again), and electors must not assume it is.
 *       A transport must not report its own idle timeouts or keep-alive guesses there: those show up as
 *       missing messages, and electors have their own timeouts.
 *       {@code onPeerConnected} means the connection is up, not that the peer has registered the group.
 *   <li><b>Departures are proven.</b> {@link TransportListener#onPeerGone} is called only when, after a
 *       reported closing and with no connection to the peer since, a new connection to the peer's address was
 *       <em>refused</em> (nothing listens there), or the peer's transport deregistered the group after its
 *       election stopped. Never for a connection attempt that timed out or succeeded. A transport closes its
 *       own listener only after the elections registered on it have stopped.
 *   <li><b>Nothing from before a reported close.</b> Once {@code onPeerDisconnected(peer)} was called, no
 *       message that {@code peer} sent on the closed connection is delivered any more.
 *   <li><b>No re-entrance.</b> Listener callbacks never run inside a {@link #send} call; they run on a
 *       transport thread and must return quickly (the runtime only queues them onto the election's loop, which
 *       may be that same thread: see {@link #sharedLoop()}).
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

    /**
     * The members this transport was configured with, this process's own included; empty (the default) if it was
     * given none. An election built without {@linkplain io.bellwether.ElectionBuilder#member members} takes them
     * from here, so that a member list is given once.
     */
    default Set<NodeId> members() {
        return Set.of();
    }

    /**
     * The fixed address peers reach {@code member} at, as this transport was configured with it; empty (the default)
     * for a member this transport does not know, or whose address is discovered at run time.
     */
    default Optional<NodeAddress> address(NodeId member) {
        return Optional.empty();
    }

    /**
     * Stops receiving {@code group}'s messages; a no-op if it was not registered. A message the transport had already
     * looked up for the group (one of a batch it is delivering as this is called, on its own thread) may still reach
     * the listener: a listener must ignore messages once its election is closed, as it ignores those its own queue
     * held when it closed.
     */
    void unregister(String group, NodeId self);

    /**
     * The executor of the thread that delivers this transport's callbacks, if elections may run their event loop on
     * it; empty (the default) for a transport without such a thread, and each election then runs a thread of its
     * own. On a shared loop a message goes from the socket to the elector, and the elector's answer back to the
     * socket, without waking another thread: on an idle cluster most of a node's CPU goes to those wake-ups, and
     * on a handover each hand-off adds its scheduling delay to the failover.
     *
     * <p>The executor must run every task, immediate or delayed, on one and the same thread, in submission order
     * for immediate ones, and must keep running until the transport is closed. Elections do their durable state
     * writes (a few milliseconds at worst, and only when a term or counter changes) on it, so it must tolerate
     * short blocking; elections never block it waiting for another thread.
     */
    default Optional<ScheduledExecutorService> sharedLoop() {
        return Optional.empty();
    }
}
