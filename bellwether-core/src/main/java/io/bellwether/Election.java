package io.bellwether;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One membership in one named election group. Create it with {@link #builder()}, {@link #start()} it,
 * {@link #close()} it to resign gracefully (leadership is handed over to the best successor, so the group
 * does not wait for failure detection).
 *
 * <p>Thread-safe. Several elections may share one process and one transport.
 */
public interface Election extends AutoCloseable {
    /** Starts a builder for an election. */
    static ElectionBuilder builder() {
        return new ElectionBuilder();
    }

    /** This member's id. */
    NodeId self();

    /** The group's name. */
    String group();

    /**
     * Joins the group. Loads the persisted state first; a state store that cannot be read fails here, with
     * the reason, rather than starting from an empty state.
     */
    void start();

    /** This member's current role. */
    Role role();

    /**
     * The epoch this member is in: for the quorum elector its current term (which a candidate has already
     * moved to), for the lease elector the token of the lease it last saw. A leader's epoch is its fencing
     * token.
     */
    long epoch();

    /** The leader as this member knows it, if any. */
    Optional<LeaderView> leader();

    /** Whether this member holds a valid leadership right now. */
    boolean isLeader();

    /** The current leadership, if this member holds one. */
    Optional<Leadership> leadership();

    /**
     * While this member leads: the member that would lead at once, with no election, if this one closed now
     * (a quorum leader's ready standby, docs/quorum.md rule 10). Empty otherwise, and for algorithms that have
     * none. For status pages: a snapshot that may change at any moment.
     */
    default Optional<NodeId> successor() {
        return Optional.empty();
    }

    /** Adds a listener. If this member already leads, the listener is told so at once. */
    void addListener(ElectionListener listener);

    void removeListener(ElectionListener listener);

    /**
     * Runs {@code task} each time this member becomes leader, on a thread of its own, and cancels it
     * (interrupts it and completes {@link Leadership#revoked()}) before the leadership can lapse.
     *
     * @return a handle that stops running the task on future leaderships when closed
     */
    AutoCloseable runWhileLeader(LeaderTask task);

    /**
     * Leaves the group. A leader hands over: where the algorithm can (quorum), it first has its successor gather
     * the votes it needs while it still leads, at most the algorithm's round timeout; then it revokes its own
     * leadership, waits until this member's listeners have been told ({@link ElectionListener#revoked} has
     * returned) and only then cedes, naming the successor, which may lead as soon as the cession reaches it.
     * Returns when this member has stopped acting and its last messages have gone out, even if the calling
     * thread is interrupted meanwhile (the interrupt is kept); idempotent. Called from a listener, it cannot wait
     * for the listeners (they run on the thread it is called from): the cession leaves at once, and the
     * listeners hear of the revocation after that listener returns, possibly after the successor leads.
     */
    @Override
    void close();

    /** Completes when the election has fully stopped. */
    CompletionStage<Void> closed();

    /**
     * A liveness probe: completes once the election's event loop has run a task queued now, so a loop that is
     * stuck or has died never completes it (a caller bounds the wait itself); completes exceptionally once the
     * election is closed. The default, for an election without an event loop of its own, completes at once.
     */
    default CompletionStage<Void> probeLoop() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
}
