package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import java.util.Objects;
import java.util.Optional;

/** The quorum elector's messages. Every message carries the sender's view of the term it is about. */
public sealed interface QuorumMessage extends ElectorMessage {
    /** The term this message is about; see each message for which term that is. */
    long term();

    /**
     * Pre-vote: "would you vote for me at {@code term}?" ({@code term} = the scout's term + 1). Changes no
     * state anywhere: not the scout's term, not the receiver's.
     */
    record ScoutingRequest(long term) implements QuorumMessage {}

    /**
     * The answer to a {@link ScoutingRequest}. {@code term} echoes the request; {@code responderTerm} is the
     * responder's current term, so that a scout behind the group catches up on a rejection.
     */
    record ScoutingResponse(long term, boolean willVote, long responderTerm) implements QuorumMessage {}

    /**
     * A candidate asks for votes at {@code term}, which it has already persisted. {@code transferFrom} names
     * the leader of the previous term when that leader ceded to this candidate by name (a graceful handover):
     * the candidate then skips scouting, and a voter still following that leader treats the proposal as the
     * cession itself, so the handover does not depend on which of the two messages arrives first.
     */
    record ElectionProposal(long term, Optional<NodeId> transferFrom) implements QuorumMessage {
        public ElectionProposal {
            Objects.requireNonNull(transferFrom, "transferFrom");
        }

        /** An ordinary proposal, after a successful scouting round. */
        public ElectionProposal(long term) {
            this(term, Optional.empty());
        }
    }

    /** A vote for the proposal at {@code term}; the voter persisted {@code term} before sending it. */
    record ElectionResponse(long term) implements QuorumMessage {}

    /**
     * The leader's heartbeat: its Leader Sequence Number ({@code term}, {@code sequence}). Sequences start at 1
     * in each term and increase by one per round; receivers drop any LSN not above the last they accepted.
     */
    record Heartbeat(long term, long sequence) implements QuorumMessage {}

    /**
     * The answer to a {@link Heartbeat}. {@code term} is the responder's current term: equal to the
     * heartbeat's when it acknowledges round {@code sequence}, higher when it tells a stale leader to step
     * down. {@code priority} is the responder's configured priority (rule 11), so that the leader can hand over
     * to a member it prefers.
     */
    record HeartbeatResponse(long term, long sequence, int priority) implements QuorumMessage {
        /** An answer of a member of priority 0. */
        public HeartbeatResponse(long term, long sequence) {
            this(term, sequence, 0);
        }

        /** Priority 0 is left out, as on the wire, so that logs and histories without priorities read as before. */
        @Override
        public String toString() {
            return "HeartbeatResponse[term=" + term + ", sequence=" + sequence
                    + (priority == 0 ? "" : ", priority=" + priority) + "]";
        }
    }

    /**
     * The leader of {@code term}, asked to stop, asks the member it chose as its successor to gather votes for
     * {@code term + 1} while it still leads (a prepared handover). The successor proposes at once, naming the
     * leader as {@code transferFrom}, and waits for the leader's {@link LeadershipCession} before it leads.
     */
    record HandoverRequest(long term) implements QuorumMessage {}

    /**
     * The successor's answer to a {@link HandoverRequest} of the leader of {@code term}: a majority has voted
     * for it at {@code term + 1}, so the leader may revoke its leadership and cede; the successor leads as soon
     * as that cession reaches it.
     */
    record HandoverReady(long term) implements QuorumMessage {}

    /**
     * The leader of {@code term} names this member its standby successor (rule 10 in {@code docs/quorum.md}):
     * gather pledges of votes for {@code pledgeTerm}, a term above {@code term} that this leader names in no
     * other request, so that its cession alone can make this member leader. {@code pledgeTerm} 0 withdraws
     * the naming.
     */
    record StandbyRequest(long term, long pledgeTerm) implements QuorumMessage {}

    /**
     * A standby of the leader of {@code term} asks a fellow follower to pledge its vote for {@code pledgeTerm}
     * and to confirm round {@code sequence}; a confirmation is a promise to support no other candidate for an
     * election timeout.
     */
    record StandbyRound(long term, long pledgeTerm, long sequence) implements QuorumMessage {}

    /**
     * The answer to a {@link StandbyRound}: the sender has persisted its pledge of {@code pledgeTerm} to the
     * standby (a vote given in advance) and fences for it.
     */
    record StandbyConfirm(long term, long pledgeTerm, long sequence) implements QuorumMessage {}

    /** A standby tells the leader of {@code term} that a majority has pledged {@code pledgeTerm} to it. */
    record StandbyReady(long term, long pledgeTerm) implements QuorumMessage {}

    /**
     * The leader of {@code term} gives up its leadership (it has already stopped acting as leader) and names
     * a successor that may scout at once, without the usual backoff.
     */
    record LeadershipCession(long term, Optional<NodeId> successor) implements QuorumMessage {
        public LeadershipCession {
            Objects.requireNonNull(successor, "successor");
        }
    }
}
