package io.bellwether.invitation;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.PeerGroup;
import io.bellwether.elector.Quorums;
import java.util.Arrays;
import java.util.List;

/**
 * How long an invitation coordinator may act, and the promise (fence) a member gives its coordinator under the
 * majority gate; see "Validity" in {@link InvitationElector}. Without the gate, a coordinator's own latest check
 * keeps it valid; with it, the latest round that members forming a majority of the configured members confirmed,
 * not counting itself while it is fenced by another coordinator. Not thread-safe, like the elector that owns it.
 */
final class GroupValidity {
    private final InvitationConfig config;
    private final ElectorContext ctx;
    private final PeerGroup peers;
    /** Per member rank: the send time of the latest round it confirmed for the current group. */
    private final long[] confirmedNanos;

    // Fence (majority gate only): this member joins no group but holder's before untilNanos.
    private NodeId holder;
    private long messageId;
    private long untilNanos = Long.MIN_VALUE;

    GroupValidity(InvitationConfig config, ElectorContext ctx, PeerGroup peers) {
        this.config = config;
        this.ctx = ctx;
        this.peers = peers;
        this.confirmedNanos = new long[peers.size()];
        Arrays.fill(confirmedNanos, Long.MIN_VALUE);
    }

    /** Forgets every confirmation: a new group starts. */
    void reset() {
        Arrays.fill(confirmedNanos, Long.MIN_VALUE);
    }

    /** The coordinator itself takes part in the round it sends now. */
    void confirmSelf(long now) {
        confirmedNanos[peers.selfRank()] = now;
    }

    /** {@code member} confirmed the round sent at {@code roundSentNanos}. */
    void confirm(NodeId member, long roundSentNanos) {
        int i = peers.rankOf(member);
        confirmedNanos[i] = Math.max(confirmedNanos[i], roundSentNanos);
    }

    /** Until when the confirmations keep the coordinator valid; {@code Long.MIN_VALUE} if not at all. */
    long validUntil() {
        if (!config.majorityGate()) {
            return confirmedNanos[peers.selfRank()] + config.validityNanos();
        }
        long[] confirmations = confirmedNanos.clone();
        if (isFenced()) {
            // Still promised to another coordinator: this member's own support does not count yet.
            confirmations[peers.selfRank()] = Long.MIN_VALUE;
        }
        long majorityConfirmed = Quorums.majorityValue(confirmations);
        return majorityConfirmed == Long.MIN_VALUE ? Long.MIN_VALUE : majorityConfirmed + config.validityNanos();
    }

    /** Whether a member of a group formed at {@code groupSinceNanos} has confirmed nothing within the last lease. */
    boolean hasSilentMember(List<NodeId> groupMembers, long groupSinceNanos) {
        long staleBefore = ctx.nanoTime() - config.lease().toNanos();
        if (groupSinceNanos >= staleBefore) {
            return false;
        }
        for (NodeId member : groupMembers) {
            if (!member.equals(peers.self()) && confirmedNanos[peers.rankOf(member)] < staleBefore) {
                return true;
            }
        }
        return false;
    }

    /** Promises {@code holder} (for a lease from now) to join no other group; only with the majority gate. */
    void setFence(NodeId newHolder, long newMessageId) {
        if (!config.majorityGate()) {
            return; // fences only serve the gate's promise of a single acting coordinator
        }
        long until = ctx.nanoTime() + config.lease().toNanos();
        if (newHolder.equals(holder)) {
            messageId = Math.max(messageId, newMessageId);
            untilNanos = Math.max(untilNanos, until);
        } else {
            holder = newHolder;
            messageId = newMessageId;
            untilNanos = until;
        }
    }

    /** Whether this member is promised to another coordinator now. */
    boolean isFenced() {
        return holder != null && ctx.nanoTime() < untilNanos && !holder.equals(peers.self());
    }

    /** Whether a message from {@code from} is newer than the one that fenced this member for it. */
    boolean releasedBy(NodeId from, long fromMessageId) {
        return from.equals(holder) && fromMessageId > messageId;
    }

    void clearFence() {
        holder = null;
        messageId = 0;
        untilNanos = Long.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "fenced for " + holder + " until " + untilNanos;
    }
}
