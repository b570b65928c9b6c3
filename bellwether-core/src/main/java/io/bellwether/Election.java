package io.bellwether;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

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
     * Runs {@code task} with {@link TaskOptions#defaults()}: restarted after a failure (1 s, 2 s, 4 s), stepping down
     * at the fourth failure of a leadership; idle leader after a return; health not checked.
     *
     * @return a handle that stops running the task on future leaderships when closed, and counts its events
     */
    default TaskHandle runWhileLeader(LeaderTask task) {
        return runWhileLeader(task, TaskOptions.defaults());
    }

    /**
     * Runs {@code task} each time this member becomes leader, on a thread of its own (never the election's event
     * loop, so a task that ignores interrupts cannot delay heartbeats or renewals), and cancels it before the
     * leadership can lapse: {@link Leadership#revoked()} completes and the task's thread is interrupted. A run that
     * ends because its leadership ended is the normal end of a task.
     *
     * <p>A run that ends on its own while this member still leads is handled by {@code options}: {@link
     * TaskOptions#onFailure()} when it threw, {@link TaskOptions#onReturn()} when it returned. {@link
     * TaskPolicy#RESTART} runs it again in place after a capped exponential backoff (failures within {@link
     * TaskOptions#maxRestarts()}), {@link TaskPolicy#RESIGN} steps down so that another member leads and stays out of
     * elections for {@link TaskOptions#resignHoldOff()}, {@link TaskPolicy#STAY} keeps leading with nothing running.
     * With a {@link TaskOptions#healthTimeout()}, a running task that has not called {@link Leadership#heartbeat()}
     * within it makes this member step down with {@link RevocationReason#TASK_UNHEALTHY}, and is interrupted.
     *
     * <p>Every one of these steps reaches the listeners ({@link ElectionListener#taskEvent}, and {@link
     * ElectionListener#revoked} for the leadership's end), the log (one line each, with its reason) and the
     * handle's counters ({@link TaskHandle#count}).
     *
     * @return a handle that stops running the task on future leaderships when closed, and counts its events
     */
    TaskHandle runWhileLeader(LeaderTask task, TaskOptions options);

    /**
     * Blocks until this member leads, as a Curator {@code LeaderLatch.await} does, and returns its leadership; empty
     * if {@code timeout} passes first or the election closes. Returns at once when it already leads. The leadership
     * returned may end at any moment; act on it as {@link Leadership} says. Do not call it from a listener (listeners
     * are told of the leadership one at a time, so it would wait for itself until the timeout).
     *
     * @param timeout how long to wait at most; zero or negative only looks
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    default Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        CompletableFuture<Optional<Leadership>> led = new CompletableFuture<>();
        ElectionListener waiter = new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                if (leadership.isValid()) {
                    led.complete(Optional.of(leadership));
                }
            }
        };
        return await(led, waiter, timeout, () -> leadership().filter(Leadership::isValid));
    }

    /**
     * Blocks until any member is known to lead (this one or another) and returns it as this member knows it; empty if
     * {@code timeout} passes first or the election closes. Returns at once when a leader is known. Do not call it
     * from a listener.
     *
     * @param timeout how long to wait at most; zero or negative only looks
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    default Optional<LeaderView> awaitLeader(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        CompletableFuture<Optional<LeaderView>> known = new CompletableFuture<>();
        ElectionListener waiter = new ElectionListener() {
            @Override
            public void leaderChanged(Optional<LeaderView> leader) {
                if (leader.isPresent()) {
                    known.complete(leader);
                }
            }
        };
        return await(known, waiter, timeout, this::leader);
    }

    /** The wait of {@link #awaitLeadership} and {@link #awaitLeader}: a listener completes {@code result}. */
    private <T> Optional<T> await(
            CompletableFuture<Optional<T>> result, ElectionListener waiter, Duration timeout, Supplier<Optional<T>> now)
            throws InterruptedException {
        Optional<T> already = now.get();
        if (already.isPresent() || timeout.isZero() || timeout.isNegative()) {
            return already;
        }
        closed().whenComplete((v, e) -> result.complete(Optional.empty()));
        addListener(waiter);
        try {
            return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return now.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause()); // never completed exceptionally
        } finally {
            removeListener(waiter);
        }
    }

    /**
     * Leaves the group. A leader hands over: where the algorithm can (quorum), it first has its successor gather
     * the votes it needs while it still leads, at most the algorithm's round timeout; then it revokes its own
     * leadership, waits until this member's listeners have been told ({@link ElectionListener#revoked} has
     * returned, and {@link Leadership#revoked()} has completed) and only then cedes, naming the successor, which
     * may lead as soon as the cession reaches it. Returns when this member has stopped acting and its last messages
     * have gone out, even if the calling thread is interrupted meanwhile (the interrupt is kept); idempotent. Called
     * from a listener, it cannot wait for the listeners (they run on the thread it is called from): the cession
     * leaves at once, and the listeners hear of the revocation after that listener returns, possibly after the
     * successor leads.
     */
    @Override
    void close();

    /**
     * Gives up leadership and stays a member, for the algorithm's default hold-off: {@link #resign(Duration)} with
     * one election timeout (quorum: {@code election-timeout}; bully and ring: their leader timeout), one lease
     * duration plus one retry period (lease), or two leases (invitation). The default method, for an election that
     * cannot resign, throws {@link UnsupportedOperationException}.
     *
     * @throws UnsupportedOperationException if the algorithm cannot resign and stay a member
     * @throws IllegalStateException if the election has not been started
     */
    default void resign() {
        throw new UnsupportedOperationException("this election cannot resign and stay a member");
    }

    /**
     * Gives up leadership now and stays a member: the leader hands over to the best successor its algorithm knows
     * (quorum: its ready standby, or a successor it prepares while it still leads, as {@link #close()} does; lease:
     * it releases the lease, which a waiting contender takes; bully, ring and invitation: it tells the others, which
     * elect among themselves), then keeps following, answering and voting, and does not compete for leadership until
     * {@code holdOff} has passed. The revocation is seen as {@link RevocationReason#RESIGNED}.
     *
     * <p>As with {@link #close()}, the leadership is revoked, and this member's listeners have been told ({@link
     * ElectionListener#revoked} has returned, so a task of {@link #runWhileLeader} has been cancelled) before the
     * cession leaves, so the successor cannot lead before this member's listeners know that it does not. Returns
     * once that is done and the cession has gone out (a quorum leader that prepares its successor first waits at
     * most its round timeout for it), even if the calling thread is interrupted meanwhile (the interrupt is kept).
     * Called from a listener, it cannot wait for the listeners: the cession leaves at once, and the listeners hear
     * of the revocation after that listener returns.
     *
     * <p>A member that does not lead only starts its hold-off (a candidacy of its own is given up). A new call starts
     * the hold-off anew. The hold-off is not persisted: a member that restarts competes at once. After the hold-off
     * the member competes as usual; where the highest id wins (bully with pre-emption, invitation's priority) it
     * may then take leadership back. On an election that is closing or closed it does nothing.
     *
     * @param holdOff how long not to compete for leadership, from {@link Duration#ZERO} to 24 hours
     * @throws IllegalArgumentException if {@code holdOff} is negative or longer than 24 hours
     * @throws UnsupportedOperationException if the algorithm cannot resign and stay a member
     * @throws IllegalStateException if the election has not been started
     */
    default void resign(Duration holdOff) {
        throw new UnsupportedOperationException("this election cannot resign and stay a member");
    }

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
