package io.bellwether.runtime;

import io.bellwether.Leadership;
import io.bellwether.LeadershipLostException;
import io.bellwether.RevocationReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * A leadership held by a {@link RuntimeElection}. Its validity is set by the elector (on the election's loop)
 * and watched by a watchdog on the process's timer ({@link RuntimeThreads#timer()}), not the loop: when {@code
 * validUntil − revocationLead} passes without an extension, the watchdog revokes it whether or not the loop is making
 * progress, because a stalled loop must not keep a leader acting (etcd issue 13527 shows what happens otherwise).
 * {@link #revoked()} completes on the election's revocation queue, so that applications' callbacks never run on the
 * loop or the timer.
 */
final class RuntimeLeadership implements Leadership {
    private final long epoch;
    private final long revocationLeadNanos;
    private final ElectionTimer watchdog;
    private final Executor revocations;
    private final BiConsumer<RuntimeLeadership, RevocationReason> onRevoked;
    private final AtomicReference<RevocationReason> reason = new AtomicReference<>();
    private final CompletableFuture<RevocationReason> revoked = new CompletableFuture<>();
    /**
     * Completed once {@link #revoked} has completed and every callback registered on it before (a leader task's
     * interrupt) has run: a resigning leader's last sends wait for it ({@link HeldSends}).
     */
    private final CompletableFuture<Void> revokedCallbacksRun = new CompletableFuture<>();

    private volatile long validUntilNanos;
    private ScheduledFuture<?> watch; // guarded by this
    private long watchAtNanos; // when watch runs; guarded by this

    RuntimeLeadership(
            long epoch,
            long validUntilNanos,
            long revocationLeadNanos,
            ElectionTimer watchdog,
            Executor revocations,
            BiConsumer<RuntimeLeadership, RevocationReason> onRevoked) {
        this.epoch = epoch;
        this.validUntilNanos = validUntilNanos;
        this.revocationLeadNanos = revocationLeadNanos;
        this.watchdog = watchdog;
        this.revocations = revocations;
        this.onRevoked = onRevoked;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public long validUntilNanos() {
        return validUntilNanos;
    }

    @Override
    public boolean isValid() {
        return reason.get() == null && System.nanoTime() - validUntilNanos < 0;
    }

    @Override
    public void checkValid() {
        RevocationReason r = reason.get();
        if (r != null) {
            throw new LeadershipLostException(epoch, "leadership of epoch " + epoch + " was revoked: " + r);
        }
        long overdue = System.nanoTime() - validUntilNanos;
        if (overdue >= 0) {
            throw new LeadershipLostException(
                    epoch,
                    "leadership of epoch " + epoch + " expired " + TimeUnit.NANOSECONDS.toMillis(overdue) + " ms ago");
        }
    }

    @Override
    public CompletionStage<RevocationReason> revoked() {
        return revoked.minimalCompletionStage();
    }

    /** The reason it was revoked, or null while it holds. */
    RevocationReason revocationReason() {
        return reason.get();
    }

    void validUntil(long nanos) {
        validUntilNanos = nanos;
    }

    /** (Re)arms the watchdog for the current validity. */
    synchronized void arm() {
        if (reason.get() != null) {
            return;
        }
        long now = System.nanoTime();
        long checkAt = validUntilNanos - revocationLeadNanos;
        if (watch != null && !watch.isDone() && watchAtNanos - checkAt <= 0) {
            // Extended: the pending check comes first and re-arms itself for the rest (see check), so a leader's
            // every heartbeat round does not cancel and re-schedule it, waking the timer thread each time.
            return;
        }
        if (watch != null) {
            watch.cancel(false);
        }
        long delay = Math.max(0, checkAt - now);
        try {
            watch = watchdog.schedule(this::check, delay, TimeUnit.NANOSECONDS);
            watchAtNanos = now + delay;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The election is shutting down and revokes every leadership itself.
            watch = null;
        }
    }

    private void check() {
        synchronized (this) {
            watch = null; // this one has run: arm() must schedule the next
        }
        if (reason.get() != null) {
            return;
        }
        if (validUntilNanos - revocationLeadNanos - System.nanoTime() > 0) {
            arm(); // extended since this firing was scheduled
            return;
        }
        revoke(RevocationReason.VALIDITY_EXPIRED);
    }

    /**
     * Ends the leadership for users: {@link #isValid()} turns false at once, {@link #revoked()} completes on the
     * revocation queue (so that users' callbacks never run on the election's loop or the shared timer).
     *
     * @return whether this call revoked it (false if it already was)
     */
    boolean revoke(RevocationReason why) {
        if (!reason.compareAndSet(null, why)) {
            return false;
        }
        synchronized (this) {
            if (watch != null) {
                watch.cancel(false);
                watch = null;
            }
        }
        onRevoked.accept(this, why);
        try {
            revocations.execute(() -> completeRevoked(why));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            completeRevoked(why);
        }
        return true;
    }

    private void completeRevoked(RevocationReason why) {
        try {
            revoked.complete(why); // runs the callbacks registered so far, on this thread, before it returns
        } finally {
            revokedCallbacksRun.complete(null);
        }
    }

    /** Completes once {@link #revoked()} has completed and the callbacks registered on it until then have run. */
    CompletableFuture<Void> revokedCallbacksRun() {
        return revokedCallbacksRun;
    }

    @Override
    public String toString() {
        RevocationReason r = reason.get();
        return "Leadership{epoch=" + epoch + (r == null ? "" : ", revoked=" + r) + "}";
    }
}
