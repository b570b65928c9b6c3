package io.bellwether.sim;

/**
 * One scheduled happening of a run. Mutable and pooled by nobody: events are cheap objects ordered by (true
 * time, sequence number) so that two events at the same instant always run in the order they were scheduled.
 */
final class Event {
    static final int DELIVER = 0;
    static final int TIMER = 1;
    static final int ACTION = 2;
    static final int DISCONNECT = 3;
    static final int CONNECT = 4;
    /** A lease store's reply (or the driver's timeout failure) reaching a node; payload is the reply. */
    static final int STORE_REPLY = 5;
    /** A departure probe's proof reaching a node: {@code from}'s address refused a connection (it is down). */
    static final int GONE = 6;

    long time;
    long seq;
    int type;
    /** The node the event happens at (receiver of a delivery), or -1 for actions. */
    int node;
    /** The sender of a delivery, or the peer of a (dis)connect notification. */
    int from;
    /** The message of a delivery, or the key of a timer. */
    Object payload;
    /** The connection generation a message was sent on. */
    long gen;
    /** The node incarnation a timer or notification belongs to. */
    int incarnation;

    Runnable action;
    /** Whether a starved node has already waited its turn for this event ({@link FaultKind#STARVE}). */
    boolean served;

    /** Local deadline of a timer, for state hashing in exhaustive exploration. */
    long localDeadline;
}
