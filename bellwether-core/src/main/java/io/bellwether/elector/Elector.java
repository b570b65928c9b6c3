package io.bellwether.elector;

import io.bellwether.NodeId;

/**
 * One algorithm's state machine for one member of one group. Electors are pure: they react to the events
 * below and act only through their {@link ElectorContext} (send, timers, persistence, announcements). They
 * never touch sockets, threads, clocks, {@code System.*} or randomness of their own. That is what lets the
 * same class run in the runtime and in the simulator.
 *
 * <p>Not thread-safe: the driver calls it from one thread at a time, never re-entrantly.
 */
public interface Elector {
    /** Joins the group: reads {@link ElectorContext#storedState()} and arms the first timers. */
    void start();

    /** A message from a peer. Malformed or unexpected messages are ignored, never thrown. */
    void onMessage(NodeId from, ElectorMessage message);

    /** A timer armed with {@link ElectorContext#schedule} fired (and was not cancelled or re-armed since). */
    void onTimer(TimerKey key);

    /** The transport has a working connection to {@code peer}. */
    default void onPeerConnected(NodeId peer) {}

    /**
     * The transport's connection to {@code peer} was closed: by the remote end or the network (FIN or RST
     * received), or by this member's transport itself (a protocol violation, a duplicate connection, shutdown).
     * The peer learns of the closing too, but <em>not necessarily at the same time</em>: the two ends of a TCP
     * connection learn of its end separately (the end that writes next first; a half-open end only when it
     * writes again), so the gap may exceed a heartbeat interval. An elector may therefore take a closing as a
     * reason to stop relying on the peer (stop counting its confirmations), never as proof that the peer
     * stopped relying on it. A transport must not report its own idle timeouts here: those show up as missing
     * messages. Messages sent on the closed connection will not arrive after this call.
     */
    default void onPeerDisconnected(NodeId peer) {}

    /**
     * The peer's process is gone: after a reported {@link #onPeerDisconnected closing} (and no connection since),
     * a new connection to the peer's address was refused, so no process listens there. Processes listen for as
     * long as they may lead (a transport closes its listener only after its elections have stopped, and the
     * operating system closes it when the process dies), so a leadership the peer held has ended. This is the
     * proof on which an elector may act at once where it would otherwise wait out a timeout. Not reported when
     * the connection attempt times out or succeeds (a paused or partitioned process is not gone).
     */
    default void onPeerGone(NodeId peer) {}

    /** The reply to a request made with {@link ElectorContext#storeRequest}. */
    default void onStoreReply(StoreReply reply) {}

    /**
     * Starts leaving the group gracefully when the driver can wait for it: a leader may prepare its successor
     * while it still leads, so that the group is without a leader only for the one message that hands over.
     * Returns {@code true} if the elector has started such a handover: it then goes on handling events as
     * usual, and announces {@link io.bellwether.Role#DORMANT} (reason {@link ChangeReason#STOPPED}) once it has
     * ceded, on its own deadline. Returns {@code false} when there is nothing to wait for. Either way the
     * driver calls {@link #stop()} afterwards: at once after {@code false}, after the announcement (or a
     * deadline of its own) after {@code true}. Electors without such a handover keep this default.
     */
    default boolean beginStop() {
        return false;
    }

    /**
     * Gives up leadership and stays a member: the member keeps following, answering and voting, but does not try to
     * lead (claim, campaign, accept a successor's role, pre-empt) until {@code holdOffNanos} have passed on {@link
     * ElectorContext#nanoTime()}'s clock, so that another member leads. The contract, for an elector that implements
     * it (its {@link ElectorSpec#resignHoldOff()} is present):
     *
     * <ul>
     *   <li>A leader hands over to the best successor the algorithm knows, as {@link #stop()} does: it announces a
     *       role other than {@link io.bellwether.Role#LEADER} with {@link ChangeReason#RESIGNED} <em>before</em> it
     *       sends or asks the store for anything that lets another member lead (a cession, a resignation, the
     *       release of a lease). An elector with a prepared handover (the quorum elector, rule 9) may lead on while
     *       its successor gathers votes, bounded by its own round timeout, and then announce the resignation.
     *   <li>From this call on, and until the hold-off has passed, it announces no leadership. Each call starts the
     *       hold-off anew from now.
     *   <li>A member that does not lead only starts its hold-off (giving up a candidacy of its own that could make
     *       it leader meanwhile).
     *   <li>The hold-off is not persisted: a member that restarts has none.
     * </ul>
     *
     * After the hold-off the member competes as usual; algorithms where the highest id wins (bully with
     * pre-emption, invitation) may then take leadership back.
     *
     * @param holdOffNanos how long not to compete for leadership, at least 0; the driver bounds it
     * @throws UnsupportedOperationException by default: the algorithm cannot resign
     */
    default void resign(long holdOffNanos) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot resign and stay a member");
    }

    /**
     * Leaves the group gracefully: a leader revokes its leadership (announces it) and then cedes it,
     * naming a successor, so that followers need not wait for failure detection. After this call the
     * elector ignores every event.
     */
    void stop();

    /** The current role, epoch and leader; cheap, for observers. */
    ElectorState state();
}
