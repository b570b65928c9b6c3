package io.bellwether.invitation;

import io.bellwether.NodeId;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.TimerKey;
import io.bellwether.invitation.InvitationMessage.Accept;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinator;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinatorAnswer;
import io.bellwether.invitation.InvitationMessage.AreYouThere;
import io.bellwether.invitation.InvitationMessage.AreYouThereAnswer;
import io.bellwether.invitation.InvitationMessage.Invitation;
import io.bellwether.invitation.InvitationMessage.Ready;
import io.bellwether.invitation.InvitationMessage.ReadyAck;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Garcia-Molina's Invitation algorithm ("Elections in a Distributed Computing System", 1982) for an
 * environment where the network partitions: members form groups, each with a coordinator, and groups that
 * can reach each other merge.
 *
 * <p>Rules (the procedure names are the paper's):
 *
 * <ul>
 *   <li><b>Recovery</b>: a member that starts, whose coordinator fails (no answer to {@code AreYouThere}
 *       within the timeout, a "no", or its connection closes), or whose awaited {@code Ready} does not come,
 *       forms a group of one with a new group number and coordinates it.
 *   <li><b>Check</b>: every {@code check-interval} a coordinator sends {@code AreYouCoordinator} to every
 *       other member. If other coordinators answer "yes" it merges after a priority delay: at once if no
 *       coordinator it found has a higher priority (a higher id), else after {@code merge-delay × r}, r being
 *       how many of them outrank it. An invitation received meanwhile cancels the pending merge.
 *   <li><b>Merge</b>: the coordinator stops acting, creates a new group number (persisted first), and sends
 *       {@code Invitation} to the coordinators it found and to its own old members; it collects {@code Accept}s
 *       for that number only (stale ones are dropped) until {@code invitation-timeout} (or, when it invited no
 *       other coordinator, until all invitees accepted), then sends {@code Ready} with the member list.
 *   <li><b>Invitation</b> (accepted only in the normal state, only for a number above the member's current
 *       one): a coordinator stops acting and forwards the invitation to its old members; the member arms its
 *       Ready timer, persists the counter and sends {@code Accept}. {@code Ready} is applied only for the group
 *       the member accepted, from its coordinator; it is acknowledged with {@code ReadyAck}.
 *   <li>Members ask their coordinator {@code AreYouThere} every {@code are-you-there-interval}.
 *   <li><b>Priority</b> (added to the paper so that the highest-priority member that can be reached ends up
 *       coordinating, as in Bully): nobody joins a group whose coordinator has a lower id. A coordinator
 *       invited to one merges at once instead, counting the inviter as found; a member whose coordinator
 *       forwards such an invitation forms a group of one, and its first check merges the lower group under it.
 *   <li><b>Lost members</b>: a group's member list never changes under one number. A coordinator that has had
 *       no confirmation from some member for {@code lease} re-forms the group under a new number (a merge
 *       with its old members and any coordinators found), so the list reflects who is reachable.
 * </ul>
 *
 * <p><b>Group numbers.</b> {@code (counter, coordinator)}. The StoredState key {@value #COUNTER_KEY} holds the
 * highest counter this member created or joined, persisted before the number is announced or sent. A new
 * group takes a counter above that and above every counter seen in messages, so a member creates each number
 * at most once, across restarts, and the numbers a member belongs to strictly increase.
 *
 * <p><b>Epoch encoding.</b> {@link ElectorState#epoch()} is {@code counter × 2^16 + rank}, where rank is the
 * coordinator's index in the sorted member list (hence at most 65,536 members and counters below 2^47). The
 * encoding preserves the order of group numbers, so a member's epoch strictly increases with every group it
 * enters.
 *
 * <p><b>Roles.</b> A coordinator that acts is LEADER; a coordinator that does not act (yet, or any more) is
 * FOLLOWER with no leader; members are FOLLOWER naming their coordinator (with the majority gate, only when
 * their group holds a majority); a merging coordinator is CANDIDATE; an invitee awaiting Ready is FOLLOWER
 * with no leader. A coordinator acts at most once per group number: once it stops, it acts again only in a
 * new group, so every leadership has its own epoch.
 *
 * <p><b>Validity.</b> Without the majority gate a coordinator acts from the moment it coordinates, and
 * renews its validity ({@code now + lease × (1 − drift) − margin}) at every check; if the elector was not
 * scheduled in time and the validity lapsed, it reorganizes (merges with its old members) under a new number.
 * With the gate, a member that answers its own coordinator's {@code AreYouCoordinator}, or receives its
 * {@code Ready}, promises to join no other group for {@code lease} on its own clock (a fence; only a newer
 * message from that coordinator, which stops acting before it invites or forwards, lifts it early). The
 * coordinator is valid until the send time of the latest round that members forming a majority of the
 * configured members (itself included) confirmed, plus {@code lease × (1 − drift) − margin}; it does not count
 * itself while it is fenced by another coordinator. Two groups that act at once would need two majorities,
 * which share a member that would have had to break its fence; hence never two acting coordinators.
 *
 * <p>Not thread-safe; driven by one thread (see {@link Elector}).
 */
public final class InvitationElector extends InvitationCoordinator {
    private static final Logger log = LoggerFactory.getLogger(InvitationElector.class);

    /** Key in {@link io.bellwether.elector.StoredState} of the highest group counter created or joined. */
    public static final String COUNTER_KEY = "group-counter";

    /** How many message ids per sender are remembered to drop duplicates. */
    static final int DEDUP_WINDOW = 256;

    enum Timer implements TimerKey {
        /** Coordinator: time for the next AreYouCoordinator round. */
        CHECK,
        /** Coordinator: the answers to the current round are in (or never will be). */
        ANSWERS,
        /** Coordinator: the priority delay before merging is over. */
        MERGE,
        /** Merging coordinator: stop waiting for Accepts. */
        ACCEPTS,
        /** Invitee: the Ready did not come. */
        READY,
        /** Member: time to ask the coordinator AreYouThere. */
        ARE_YOU_THERE,
        /** Member: the coordinator did not answer AreYouThere. */
        ARE_YOU_THERE_TIMEOUT,
        /** Acting coordinator: its validity may have run out. */
        VALIDITY
    }

    /** The paper's states of a member (plus DOWN before start and after stop). */
    public enum Phase {
        DOWN,
        /** In a group: as its coordinator or as a member. */
        NORMAL,
        /** A coordinator merging: invitations out, collecting Accepts. */
        ELECTION,
        /** An invitee that accepted and awaits Ready. */
        REORGANIZATION
    }

    /**
     * What this member knows of its group, for observers and checkers. Within one group number every member
     * in the normal state must report the same coordinator and the same member list.
     *
     * @param number the current group number
     * @param phase the member's state
     * @param members the group's members, sorted, coordinator included; empty unless the phase is NORMAL
     * @param acting whether this member is a coordinator acting as leader
     */
    public record GroupView(GroupNumber number, Phase phase, List<NodeId> members, boolean acting) {
        public GroupView {
            Objects.requireNonNull(number, "number");
            Objects.requireNonNull(phase, "phase");
            members = List.copyOf(members);
        }

        /** The group's coordinator (the id part of its number). */
        public NodeId coordinator() {
            return number.coordinator();
        }
    }

    InvitationElector(InvitationConfig config, ElectorContext context) {
        super(config, context, log);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    protected void restore() {
        storedCounter =
                Counters.checked("stored " + COUNTER_KEY, ctx.storedState().get(COUNTER_KEY, 0));
        highestSeenCounter = storedCounter;
    }

    @Override
    protected void begin() {
        recover(ChangeReason.STARTED);
    }

    @Override
    protected void end() {
        enter(Phase.DOWN, group, groupMembers);
        publish(ChangeReason.STOPPED);
    }

    /**
     * Gives up coordinating and stays a member: a coordinator (acting or not, or merging) forms a passive group of
     * one under a new number, announcing FOLLOWER ({@link ChangeReason#RESIGNED}) before anything leaves. Its old
     * members learn it at their next {@code AreYouThere} (the answer is no) and form groups that merge without it.
     * Until {@code holdOffNanos} have passed it neither acts nor checks nor merges; it answers checks as a
     * coordinator, so others invite it, and it joins the group that invites it whatever the inviter's id (the
     * priority rule is suspended for it). A member in someone else's group only starts its hold-off: should its
     * coordinator fail meanwhile, its group of one is passive too. After the hold-off a member still on its own
     * forms an acting group; one that joined a group stays in it until that group re-forms.
     */
    @Override
    public void resign(long holdOffNanos) {
        if (!running() || phase == Phase.DOWN) {
            return;
        }
        resignedUntil = ctx.nanoTime() + holdOffNanos;
        if (phase == Phase.ELECTION || isNormalCoordinator()) {
            recover(ChangeReason.RESIGNED);
        }
    }

    /** The current group as this member knows it; empty before start and after stop. */
    public Optional<GroupView> group() {
        if (!running() || group == null) {
            return Optional.empty();
        }
        return Optional.of(new GroupView(group, phase, phase == Phase.NORMAL ? groupMembers : List.of(), acting));
    }

    /** The epoch that encodes {@code number} in a group of {@code sortedMembers}: counter × 2^16 + rank. */
    public static long epochOf(GroupNumber number, List<NodeId> sortedMembers) {
        int rank = sortedMembers.indexOf(number.coordinator());
        if (rank < 0) {
            throw new IllegalArgumentException("coordinator " + number.coordinator() + " is not a member");
        }
        return RankedEpoch.pack(number.counter(), rank, InvitationCodec.RANK_BITS);
    }

    // ---------------------------------------------------------------- events

    @Override
    public void onTimer(TimerKey key) {
        if (!running() || !(key instanceof Timer timer)) {
            return;
        }
        switch (timer) {
            case CHECK -> onCheckTimer();
            case ANSWERS -> onAnswersTimer();
            case MERGE -> {
                if (mergePending && isNormalCoordinator()) {
                    mergePending = false;
                    merge(ChangeReason.CAMPAIGNING);
                }
            }
            case ACCEPTS -> {
                if (phase == Phase.ELECTION) {
                    finishMerge();
                }
            }
            case READY -> {
                if (phase == Phase.REORGANIZATION) {
                    recover(ChangeReason.ROUND_FAILED);
                }
            }
            case ARE_YOU_THERE -> {
                if (isNormalMember()) {
                    areYouThereId = nextId();
                    ctx.schedule(
                            Timer.ARE_YOU_THERE_TIMEOUT,
                            config.areYouThereTimeout().toNanos());
                    ctx.send(group.coordinator(), new AreYouThere(self, group, areYouThereId));
                }
            }
            case ARE_YOU_THERE_TIMEOUT -> {
                if (isNormalMember()) {
                    recover(ChangeReason.LEADER_TIMEOUT);
                }
            }
            case VALIDITY -> {
                if (acting) {
                    updateValidity();
                }
            }
        }
    }

    @Override
    protected boolean admissible(NodeId from, InvitationMessage m) {
        if (!m.from().equals(from)) {
            log.debug("{}: ignoring {} from {}: not its sender", self, m, from);
            return false;
        }
        if (!peers.contains(m.group().coordinator()) || m.group().counter() >= GroupNumber.MAX_COUNTER) {
            log.debug("{}: ignoring {} from {}: group number out of range", self, m, from);
            return false;
        }
        return true;
    }

    @Override
    protected void receive(NodeId from, int fromRank, InvitationMessage m) {
        highestSeenCounter = Math.max(highestSeenCounter, m.group().counter());
        if (m instanceof AreYouCoordinator q) {
            onAreYouCoordinator(q);
        } else if (m instanceof AreYouCoordinatorAnswer a) {
            onAreYouCoordinatorAnswer(a);
        } else if (m instanceof AreYouThere q) {
            onAreYouThere(q);
        } else if (m instanceof AreYouThereAnswer a) {
            onAreYouThereAnswer(a);
        } else if (m instanceof Invitation i) {
            onInvitation(i);
        } else if (m instanceof Accept a) {
            onAccept(a);
        } else if (m instanceof Ready r) {
            onReady(r);
        } else if (m instanceof ReadyAck a) {
            onReadyAck(a);
        }
    }

    @Override
    public void onPeerDisconnected(NodeId peer) {
        if (!running() || group == null || peer.equals(self) || !peer.equals(group.coordinator())) {
            return;
        }
        if (isNormalMember() || phase == Phase.REORGANIZATION) {
            recover(ChangeReason.LEADER_DISCONNECTED);
        }
    }

    // ---------------------------------------------------------------- answering checks

    private void onAreYouCoordinator(AreYouCoordinator q) {
        boolean coordinator = isNormalCoordinator();
        if (isNormalMember()
                && q.from().equals(group.coordinator())
                && q.group().equals(group)) {
            // This answer confirms the membership to the coordinator, which may count it towards its validity.
            validity.setFence(q.from(), q.messageId());
        }
        ctx.send(q.from(), new AreYouCoordinatorAnswer(self, group, nextId(), q.messageId(), coordinator));
    }

    // ---------------------------------------------------------------- Invitation (invitee side)

    private void onInvitation(Invitation inv) {
        GroupNumber number = inv.group();
        NodeId from = inv.from();
        if (phase != Phase.NORMAL
                || !number.isAbove(group)
                || number.coordinator().equals(self)) {
            log.debug("{}: ignoring {} in phase {} of group {}", self, inv, phase, group);
            return;
        }
        boolean fromCurrentCoordinator = from.equals(group.coordinator());
        if (!from.equals(number.coordinator()) && !fromCurrentCoordinator) {
            return; // a forward from a coordinator this member no longer follows
        }
        if (number.coordinator().compareTo(self) < 0 && ctx.nanoTime() >= resignedUntil) {
            // Priority: never join a group led by a lower-priority member. A coordinator merges at once, the
            // inviter among those it found (which is merging itself and will accept at its next check); a
            // member breaks away, and its first check finds the lower group and merges it under itself.
            if (isNormalCoordinator()) {
                mergeCandidates.put(number.coordinator(), number);
                merge(ChangeReason.CAMPAIGNING);
            } else if (fromCurrentCoordinator) {
                recover(ChangeReason.LEADER_CEDED);
            }
            return;
        }
        boolean releasedByHolder = validity.releasedBy(from, inv.messageId());
        if (validity.isFenced() && !releasedByHolder) {
            log.debug("{}: ignoring {}: {}", self, inv, validity);
            return;
        }
        if (number.counter() > storedCounter) {
            // Durable before the Accept leaves: a restart must never reuse or fall below this number.
            ctx.persist(ctx.storedState().with(COUNTER_KEY, number.counter()));
            storedCounter = number.counter();
        }
        List<NodeId> forwardTo = group.coordinator().equals(self) ? groupMembers : List.of();
        if (releasedByHolder) {
            validity.clearFence();
        }
        enter(Phase.REORGANIZATION, number, List.of());
        publish(ChangeReason.HIGHER_EPOCH); // revokes any leadership before anything leaves
        // Armed before the Accept leaves, so that a Ready that overtakes our bookkeeping is still awaited.
        ctx.schedule(Timer.READY, config.readyTimeout().toNanos());
        for (NodeId member : forwardTo) {
            if (!member.equals(self) && !member.equals(number.coordinator())) {
                ctx.send(member, new Invitation(self, number, nextId()));
            }
        }
        ctx.send(number.coordinator(), new Accept(self, number, nextId(), inv.messageId()));
    }

    private void onReady(Ready r) {
        if (phase != Phase.REORGANIZATION
                || !r.group().equals(group)
                || !r.from().equals(group.coordinator())
                || !r.members().contains(self)
                || !r.members().stream().allMatch(peers::contains)) {
            log.debug("{}: dropping stale {} (phase {}, group {})", self, r, phase, group);
            return;
        }
        enter(Phase.NORMAL, group, r.members().stream().sorted().distinct().toList());
        validity.setFence(r.from(), r.messageId());
        publish(ChangeReason.LEADER_DISCOVERED);
        ctx.schedule(Timer.ARE_YOU_THERE, config.areYouThereInterval().toNanos());
        ctx.send(r.from(), new ReadyAck(self, group, nextId(), r.messageId()));
    }

    // ---------------------------------------------------------------- AreYouThere

    private void onAreYouThere(AreYouThere q) {
        if (phase != Phase.NORMAL) {
            // Merging or reorganizing: the asker's group is being replaced, and an invitation to the new one is
            // on its way; a "no" now would only make it form a group of one that races that invitation.
            return;
        }
        boolean yes = isNormalCoordinator() && q.group().equals(group) && groupMembers.contains(q.from());
        ctx.send(q.from(), new AreYouThereAnswer(self, q.group(), nextId(), q.messageId(), yes));
    }

    private void onAreYouThereAnswer(AreYouThereAnswer a) {
        if (!isNormalMember()
                || !a.from().equals(group.coordinator())
                || !a.group().equals(group)
                || a.inReplyTo() != areYouThereId) {
            return;
        }
        ctx.cancel(Timer.ARE_YOU_THERE_TIMEOUT);
        if (a.yes()) {
            ctx.schedule(Timer.ARE_YOU_THERE, config.areYouThereInterval().toNanos());
        } else {
            recover(ChangeReason.LEADER_CEDED);
        }
    }

    @Override
    public String toString() {
        return "InvitationElector{" + self + ", " + phase + ", group " + group + ", members " + groupMembers
                + (acting ? ", acting" : "") + "}";
    }
}
