package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.util.Optional;

/**
 * single-leader-after-quiet: once the faults stop, within the run's bound (and from then on) exactly one live
 * node is LEADER and every live node names it at its epoch; with {@code highestWins}, that node is the highest
 * live id (highest-live-id-leads); for invitation, every live node is in its one group of the live nodes.
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

    private final Engine e;
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
        if (invitation == null) {
            this.boundNanos = QUIET_CONVERGENCE_BOUND_NANOS;
        } else {
            this.boundNanos = run.has(Trait.EXCLUSIVE)
                    ? GATED_INVITATION_CONVERGENCE_BOUND_NANOS
                    : INVITATION_CONVERGENCE_BOUND_NANOS;
        }
    }

    void onQuietStart(long quietPhaseNanos) {
        quietStart = e.now;
        long quietDeadline = e.now + Math.min(boundNanos, quietPhaseNanos);
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
                    "single-leader-after-quiet",
                    (wasConverged
                                    ? "leadership changed after convergence: "
                                    : "no single known leader " + e.timeText(boundNanos)
                                            + " after the quiet phase began: ")
                            + problem,
                    all());
        }
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
            NodeId highest = null;
            for (SimNode node : e.nodes) {
                if (node.live() && (highest == null || node.id.compareTo(highest) > 0)) {
                    highest = node.id;
                }
            }
            if (!l.id.equals(highest)) {
                return l.name + " leads at epoch " + l.state.epoch() + " but " + highest
                        + " is the highest live id (highest-live-id-leads)";
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
