package io.bellwether.sim;

import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import io.bellwether.ring.RingMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The online invariant checkers of a run, selected from its {@link Variant}: each hook is called by the
 * {@link Engine} at the moment the fact it checks becomes observable, so a violation is reported at the first
 * event that shows it, and hands the fact to the checkers that want it, in a fixed order.
 *
 * <ul>
 *   <li>{@link SafetyChecks} and {@link ConvergenceCheck} (single-leader-after-quiet) run for every algorithm;
 *   <li>{@link ExclusiveChecks} (no-overlapping-validity) for {@link Trait#EXCLUSIVE} runs: quorum, lease and
 *       gated invitation;
 *   <li>{@link CoordinatorChecks} for the classic split-brain algorithms (bully, ring), which keep working on
 *       every side of a partition, so two coordinators, and leaderships whose epochs do not increase across
 *       sides, are not violations for them (the engine measures the time with two leaders instead);
 *   <li>the algorithm-specific checkers the variant's {@link Variant#checks()} names ({@link #CHECKS}): {@link
 *       QuorumChecks}, {@link RingChecks}, {@link StrictBullyChecks}, {@link InvitationChecks}.
 * </ul>
 *
 * The lease runs' store and fencing checks live in {@link FencedResource}. Ungated invitation is a split-brain
 * algorithm too, without the coordinator checks (two singleton groups with the same counter share an epoch);
 * with the majority gate ({@code invitation-gated}) no-overlapping-validity and leader-epoch-increases apply as
 * for quorum.
 */
final class Invariants {
    /**
     * Runs that may elect a coordinator on each side of a partition ({@link Trait#SPLITS_UNDER_PARTITION}): bully,
     * ring and invitation without its majority gate ({@code invitation-gated} is not here).
     */
    static final Set<String> SPLIT_BRAIN_ALGORITHMS = Algorithms.variants().stream()
            .filter(v -> v.has(Trait.SPLITS_UNDER_PARTITION))
            .map(Variant::name)
            .collect(Collectors.toUnmodifiableSet());

    /** The algorithm-specific checkers a {@link Variant#checks()} may name. */
    static final List<String> CHECKS = List.of("quorum", "ring", "strict-bully", "invitation");

    /** Split-brain runs (see the class comment): no checks that assume one leadership at a time. */
    private final boolean splitBrainAllowed;

    private final SafetyChecks safety;
    private final ConvergenceCheck convergence;

    // the checkers a run may not need: null when it does not
    private final ExclusiveChecks exclusive;
    private final CoordinatorChecks coordinators;
    private final QuorumChecks quorum;
    private final RingChecks ring;
    private final StrictBullyChecks strictBully;
    private final InvitationChecks invitation;

    private final Engine engine;

    Invariants(Engine engine, Variant run) {
        this.engine = engine;
        for (String check : run.checks()) {
            if (!CHECKS.contains(check)) {
                throw new IllegalArgumentException("check '" + check + "' of " + run.name()
                        + " is unknown to the simulator: allowed " + String.join(", ", CHECKS));
            }
        }
        boolean checksQuorum = run.checks().contains("quorum");
        this.splitBrainAllowed = run.has(Trait.SPLITS_UNDER_PARTITION);
        this.quorum = checksQuorum ? new QuorumChecks(engine) : null;
        this.ring = run.checks().contains("ring") ? new RingChecks(engine) : null;
        this.strictBully = run.checks().contains("strict-bully") ? new StrictBullyChecks(engine) : null;
        this.invitation = run.checks().contains("invitation") ? new InvitationChecks(engine) : null;
        this.exclusive = run.has(Trait.EXCLUSIVE) ? new ExclusiveChecks(engine) : null;
        this.coordinators = splitBrainAllowed && invitation == null ? new CoordinatorChecks(engine) : null;
        this.safety = new SafetyChecks(engine, run.has(Trait.USES_STORE), checksQuorum);
        this.convergence = new ConvergenceCheck(engine, run, invitation);
    }

    /** Whether the spec promises that the highest live id ends up leading once faults stop. */
    static boolean highestWins(ElectorSpec spec) {
        return spec.highestIdLeads();
    }

    /** One fresh {@code T} per node of {@code e}: a checker's per-node state. */
    static <T> List<T> perNode(Engine e, Supplier<T> each) {
        List<T> all = new ArrayList<>(e.n);
        for (int i = 0; i < e.n; i++) {
            all.add(each.get());
        }
        return all;
    }

    // ---------------------------------------------------------------- lifecycle

    void onIncarnation(SimNode node) {
        if (strictBully != null) {
            strictBully.onIncarnation(node);
        }
        if (ring != null) {
            ring.onIncarnation(node);
        }
        if (invitation != null) {
            invitation.onIncarnation(node);
        }
        safety.onIncarnation(node);
        if (quorum != null) {
            quorum.onIncarnation(node);
        }
    }

