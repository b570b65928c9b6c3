package io.bellwether.sim;

import io.bellwether.Role;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.util.Optional;

/**
 * single-leader-after-quiet: once the faults stop, within the run's bound (and from then on) exactly one live
 * node is LEADER and every live node names it at its epoch; with {@code highestWins}, that node is the highest
 * live id (highest-live-id-leads), or with per-node priorities the highest (priority, id); for invitation, every
 * live node is in its one group of the live nodes.
 *
 * <p>highest-priority-leads, in runs with per-node priorities ({@link SimulationConfig#priorities()}): within
 * {@link #PRIORITY_CONVERGENCE_BOUND_NANOS} of the quiet phase's start the single leader is a live member of the
 * highest priority among the live ones, and from then on leadership does not move (a move after convergence is
 * reported as single-leader-after-quiet, "leadership changed after convergence": the ping-pong check).
 */
final class ConvergenceCheck {
    /** How long after the quiet phase starts a single, universally known leader must exist. */
    static final long QUIET_CONVERGENCE_BOUND_NANOS = 5_000_000_000L;

    /**
     * Classic invitation runs: how long after the quiet phase starts one group of every live node must have
     * formed. Measured over 4000 seeds of 5-node runs with every fault kind: p50 0.29 s, p99 0.69 s, max 1.03 s.
     */
    static final long INVITATION_CONVERGENCE_BOUND_NANOS = 2_000_000_000L;

    /**
     * Gated invitation runs: the same bound with the majority gate on. Measured over 4000 seeds of 5-node runs
     * with every fault kind: p50 0.33 s, p99 2.4 s, max 5.7 s; the tail is the gated elector re-forming its group
     * repeatedly while members' fences (one lease each) and lost-member re-forms chase each other after a heal.
     */
    static final long GATED_INVITATION_CONVERGENCE_BOUND_NANOS = 8_000_000_000L;

    /**
     * Runs with per-node priorities (quorum, default timings: priority-hold-down 1 s): how long after the quiet
     * phase starts a member of the highest live priority must lead. Measured over 2000 seeds of 5-node runs with
     * every fault kind and priorities 0 to 2 (2026-11-26, pause-all and starve in the mix, counted from the end of
     * the starved members' backlogs; odd seeds with each member's own priority, even seeds with the whole group's):
     * p50 90 ms, max 2.92 s (the election after the faults, the 1 s hold-down and the hand-over); see {@code
     * docs/quorum.md}, rule 11. Bully
     * with priorities converges within the same bound (2000 seeds: p99 1.01 s, max 1.01 s).
     */
    static final long PRIORITY_CONVERGENCE_BOUND_NANOS = 4_000_000_000L;

    /**
     * Lease runs with per-node priorities (default timings: duration 3 s, renew-interval 1 s): a crashed holder's
     * lease runs out (up to one duration), a contender takes it, and if a live member of higher priority waits,
     * the holder releases at its next renewal and the claimant takes it at its next poll or on the pushed release.
     * Measured over 2000 seeds of 5-node runs with every fault kind and priorities 0 to 2: p50 0.92 s, p99 2.7 s,
     * max 4.04 s.
     */
    static final long LEASE_PRIORITY_CONVERGENCE_BOUND_NANOS = 6_000_000_000L;

    private final Engine e;
    /** Whether the nodes have priorities of their own: the leader must be one of the highest live priority. */
    private final boolean priorities;

    private final long boundNanos;
    /** Whether the quiet phase must end with the highest live id leading (bully with pre-emption, ring). */
    private final boolean highestWins;
    /** Invitation runs: the group-view checks, whose one-group condition convergence includes; null otherwise. */
    private final InvitationChecks invitation;

    private long quietStart = -1;
    private long convergedSince = -1;
    private boolean pastDeadline;

    ConvergenceCheck(Engine engine, Variant run, InvitationChecks invitation) {
        this.e = engine;
        this.invitation = invitation;
        this.highestWins = Invariants.highestWins(engine.spec);
        this.priorities = engine.config.priorities();
        if (invitation == null) {
            this.boundNanos = !priorities
                    ? QUIET_CONVERGENCE_BOUND_NANOS
                    : run.has(Trait.USES_STORE)
                            ? LEASE_PRIORITY_CONVERGENCE_BOUND_NANOS
                            : PRIORITY_CONVERGENCE_BOUND_NANOS;
        } else {
            this.boundNanos = run.has(Trait.EXCLUSIVE)
                    ? GATED_INVITATION_CONVERGENCE_BOUND_NANOS
                    : INVITATION_CONVERGENCE_BOUND_NANOS;
        }
    }

