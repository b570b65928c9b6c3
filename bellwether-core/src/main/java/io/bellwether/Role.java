package io.bellwether;

/** What a member currently is in its election group. Not every algorithm uses every role. */
public enum Role {
    /** Not started, or stopped. */
    DORMANT,
    /**
     * Follows a leader, or looks for one: waits to hear of it, or (quorum) asks its peers whether they would
     * vote for it, which moves no epoch and so is not yet a candidacy.
     */
    FOLLOWER,
    /** Campaigning for leadership in a new epoch. */
    CANDIDATE,
    /** Holds leadership: see {@link Leadership} for how long it may act on it. */
    LEADER
}