    void onDown(SimNode node) {
        if (quorum != null) {
            quorum.stopCutOffClock(node);
        }
    }

    /** A {@link FaultKind#STARVE} began on {@code node}. */
    void onStarve(SimNode node) {
        if (quorum != null) {
            quorum.stopCutOffClock(node);
        }
    }

    void onPause(SimNode node) {
        if (quorum != null) {
            quorum.stopCutOffClock(node);
        }
    }

    /**
     * A paused process takes no action, so a paused node holds no leadership while the pause lasts; the
     * events it missed (a peer's disconnect, say) are handled the instant it resumes, and no-overlapping-validity
     * is checked again then. This is the "no pause longer than the margin" condition of the invariant made
     * precise: what a leader does in the gap between resuming and handling its queued events is the
     * application's pause-between-check-and-act risk, which fencing tokens cover.
     */
    void afterResume(SimNode node) {
        if (exclusive != null) {
            exclusive.checkOverlap(node);
        }
    }

    // ---------------------------------------------------------------- per event

    void afterNodeEvent(SimNode node, ElectorState st) {
        if (!safety.checkRange(node, st)) {
            return;
        }
        if (invitation != null && !invitation.checkGroup(node)) {
            return;
        }
        if (!safety.checkTermMonotonic(node, st)) {
            return;
        }
        if (quorum != null) {
            quorum.afterNodeEvent(node, st);
        }
        convergence.afterNodeEvent();
    }

    void onPersist(SimNode node, StoredState state) {
        safety.onPersist(node, state);
    }

    void onAnnounce(SimNode node, ElectorState prev, ElectorState st, boolean newLeadership) {
        if (newLeadership && !checkHoldOff(node, st)) {
            return;
        }
        if (invitation != null && !invitation.checkGroup(node)) {
            return;
        }
        if (splitBrainAllowed) {
            if (coordinators != null) {
                coordinators.onAnnounce(node, st);
            }
            if (strictBully != null) {
                strictBully.onAnnounce(node, prev, st);
            }
            return;
        }
        if (newLeadership) {
            if (!safety.onNewLeadership(node, st)) {
                return;
            }
            if (exclusive != null) {
                exclusive.checkOverlap(node);
            }
        }
        if (quorum != null) {
            quorum.onAnnounce(node, prev, st);
        }
    }

    /**
     * no-leadership-during-hold-off, for every algorithm: a member that resigned ({@link FaultKind#RESIGN}) announces
     * no leadership before its hold-off has passed on its own clock.
     */
    private boolean checkHoldOff(SimNode node, ElectorState st) {
        long local = node.localNanos(engine.now);
        if (local >= node.resignedUntilLocal) {
            return true;
        }
        engine.violate(
                "no-leadership-during-hold-off",
                String.format(
                        "%s announced leadership at epoch %d %.3fms before the end of the hold-off it resigned with",
                        node.name, st.epoch(), (node.resignedUntilLocal - local) / 1e6),
                new int[] {node.index});
        return false;
    }

    void onValidUntil(SimNode node) {
        if (exclusive != null) {
            exclusive.checkOverlap(node);
        }
    }

    void onSend(SimNode from, int to, ElectorMessage m) {
        if (strictBully != null) {
            strictBully.onSend(from, to, m);
            return;
        }
        if (ring != null && m instanceof RingMessage r) {
            ring.onSend(from, r);
            return;
        }
        if (quorum != null) {
            quorum.onSend(from, to, m);
        }
    }

    void beforeDeliver(SimNode to, int from, ElectorMessage m) {
        if (strictBully != null) {
            strictBully.beforeDeliver(to, from, m);
            return;
        }
        if (quorum != null) {
            quorum.beforeDeliver(to, from, m);
        }
    }

    void afterDeliver(SimNode to, int from, ElectorMessage m) {
        if (quorum != null) {
            quorum.afterDeliver(to, from, m);
        }
    }

    // ---------------------------------------------------------------- faults and phases

    void topologyChanged() {
        if (quorum != null) {
            quorum.topologyChanged();
        }
    }

    /** An isolation of {@code isolated} ended; see {@link QuorumChecks#onIsolateEnded}. */
    void onIsolateEnded(int isolated, boolean othersQuiet) {
        if (quorum != null) {
            quorum.onIsolateEnded(isolated, othersQuiet);
        }
    }

    /** Another fault began: the isolation check no longer isolates the isolation's effect. */
    void onFaultStarted() {
        if (quorum != null) {
            quorum.onFaultStarted();
        }
    }

    void onQuietStart(long quietPhaseNanos) {
        convergence.onQuietStart(quietPhaseNanos);
    }

    /** Checks convergence at the end of the run too. */
    void onRunEnd() {
        convergence.onRunEnd();
    }

    long convergenceNanos() {
        return convergence.convergenceNanos();
    }
}