    /**
     * The faults have stopped. The bound counts from the moment every node has also worked through the backlog a
     * {@link FaultKind#STARVE} left it (the overload's end), or from now when none has one.
     */
    void onQuietStart(long quietPhaseNanos) {
        long end = e.now + quietPhaseNanos;
        long drained = e.now;
        for (SimNode node : e.nodes) {
            drained = Math.max(drained, node.busyUntil);
        }
        if (drained > e.now) {
            // A backlog that outlasts the run leaves the end of the run as the quiet phase's start: checked there.
            long start = Math.min(drained, end);
            e.at(start, () -> beginQuiet(start, end));
        } else {
            beginQuiet(e.now, end);
        }
    }

    private void beginQuiet(long start, long end) {
        quietStart = start;
        long quietDeadline = start + Math.min(boundNanos, Math.max(0, end - start));
        e.at(quietDeadline, () -> {
            pastDeadline = true;
            checkQuiet();
        });
        checkQuiet();
    }

    /** After a node's event: checks once the quiet phase has begun. */
    void afterNodeEvent() {
        if (quietStart >= 0) {
            checkQuiet();
        }
    }

    /** Checks convergence at the end of the run too. */
    void onRunEnd() {
        if (quietStart >= 0) {
            pastDeadline = true;
            checkQuiet();
        }
    }

    long convergenceNanos() {
        return convergedSince < 0 ? -1 : convergedSince - quietStart;
    }

    private void checkQuiet() {
        String problem = convergenceProblem();
        if (problem == null) {
            if (convergedSince < 0) {
                convergedSince = e.now;
            }
            return;
        }
        boolean wasConverged = convergedSince >= 0;
        convergedSince = -1;
        if (pastDeadline) {
            e.violate(
                    problem.contains("(highest-priority-leads)") && !wasConverged
                            ? "highest-priority-leads"
                            : "single-leader-after-quiet",
                    (wasConverged
                                    ? "leadership changed after convergence: "
                                    : "no single known leader " + e.timeText(boundNanos)
                                            + " after the quiet phase began: ")
                            + problem,
                    all());
        }
    }

    /** Whether {@code a} ranks above {@code b}: by priority when the nodes have their own, then by id. */
    private boolean outranks(SimNode a, SimNode b) {
        if (priorities && a.priority != b.priority) {
            return a.priority > b.priority;
        }
        return a.id.compareTo(b.id) > 0;
    }

    private int[] all() {
        int[] a = new int[e.n];
        for (int i = 0; i < e.n; i++) {
            a[i] = i;
        }
        return a;
    }

    private String convergenceProblem() {
        int leader = -1;
        for (SimNode node : e.nodes) {
            if (node.live() && node.state.role() == Role.LEADER) {
                if (leader >= 0) {
                    return "both " + e.ids[leader] + " and " + node.name + " are LEADER";
                }
                leader = node.index;
            }
        }
        if (leader < 0) {
            return "no node is LEADER";
        }
        SimNode l = e.nodes[leader];
        if (invitation != null) {
            String problem = invitation.oneGroupProblem(l);
            if (problem != null) {
                return problem;
            }
        }
        if (highestWins) {
            SimNode highest = null;
            for (SimNode node : e.nodes) {
                if (node.live() && (highest == null || outranks(node, highest))) {
                    highest = node;
                }
            }
            if (highest != null && highest != l) {
                return priorities
                        ? l.name + " (priority " + l.priority + ") leads at epoch " + l.state.epoch() + " but "
                                + highest.name + " (priority " + highest.priority
                                + ") is the highest live (priority, id) (highest-priority-leads)"
                        : l.name + " leads at epoch " + l.state.epoch() + " but " + highest.name
                                + " is the highest live id (highest-live-id-leads)";
            }
        } else if (priorities) {
            for (SimNode node : e.nodes) {
                if (node.live() && node.priority > l.priority) {
                    return l.name + " (priority " + l.priority + ") leads at epoch " + l.state.epoch() + " but "
                            + node.name + " (priority " + node.priority + ") is live (highest-priority-leads)";
                }
            }
        }
        for (SimNode node : e.nodes) {
            if (!node.live()) {
                continue;
            }
            if (node.state.epoch() != l.state.epoch() || !node.state.leader().equals(Optional.of(l.id))) {
                return node.name + " is " + node.state + " while " + l.name + " leads at epoch " + l.state.epoch();
            }
        }
        return null;
    }
}
