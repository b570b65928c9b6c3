package io.bellwether.runtime;

import io.bellwether.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A resigning leader's last sends. A leader that resigns holds what it sends and asks its store from its revocation
 * on (its cession, its lease's release) until the notifier has told every listener of the revocation and the
 * leadership's {@link io.bellwether.Leadership#revoked()} has completed: by the time a successor can lead, this
 * member's listeners (and the task runner) have heard that it does not, their {@code revoked} calls have returned,
 * and the callbacks on {@code revoked()} (a leader task's interrupt) have run. A prepared successor leads as soon as
 * the cession reaches it, so without this hold it could be told it leads before this member's listeners are told it
 * does not.
 *
 * <p>Held effects are released on the loop once the notifier reaches the release queued behind the revocation.
 */
final class HeldSends {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;
    private final ElectionLoop loop;
    private final ListenerBus bus;
    /**
     * The held messages and store requests (the cession or the lease's release, and anything after it); null when
     * nothing is held. Loop-confined.
     */
    private List<Runnable> held;
    /** Completed once held effects have been carried out; replaced when holding starts. */
    private volatile CompletableFuture<Void> sent = CompletableFuture.completedFuture(null);
    /** Whether the release of what is held is already queued. Loop-confined. */
    private boolean releaseQueued;

    HeldSends(String group, NodeId self, ElectionLoop loop, ListenerBus bus) {
        this.group = group;
        this.self = self;
        this.loop = loop;
        this.bus = bus;
    }

    /** Starts holding (at a resigning leader's revocation), unless it already does. */
    void hold() {
        if (held != null) {
            return;
        }
        held = new ArrayList<>();
        sent = new CompletableFuture<>();
        releaseQueued = false;
    }

    /** Whether effects are held now: the caller then {@link #add}s its effect rather than carry it out. */
    boolean holding() {
        return held != null;
    }

    void add(Runnable effect) {
        held.add(effect);
    }

    /** At the end of an elector event: queues the release behind the listener events published so far. */
    void releaseAfterEvent() {
        if (held != null && !releaseQueued) {
            releaseQueued = true;
            queueRelease();
        }
    }

    /**
     * At a revocation on the loop: queues the release right behind the revocation's listener event, and behind the
     * completion of the leadership's {@link io.bellwether.Leadership#revoked()} ({@code revokedCallbacksRun}: its
     * callbacks, such as a leader task's interrupt, have run); what else this event tells the listeners (role,
     * leader) can follow the cession.
     */
    void releaseBehindRevocation(CompletableFuture<Void> revokedCallbacksRun) {
        if (held != null && !releaseQueued && loop.inLoop()) {
            releaseQueued = true;
            bus.queue(() -> revokedCallbacksRun.whenComplete((v, e) -> releaseFromNotifier()));
        }
    }

    /** Lets the cession (or release) held by {@link #hold()} go out before the transport is left. */
    void awaitSent() {
        CompletableFuture<Void> out = sent;
        if (out.isDone()) {
            return;
        }
        if (bus.onNotifier()) {
            // Closed by a listener: the notifier cannot tell the listeners while this waits on it; send now, and
            // the listeners hear of the revocation once this listener returns (Election#close says so).
            try {
                loop.execute(this::release);
            } catch (RejectedExecutionException e) {
                release();
            }
        }
        try {
            RuntimeElection.getUninterruptibly(out, RuntimeElection.CLOSE_WAIT_SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.warn(
                    "group {} node {}: its last messages did not go out within {} s",
                    group,
                    self,
                    RuntimeElection.CLOSE_WAIT_SECONDS);
        }
    }

    /** Queues the release of held messages behind the notifications queued so far. */
    private void queueRelease() {
        try {
            bus.execute(this::releaseFromNotifier);
        } catch (RejectedExecutionException e) {
            release();
        }
    }

    /** On the notifier, once the revocation has been delivered: the loop sends what was held. */
    private void releaseFromNotifier() {
        try {
            loop.execute(this::release);
        } catch (RejectedExecutionException e) {
            release();
        }
    }

    private void release() {
        List<Runnable> out = held;
        held = null;
        releaseQueued = false;
        if (out != null) {
            // Not subject to halted: a stop may have been handled meanwhile, and the cession must still leave.
            for (Runnable effect : out) {
                try {
                    effect.run();
                } catch (RuntimeException e) {
                    log.warn("group {} node {}: a last message or store request failed", group, self, e);
                }
            }
        }
        sent.complete(null);
    }
}
