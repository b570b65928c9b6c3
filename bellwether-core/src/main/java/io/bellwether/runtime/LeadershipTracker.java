package io.bellwether.runtime;

import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorState;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link RuntimeElection}'s elector has announced, as users see it: the role, epoch and leader that
 * {@link io.bellwether.Election} reads, the {@link RuntimeLeadership} a leader holds and its validity, and the
 * <b>watchdog</b> that revokes a leadership whose validity is about to run out, independently of the loop: a stalled
 * loop must not keep a leader acting. The watchdog runs on the process's shared timer ({@link RuntimeThreads});
 * {@link Leadership#revoked()} completes on the election's revocation queue, in the order of the revocations.
 *
 * <p>Announcements and validity arrive on the loop; every change reaches listeners through the {@link ListenerBus},
 * and the INFO line of each role change is written here (through {@link RoleChangeLog}).
 */
final class LeadershipTracker {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;
    private final Map<NodeId, NodeAddress> addresses;
    private final long revocationLeadNanos;
    private final ElectionTimer watchdog;
    private final SerialExecutor revocations;
    private final ListenerBus bus;
    private final HeldSends held;
    /** Completed when a handover started by close() is over: the elector announced DORMANT, or had none to do. */
    private final CompletableFuture<Void> handedOver = new CompletableFuture<>();

    // Observable snapshots, written on the loop.
    private volatile Role role = Role.DORMANT;
    private volatile long epoch;
    private volatile Optional<LeaderView> leaderView = Optional.empty();
    /** What the elector last reported as its successor (read only while a leadership is held). */
    private volatile Optional<NodeId> successor = Optional.empty();

    private volatile RuntimeLeadership leadership;

    // Loop-confined.
    private ElectorState announced = ElectorState.DORMANT;
    private boolean validityChanged;
    private boolean hasPendingValidity;
    private long pendingValidUntil;
    private boolean stopping;
    /** Why the leadership of {@link #resigningEpoch} is given up (a resignation under way); null when none. */
    private RevocationReason resigning;

    private long resigningEpoch;
    /** Completed when the resignation under way has revoked its leadership, or found none to revoke. */
    private CompletableFuture<Void> resigned = CompletableFuture.completedFuture(null);

    private long leaderlessSinceNanos;
    private final RoleChangeLog roleChanges = new RoleChangeLog(this::logRepeats);
    private String leaderlessSince = "start";

    /**
     * Told, on the timer thread, the epoch of a leadership the watchdog revoked; the elector may still lead at it
     * (see {@link ElectorDriver#validityExpired}).
     */
    private volatile java.util.function.LongConsumer onValidityExpired = epoch -> {};

    LeadershipTracker(ElectionSettings settings, ListenerBus bus, HeldSends held) {
        this.group = settings.group();
        this.self = settings.self();
        this.addresses = settings.addresses();
        this.revocationLeadNanos = settings.revocationLead().toNanos();
        this.bus = bus;
        this.held = held;
        this.watchdog = new ElectionTimer(RuntimeThreads.timer(), group, self);
        this.revocations = new SerialExecutor(RuntimeThreads.revocationPool(), group, self, "revocations");
    }

    // ---------------------------------------------------------------- what users read

    Role role() {
        return role;
    }

    long epoch() {
        return epoch;
    }

    Optional<LeaderView> leader() {
        return leaderView;
    }

    boolean isLeader() {
        RuntimeLeadership l = leadership;
        return l != null && l.isValid();
    }

    Optional<Leadership> leadership() {
        RuntimeLeadership l = leadership;
        return l != null && l.revocationReason() == null ? Optional.of(l) : Optional.empty();
    }

    Optional<NodeId> successor() {
        return leadership().isPresent() ? successor : Optional.empty();
    }

    // ---------------------------------------------------------------- lifecycle

    /** The election starts leaderless: what the first election's INFO line measures from. */
    void started() {
        leaderlessSinceNanos = System.nanoTime();
    }

    /** From here on a leadership that ends is a resignation, and its last sends are held. On the loop. */
    void beginStopping() {
        stopping = true;
    }

    /**
     * A resignation starts (on the loop, before the elector's {@link io.bellwether.elector.Elector#resign}): when the
     * leadership held now ends, it is revoked with {@code reason} and its last sends are held until the listeners
     * have heard, as for a stop. {@code done} completes once it has ended, or at the end of this event when there is
     * no leadership to give up. A resignation already under way keeps its reason.
     */
    void beginResigning(RevocationReason reason, CompletableFuture<Void> done) {
        if (resigning == null) {
            RuntimeLeadership l = leadership;
            if (l != null && l.revocationReason() == null) {
                resigning = reason;
                resigningEpoch = l.epoch();
                resigned = new CompletableFuture<>();
            }
        }
        resigned.whenComplete((v, e) -> done.complete(null));
    }

    /** At the end of the resignation's event: a leadership that still holds is being handed over (rule 9). */
    void resignEventDone() {
        if (resigning == null) {
            resigned.complete(null);
        }
    }

    CompletableFuture<Void> handedOver() {
        return handedOver;
    }

    void handOverEnded() {
        handedOver.complete(null);
        endResigning();
    }

    private void endResigning() {
        resigning = null;
        resigned.complete(null);
    }

    /** Revokes the leadership held, if any, for users. */
    void revoke(RevocationReason why) {
        RuntimeLeadership l = leadership;
        if (l != null) {
            l.revoke(why);
        }
    }

    /** The elector has stopped: this member resigns and goes dormant. On the loop. */
    void stopped() {
        long now = System.nanoTime();
        revoke(RevocationReason.RESIGNED);
        if (role != Role.DORMANT) {
            logRoleChange(announced.role(), Role.DORMANT, announced.epoch(), ChangeReason.STOPPED, now);
            publishRole(role, Role.DORMANT, announced.epoch());
        }
        forgetLeader();
    }

    /** The elector was halted for a failure, its leadership already revoked: this member goes dormant. */
    void failed() {
        if (role != Role.DORMANT) {
            publishRole(role, Role.DORMANT, announced.epoch());
        }
        forgetLeader();
    }

    /**
     * The watchdog's timer, for other short checks that must not depend on the loop (a leader task's health).
     */
    ElectionTimer watchdog() {
        return watchdog;
    }

    /**
     * Stops the watchdog; a leadership revoked after this completes {@link Leadership#revoked()} on the revoking
     * thread.
     */
    void shutdown() {
        watchdog.shutdown();
        revocations.shutdown();
    }

    // ---------------------------------------------------------------- from the elector, on the loop

    void successorReported(Optional<NodeId> member) {
        successor = member;
    }

    void validUntil(long nanos) {
        RuntimeLeadership l = leadership;
        if (l != null && announced.role() == Role.LEADER && l.epoch() == announced.epoch()) {
            l.validUntil(nanos);
            validityChanged = true;
        } else {
            // Electors may set the validity just before announcing the leadership it belongs to.
            hasPendingValidity = true;
            pendingValidUntil = nanos;
        }
    }

    /**
     * The validity of the leadership the elector announces next in this event, whatever leadership is held now (one
     * announced after a save, with the validity given before it). Loop-confined.
     */
    void validUntilOfNext(long nanos) {
        hasPendingValidity = true;
        pendingValidUntil = nanos;
    }

    /** At the end of every elector event: (re)arms the watchdog for a validity the event changed. */
    void afterEvent() {
        RuntimeLeadership l = leadership;
        if (validityChanged && l != null) {
            l.arm();
        }
        validityChanged = false;
        hasPendingValidity = false;
    }

    void announce(ElectorState state, ChangeReason reason) {
        ElectorState prev = announced;
        announced = state;
        boolean roleChanged = prev.role() != state.role() || prev.epoch() != state.epoch();
        if (roleChanged) {
            // What role() and epoch() read changes before any listener can hear of the change: a new leader's
            // listeners are woken in the middle of this event (below), and one that asks role() from elected() must
            // read LEADER, as isLeader() and leadership() already say.
            role = state.role();
            epoch = state.epoch();
        }
        if (stopping && state.role() == Role.DORMANT) {
            handedOver.complete(null);
        }
        long now = System.nanoTime();
        // Likewise what leader() reads: a new leader's elected() may run before this event ends, and must find
        // leader() naming itself. The listeners hear of the change in their usual order, after elected().
        Optional<LeaderView> before = leaderView;
        Optional<LeaderView> after = state.leader().map(id -> before.filter(
                        v -> v.leader().equals(id) && v.epoch() == state.epoch())
                .orElseGet(() -> new LeaderView(id, Optional.ofNullable(addresses.get(id)), state.epoch(), now)));
        boolean leaderChanged = !after.equals(before);
        if (leaderChanged) {
            if (before.isPresent()) {
                leaderlessSinceNanos = now;
                leaderlessSince = "losing the previous leader";
            }
            leaderView = after;
        }

        RuntimeLeadership current = leadership;
        boolean stillLeads = state.role() == Role.LEADER && current != null && current.epoch() == state.epoch();
        if (current != null && !stillLeads) {
            leadership = null;
            boolean resignation = resigning != null && current.epoch() == resigningEpoch;
            if (stopping || resignation) {
                held.hold();
            }
            current.revoke(stopping ? RevocationReason.RESIGNED : resignation ? resigning : reason.asRevocation());
            if (resignation) {
                endResigning();
            }
        }
        if (state.role() == Role.LEADER && !stillLeads) {
            boolean validityKnown = hasPendingValidity;
            RuntimeLeadership fresh = new RuntimeLeadership(
                    state.epoch(),
                    validityKnown ? pendingValidUntil : now,
                    revocationLeadNanos,
                    watchdog,
                    revocations,
                    this::onRevoked);
            hasPendingValidity = false;
            leadership = fresh;
            validityChanged = true;
            bus.elected(fresh);
            if (validityKnown) {
                // Published now, with what this event queued before it, not once the event has been handled: the
                // new leader's first heartbeats, sent next, set the whole group to work, and its own listeners
                // would wait for a core behind that (docs/benchmarks.md). Only when the elector set the validity
                // before announcing (the quorum elector does): one that sets it afterwards, in the same event,
                // must not have its listeners see a leadership that is not valid yet.
                bus.publishPending();
            }
        }

        if (leaderChanged) {
            bus.leaderChanged(after);
            if (after.isPresent() && state.role() != Role.LEADER) {
                log.debug(
                        "group {} node {}: follows {} at epoch {} ({})",
                        group,
                        self,
                        after.get().leader(),
                        state.epoch(),
                        reason);
            }
        }

        if (prev.role() != state.role()) {
            logRoleChange(prev.role(), state.role(), state.epoch(), reason, now);
        } else {
            log.debug("group {} node {}: {} -> {} ({})", group, self, prev, state, reason);
        }
        if (roleChanged) {
            bus.roleChanged(prev.role(), state.role(), state.epoch());
        }
    }

    // ---------------------------------------------------------------- internals

    /** Updates what {@link #role()} and {@link #epoch()} read and tells listeners, in order with other events. */
    private void publishRole(Role previous, Role current, long currentEpoch) {
        role = current;
        epoch = currentEpoch;
        bus.roleChanged(previous, current, currentEpoch);
    }

    private void forgetLeader() {
        if (leaderView.isPresent()) {
            leaderView = Optional.empty();
            bus.leaderChanged(Optional.empty());
        }
    }

    private void logRoleChange(Role from, Role to, long atEpoch, ChangeReason reason, long now) {
        if (!roleChanges.admit(from, to, atEpoch, reason, now)) {
            return;
        }
        if (to == Role.LEADER) {
            log.info(
                    "group {} node {}: {} -> {} at epoch {} ({}), elected {} ms after {}",
                    group,
                    self,
                    from,
                    to,
                    atEpoch,
                    reason,
                    TimeUnit.NANOSECONDS.toMillis(now - leaderlessSinceNanos),
                    leaderlessSince);
        } else {
            log.info("group {} node {}: {} -> {} at epoch {} ({})", group, self, from, to, atEpoch, reason);
        }
    }

    private void logRepeats(String summary) {
        log.info("group {} node {}: {}", group, self, summary);
    }

    /** Sets what is told of the watchdog's revocations; once, before the election starts. */
    void onValidityExpired(java.util.function.LongConsumer action) {
        onValidityExpired = action;
    }

    /** Whether the elector has announced a leadership the tracker holds now. Loop-confined. */
    boolean leading() {
        return announced.role() == Role.LEADER && leadership != null;
    }

    /** Whether the elector's last announcement is leadership at {@code epoch}. On the loop. */
    boolean announcedLeaderAt(long epoch) {
        return announced.role() == Role.LEADER && announced.epoch() == epoch;
    }

    /** Called by a leadership as it is revoked, on whichever thread revokes it (the loop, the timer, close()). */
    private void onRevoked(RuntimeLeadership l, RevocationReason reason) {
        if (reason == RevocationReason.VALIDITY_EXPIRED) {
            log.warn(
                    "group {} node {}: leadership of epoch {} revoked by the watchdog: its validity was not extended"
                            + " in time",
                    group,
                    self,
                    l.epoch());
        }
        bus.revoked(l, reason);
        held.releaseBehindRevocation(l.revokedCallbacksRun());
        if (reason == RevocationReason.VALIDITY_EXPIRED) {
            onValidityExpired.accept(l.epoch());
        }
    }
}
