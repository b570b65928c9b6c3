package io.bellwether.elector;

import io.bellwether.RevocationReason;

/** Why an elector's role, epoch or leader changed. */
public enum ChangeReason {
    STARTED(null),
    STOPPED(RevocationReason.RESIGNED),
    /**
     * The leader gave up its leadership and stays a member ({@link Elector#resign}); the runtime tells users the
     * reason it was asked to resign for.
     */
    RESIGNED(RevocationReason.RESIGNED),
    /**
     * The leader handed its leadership to a member of higher priority and stays a member (the quorum elector's rule
     * 11); users are told {@link RevocationReason#RESIGNED}.
     */
    TRANSFERRED(RevocationReason.RESIGNED),
    /** Won an election. */
    ELECTED(null),
    /** Learned of a leader (its heartbeat or announcement). */
    LEADER_DISCOVERED(null),
    /** The leader's heartbeats stopped arriving. */
    LEADER_TIMEOUT(null),
    /** The transport reported the leader's connection closed. */
    LEADER_DISCONNECTED(null),
    /** The leader ceded its leadership. */
    LEADER_CEDED(null),
    /**
     * A coordinator-to-be halted this member (strict bully): it stops following or leading until the new
     * coordinator's Ready.
     */
    HALTED(RevocationReason.HIGHER_EPOCH_SEEN),
    /**
     * Started asking peers for support (quorum pre-vote). A scout is shown as a follower without a leader, so this
     * is announced only where that itself is a change.
     */
    SCOUTING(null),
    /** Became a candidate. */
    CAMPAIGNING(null),
    /** A scouting or election round failed or timed out. */
    ROUND_FAILED(null),
    /** A message showed a higher epoch. */
    HIGHER_EPOCH(RevocationReason.HIGHER_EPOCH_SEEN),
    /** The leader stopped hearing from a majority (check-quorum). */
    LOST_QUORUM(RevocationReason.LOST_QUORUM),
    /** A lease could not be renewed in time. */
    LEASE_NOT_RENEWED(RevocationReason.LEASE_NOT_RENEWED);

    private final RevocationReason revocation;

    ChangeReason(RevocationReason revocation) {
        this.revocation = revocation;
    }

    /** The reason to give users when this change ends a leadership. */
    public RevocationReason asRevocation() {
        return revocation == null ? RevocationReason.HIGHER_EPOCH_SEEN : revocation;
    }
}
