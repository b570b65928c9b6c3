package io.bellwether;

/** What a member currently is in its election group. Not every algorithm uses every role. */
public enum Role {
    /** Not started, or stopped. */
    DORMANT,
    /** Follows a leader, or waits to learn of one. */
    FOLLOWER,
    /** Asking peers whether they would support it (quorum: scouting, i.e. pre-vote). */
    SCOUT,
    /** Campaigning for leadership in a new epoch. */
    CANDIDATE,
    /** Holds leadership: see {@link Leadership} for how long it may act on it. */
    LEADER
}
