package io.bellwether.runtime;

import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.TaskEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener bus of one {@link RuntimeElection}: the <b>notifier</b> calls its {@link ElectionListener}s, one
 * event at a time, in order. The notifier is the election's {@link SerialExecutor} on the process's callback pool
 * ({@link RuntimeThreads}), not a thread of its own: a process with thousands of groups has a handful of notifier
 * threads. Listener events raised on the loop are queued and published together once the
 * elector event has been handled ({@link #publishPending}); raised elsewhere (a revocation by the watchdog or by a
 * stuck close, a task runner), they go to the notifier at once. An Error a listener throws reaches {@link
 * FatalErrors} through the pool thread's uncaught-exception handler; any other exception is logged and the next
 * listener is called.
 *
 * <p>With an application's listener executor, each listener added by the application gets a {@link Serial} queue
 * drained on that executor: the notifier still puts every event in order, into each listener's queue, so one
 * listener's events keep their order while listeners run concurrently. Listeners of the runtime itself (the task
 * runners) are called on the notifier. Work queued "behind the listeners" ({@link #execute}, {@link #queue}: a
 * resigning leader's held sends, the completion of {@code closed()}) waits until every listener queue has delivered
 * what was queued before it.
 */
final class ListenerBus {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;
    private final ElectionLoop loop;
    private final SerialExecutor notifier;
    private final Optional<Executor> listenerExecutor;
    /** Set on an executor's thread while it runs a listener's callbacks: it counts as the notifier. */
    private final ThreadLocal<Boolean> inSerialListener = new ThreadLocal<>();
    /** Listener events of the elector event being handled. Loop-confined. */
    private final List<Runnable> pending = new ArrayList<>();

    // Notifier-confined: what listeners have been told so far.
    private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();
    private RuntimeLeadership notifiedLeadership;
    private Optional<LeaderView> notifiedLeader = Optional.empty();

    ListenerBus(String group, NodeId self, ElectionLoop loop, Optional<Executor> listenerExecutor) {
        this.group = group;
        this.self = self;
        this.loop = loop;
        this.listenerExecutor = listenerExecutor;
        this.notifier = new SerialExecutor(RuntimeThreads.callbackPool(), group, self, "listeners");
    }

    /** Adds an application's listener: called on the listener executor when there is one, else on the notifier. */
    void addListener(ElectionListener listener) {
        Objects.requireNonNull(listener, "listener");
        addListenerOnNotifier(listenerExecutor
                .<ElectionListener>map(e -> new Serial(listener, e))
                .orElse(listener));
    }

    /** Adds a listener of the runtime's own (a task runner), always called on the notifier. */
    void addRuntimeListener(ElectionListener listener) {
        addListenerOnNotifier(Objects.requireNonNull(listener, "listener"));
    }

    private void addListenerOnNotifier(ElectionListener listener) {
        try {
            notifier.execute(() -> {
                listeners.add(listener);
                // Same order as live events: elected before the leader change it causes.
                RuntimeLeadership l = notifiedLeadership;
                if (l != null && l.revocationReason() == null) {
                    call(listener, "elected", x -> x.elected(l));
                }
                Optional<LeaderView> leader = notifiedLeader;
                if (leader.isPresent()) {
                    call(listener, "leaderChanged", x -> x.leaderChanged(leader));
                }
            });
        } catch (RejectedExecutionException e) {
            listeners.add(listener); // closed: it will hear nothing
        }
    }

    /** Removes a listener at once, and again behind an {@link #addListener} of it still queued on the notifier. */
    void removeListener(ElectionListener listener) {
        listeners.removeIf(l -> l == listener || (l instanceof Serial s && s.delegate == listener));
        try {
            notifier.execute(
                    () -> listeners.removeIf(l -> l == listener || (l instanceof Serial s && s.delegate == listener)));
        } catch (RejectedExecutionException e) {
            // closed: nothing is added any more
        }
    }

    /** Whether the caller is the notifier, or a listener's callback on the listener executor: that is a listener. */
    boolean onNotifier() {
        return notifier.onThread() || inSerialListener.get() != null;
    }

    /**
     * Runs {@code task} behind every listener event queued so far, once every listener has been told of them (on
     * the listener executor too).
     *
     * @throws RejectedExecutionException once the bus is shut down
     */
    void execute(Runnable task) {
        notifier.execute(() -> afterListeners(task));
    }

    /**
     * Queues {@code task} with the listener events of the elector event being handled, to run once every listener
     * has been told of the events queued before it. Only on the loop.
     */
    void queue(Runnable task) {
        pending.add(() -> afterListeners(task));
    }

    void taskEvent(TaskEvent event) {
        emit(() -> deliver("taskEvent", listener -> listener.taskEvent(event)));
    }

    /**
     * On the notifier: runs {@code task} now if no listener queue has anything before it, else once they have all
     * drained to this point (back on the notifier, or on the thread that drained last once the notifier is gone).
     */
    private void afterListeners(Runnable task) {
        List<CompletableFuture<Void>> marks = new ArrayList<>();
        for (ElectionListener l : listeners) {
            if (l instanceof Serial s) {
                marks.add(s.mark());
            }
        }
        if (marks.isEmpty()) {
            task.run();
            return;
        }
        CompletableFuture.allOf(marks.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            try {
                notifier.execute(task);
            } catch (RejectedExecutionException gone) {
                task.run();
            }
        });
    }

    void elected(RuntimeLeadership l) {
        emit(() -> deliverElected(l));
    }

    void revoked(RuntimeLeadership l, RevocationReason reason) {
        emit(() -> deliverRevoked(l, reason));
    }

    void roleChanged(Role previous, Role current, long currentEpoch) {
        emit(() -> deliverRoleChanged(previous, current, currentEpoch));
    }

    void leaderChanged(Optional<LeaderView> view) {
        emit(() -> deliverLeaderChanged(view));
    }

    /** Hands the events queued on the loop to the notifier, in order. */
    void publishPending() {
        for (Runnable r : pending) {
            notifyListeners(r);
        }
        pending.clear();
    }

    /** Stops the notifier; events already queued are still delivered. */
    void shutdown() {
        notifier.shutdown();
    }

    /** Queues a listener event: after the current elector event when on the loop, else at once. */
    private void emit(Runnable notification) {
        if (loop.inLoop()) {
            pending.add(notification);
        } else {
            notifyListeners(notification);
        }
    }

    private void notifyListeners(Runnable notification) {
        try {
            notifier.execute(notification);
        } catch (RejectedExecutionException e) {
            log.trace("group {} node {}: listeners are gone; dropping an event", group, self);
        }
    }

    // ---------------------------------------------------------------- on the notifier

    private void deliverElected(RuntimeLeadership l) {
        notifiedLeadership = l;
        deliver("elected", listener -> listener.elected(l));
    }

    private void deliverRevoked(RuntimeLeadership l, RevocationReason reason) {
        if (notifiedLeadership == l) {
            notifiedLeadership = null;
        }
        deliver("revoked", listener -> listener.revoked(l, reason));
    }

    private void deliverRoleChanged(Role previous, Role current, long currentEpoch) {
        deliver("roleChanged", listener -> listener.roleChanged(previous, current, currentEpoch));
    }

    private void deliverLeaderChanged(Optional<LeaderView> view) {
        notifiedLeader = view;
        deliver("leaderChanged", listener -> listener.leaderChanged(view));
    }

    private void deliver(String event, Consumer<ElectionListener> callback) {
        for (ElectionListener listener : listeners) {
            call(listener, event, callback);
        }
    }

    /** Calls {@code listener} now, or queues the call when it runs on the listener executor. */
    private void call(ElectionListener listener, String event, Consumer<ElectionListener> callback) {
        if (listener instanceof Serial s) {
            s.submit(() -> callNow(s.delegate, event, callback));
        } else {
            callNow(listener, event, callback);
        }
    }

    private void callNow(ElectionListener listener, String event, Consumer<ElectionListener> callback) {
        try {
            callback.accept(listener);
        } catch (RuntimeException e) {
            log.warn("group {} node {}: listener {} threw from {}", group, self, listener, event, e);
        }
    }

    /**
     * An application's listener run on the listener executor: its callbacks queue here, on the notifier, in the order
     * of the events, and at most one drain runs at a time, so they run one at a time and in order. The instance only
     * stands in the listener list; its own callback methods are never called ({@link #call} unwraps it).
     */
    private final class Serial implements ElectionListener {
        final ElectionListener delegate;
        private final Executor executor;
        private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean draining = new AtomicBoolean();

        Serial(ElectionListener delegate, Executor executor) {
            this.delegate = delegate;
            this.executor = executor;
        }

        void submit(Runnable callback) {
            queue.add(callback);
            schedule();
        }

        /** Completes once everything queued before it has run. */
        CompletableFuture<Void> mark() {
            CompletableFuture<Void> reached = new CompletableFuture<>();
            submit(() -> reached.complete(null));
            return reached;
        }

        private void schedule() {
            if (!draining.compareAndSet(false, true)) {
                return;
            }
            try {
                // Not our thread: the application's MDC comes back once the drain is over.
                executor.execute(Mdc.around(group, self, FatalErrors.guard(this::drain)));
            } catch (RejectedExecutionException e) {
                log.warn(
                        "group {} node {}: the listener executor rejected listener {}; calling it on the notifier",
                        group,
                        self,
                        delegate);
                drain();
            }
        }

        private void drain() {
            boolean nested = inSerialListener.get() != null;
            inSerialListener.set(Boolean.TRUE);
            try {
                Runnable next;
                while ((next = queue.poll()) != null) {
                    next.run();
                }
            } finally {
                if (!nested) {
                    inSerialListener.remove();
                }
                draining.set(false);
            }
            if (!queue.isEmpty()) {
                schedule(); // queued after the last poll, before draining was cleared
            }
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }
}
