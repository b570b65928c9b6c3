package io.bellwether.runtime;

import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener bus of one {@link RuntimeElection}: the <b>notifier</b> thread calls its {@link ElectionListener}s,
 * one event at a time, in order. Listener events raised on the loop are queued and published together once the
 * elector event has been handled ({@link #publishPending}); raised elsewhere (a revocation by the watchdog or by a
 * stuck close), they go to the notifier at once. An Error a listener throws reaches {@link FatalErrors} through the
 * notifier thread's uncaught-exception handler; any other exception is logged and the next listener is called.
 */
final class ListenerBus {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;
    private final ElectionLoop loop;
    private final ExecutorService notifier;
    private volatile Thread notifierThread;
    /** Listener events of the elector event being handled. Loop-confined. */
    private final List<Runnable> pending = new ArrayList<>();

    // Notifier-confined: what listeners have been told so far.
    private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();
    private RuntimeLeadership notifiedLeadership;
    private Optional<LeaderView> notifiedLeader = Optional.empty();

    ListenerBus(String group, NodeId self, ElectionLoop loop) {
        this.group = group;
        this.self = self;
        this.loop = loop;
        this.notifier = Executors.newSingleThreadExecutor(
                FatalErrors.threads("bellwether-events-" + group + "-" + self, t -> notifierThread = t));
    }

    void addListener(ElectionListener listener) {
        Objects.requireNonNull(listener, "listener");
        try {
            notifier.execute(() -> {
                listeners.add(listener);
                // Same order as live events: elected before the leader change it causes.
                RuntimeLeadership l = notifiedLeadership;
                if (l != null && l.revocationReason() == null) {
                    call(listener, "elected", () -> listener.elected(l));
                }
                Optional<LeaderView> leader = notifiedLeader;
                if (leader.isPresent()) {
                    call(listener, "leaderChanged", () -> listener.leaderChanged(leader));
                }
            });
        } catch (RejectedExecutionException e) {
            listeners.add(listener); // closed: it will hear nothing
        }
    }

    void removeListener(ElectionListener listener) {
        listeners.remove(listener);
    }

    /** Whether the caller is the notifier, that is a listener. */
    boolean onNotifier() {
        return Thread.currentThread() == notifierThread;
    }

    /**
     * Runs {@code task} on the notifier, behind every listener event queued so far.
     *
     * @throws RejectedExecutionException once the bus is shut down
     */
    void execute(Runnable task) {
        notifier.execute(task);
    }

    /** Queues {@code task} with the listener events of the elector event being handled. Only on the loop. */
    void queue(Runnable task) {
        pending.add(task);
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
        for (ElectionListener listener : listeners) {
            call(listener, "elected", () -> listener.elected(l));
        }
    }

    private void deliverRevoked(RuntimeLeadership l, RevocationReason reason) {
        if (notifiedLeadership == l) {
            notifiedLeadership = null;
        }
        for (ElectionListener listener : listeners) {
            call(listener, "revoked", () -> listener.revoked(l, reason));
        }
    }

    private void deliverRoleChanged(Role previous, Role current, long currentEpoch) {
        for (ElectionListener listener : listeners) {
            call(listener, "roleChanged", () -> listener.roleChanged(previous, current, currentEpoch));
        }
    }

    private void deliverLeaderChanged(Optional<LeaderView> view) {
        notifiedLeader = view;
        for (ElectionListener listener : listeners) {
            call(listener, "leaderChanged", () -> listener.leaderChanged(view));
        }
    }

    private void call(ElectionListener listener, String event, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("group {} node {}: listener {} threw from {}", group, self, listener, event, e);
        }
    }
}
