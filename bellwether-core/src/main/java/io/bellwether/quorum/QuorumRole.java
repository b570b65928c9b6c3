package io.bellwether.quorum;

import io.bellwether.Role;

/**
 * The quorum elector's own roles: the public {@link Role}s plus {@link #SCOUT}, the pre-vote phase. A scout
 * is shown to users and observers as a {@link Role#FOLLOWER} without a leader: it has not moved to a new term
 * and campaigns for nothing yet, so to everyone outside the elector it is a follower that is looking.
 */
enum QuorumRole {
    DORMANT(Role.DORMANT),
    FOLLOWER(Role.FOLLOWER),
    /** Asking peers whether they would vote for it in the next term, without changing anything (rule 4). */
    SCOUT(Role.FOLLOWER),
    CANDIDATE(Role.CANDIDATE),
    LEADER(Role.LEADER);

    private final Role shown;

    QuorumRole(Role shown) {
        this.shown = shown;
    }

    /** The role announced for this one. */
    Role shown() {
        return shown;
    }
}
