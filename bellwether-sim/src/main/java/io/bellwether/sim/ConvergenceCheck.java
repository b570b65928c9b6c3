package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.Role;
import java.util.Optional;

/**
 * single-leader-after-quiet: once the faults stop, within the run's bound (and from then on) exactly one live
 * node is LEADER and every live node names it at its epoch; with {@code highestWins}, that node is the highest
 * live id (highest-live-id-leads); for invitation, every live node is in its one group of the live nodes.
 */
final class ConvergenceCheck {
    private final Engine e;
    private final long boundNanos;
    /** Whether the quiet phase must end with the highest live id leading (bully with pre-emption, ring). */
    private final boolean highestWins;
    /** Invitation runs: the group-view checks, whose one-group condition convergence includes; null otherwise. */
    private final InvitationChecks invitation;

    private long quietStart = -1;
    private long convergedSince = -1;
    private boolean pastDeadline;

    ConvergenceCheck(Engine engine, long boundNanos, boolean highestWins, InvitationChecks invitation) {
        this.e = engine;
        this.boundNanos = boundNanos;
        this.highestWins = highestWins;
        this.invitation = invitation;
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
