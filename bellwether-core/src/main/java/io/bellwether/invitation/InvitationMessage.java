package io.bellwether.invitation;

import io.bellwether.NodeId;
import io.bellwether.elector.PeerMessage;
import java.util.List;
import java.util.Objects;

/**
 * The invitation elector's messages. Every message carries its sender, a group number and a message id that
 * the sender increases by one per message (from a random start per incarnation); receivers drop duplicates by
 * {@code (from, messageId)} and drop a message whose {@code from} is not the peer it came from. Every request
 * has an application-level answer carrying the request's id in {@code inReplyTo}: a TCP write is not delivery.
 */
public sealed interface InvitationMessage extends PeerMessage {
    /** The sender. */
    NodeId from();

    /** The group the message is about; see each message for which group that is. */
    GroupNumber group();

    /** The sender's id for this message, 0 or more. */
    long messageId();

    /** Checks the fields every message's header has but {@code messageId}: the sender and the group. */
    private static void requireHeader(NodeId from, GroupNumber group) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(group, "group");
    }

    /** A coordinator's periodic check: "are you a coordinator?" {@code group} is the asker's group. */
    record AreYouCoordinator(NodeId from, GroupNumber group, long messageId) implements InvitationMessage {
        public AreYouCoordinator {
            requireHeader(from, group);
        }
    }

    /**
     * The answer to {@link AreYouCoordinator}: {@code group} is the responder's current group, {@code
     * coordinator} whether the responder coordinates it in the normal state. A member's "no" to its own
     * coordinator, naming that coordinator's group, also confirms its membership (see {@link
     * InvitationElector}).
     */
    record AreYouCoordinatorAnswer(NodeId from, GroupNumber group, long messageId, long inReplyTo, boolean coordinator)
            implements InvitationMessage {
        public AreYouCoordinatorAnswer {
            requireHeader(from, group);
        }
    }

    /** A member asks its coordinator: "do you still coordinate {@code group}, with me in it?" */
    record AreYouThere(NodeId from, GroupNumber group, long messageId) implements InvitationMessage {
        public AreYouThere {
            requireHeader(from, group);
        }
    }

    /** The answer to {@link AreYouThere} about the same {@code group}. */
    record AreYouThereAnswer(NodeId from, GroupNumber group, long messageId, long inReplyTo, boolean yes)
            implements InvitationMessage {
        public AreYouThereAnswer {
            requireHeader(from, group);
        }
    }

    /**
     * An invitation to join the new group {@code group}, whose coordinator is {@code group.coordinator()}.
     * Sent by that coordinator, or forwarded by an invited coordinator to its old members ({@code from} is then
     * the forwarder).
     */
    record Invitation(NodeId from, GroupNumber group, long messageId) implements InvitationMessage {
        public Invitation {
            requireHeader(from, group);
        }
    }

    /** The answer to {@link Invitation}, sent to {@code group.coordinator()}: the sender joins {@code group}. */
    record Accept(NodeId from, GroupNumber group, long messageId, long inReplyTo) implements InvitationMessage {
        public Accept {
            requireHeader(from, group);
        }
    }

    /** The coordinator of {@code group} closes the merge: these are the members, sorted, coordinator included. */
    record Ready(NodeId from, GroupNumber group, long messageId, List<NodeId> members) implements InvitationMessage {
        public Ready {
            requireHeader(from, group);
            members = List.copyOf(members);
        }
    }

    /** The answer to {@link Ready}: the sender is a member of {@code group} in the normal state. */
    record ReadyAck(NodeId from, GroupNumber group, long messageId, long inReplyTo) implements InvitationMessage {
        public ReadyAck {
            requireHeader(from, group);
        }
    }
}
