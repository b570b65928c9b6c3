package io.bellwether.invitation;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.PeerElector;
import io.bellwether.elector.PeerGroup;
import io.bellwether.elector.Quorums;
import io.bellwether.invitation.InvitationElector.Phase;
import io.bellwether.invitation.InvitationElector.Timer;
import io.bellwether.invitation.InvitationMessage.Accept;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinator;
import io.bellwether.invitation.InvitationMessage.AreYouCoordinatorAnswer;
import io.bellwether.invitation.InvitationMessage.Invitation;
import io.bellwether.invitation.InvitationMessage.Ready;
import io.bellwether.invitation.InvitationMessage.ReadyAck;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;

/**
 * The group state of an invitation member and the coordinator's side of the algorithm: Recovery, Check, Merge
 * and the coordinator's validity (the rules are described in {@link InvitationElector}, which adds the member's
 * side: answering checks, Invitation, Ready and AreYouThere, and the dispatch of events). Every state change goes
 * through {@link #enter}. Not thread-safe; driven by one thread.
 */
abstract class InvitationCoordinator extends PeerElector<InvitationMessage> {
    final InvitationConfig config;
    final int majority;
    final GroupValidity validity;

    Phase phase = Phase.DOWN;
    /** Persisted: the highest counter this member created or joined. */
    long storedCounter;
    /** The highest counter seen anywhere (not persisted; never below storedCounter). */
    long highestSeenCounter;

    GroupNumber group;
    /** Members of the current group, sorted; valid in NORMAL. */
    List<NodeId> groupMembers = List.of();

    // Coordinator.
    boolean acting;
    boolean actedInGroup;
    long validUntilNanos = Long.MIN_VALUE;
    /** Per peer: {message id, send time} of the latest AreYouCoordinator sent to it. */
    final Map<NodeId, long[]> pendingChecks = new HashMap<>();
    /** Per member: {message id, send time} of the Ready sent to it. */
    final Map<NodeId, long[]> pendingReadies = new HashMap<>();
    /** When the current group was formed (its Ready sent). */
    long groupSinceNanos;
    /** Coordinators that answered yes to the current round. */
    final Map<NodeId, GroupNumber> foundThisRound = new TreeMap<>();
    /** Coordinators to invite at the pending merge. */
    final Map<NodeId, GroupNumber> mergeCandidates = new TreeMap<>();

    boolean mergePending;
    // Merging coordinator.
    final TreeSet<NodeId> invited = new TreeSet<>();
    final TreeSet<NodeId> accepted = new TreeSet<>();
    boolean invitedCoordinators;

    // Member.
    long areYouThereId = -1;

    /** A member that resigned does not coordinate an acting group before this instant; not persisted. */
    long resignedUntil = Long.MIN_VALUE;
    /**
     * Whether the current group is a resigned member's group of one, which never acts and runs no checks: others
     * invite it into their groups, and it forms an acting group once its hold-off is over if none has.
     */
    boolean passive;

    ElectorState announced = ElectorState.DORMANT;

    InvitationCoordinator(InvitationConfig config, ElectorContext context, Logger log) {
        super(
                context,
                PeerGroup.of(
                        Objects.requireNonNull(context, "context"),
                        InvitationCodec.MAX_MEMBERS,
                        n -> "the invitation elector supports at most " + InvitationCodec.MAX_MEMBERS + " members, got "
                                + n),
                InvitationMessage.class,
                InvitationElector.DEDUP_WINDOW,
                log);
        this.config = Objects.requireNonNull(config, "config");
        this.majority = Quorums.majority(peers.size());
        this.validity = new GroupValidity(config, ctx, peers);
    }

    // ---------------------------------------------------------------- Recovery

    /**
     * Forms a group of one under a new number. During a resignation's hold-off the group is passive: it never acts,
     * runs no checks and so merges nobody; its first check comes when the hold-off is over.
     */
    void recover(ChangeReason why) {
        GroupNumber number = newGroupNumber();
        enter(Phase.NORMAL, number, List.of(self));
        groupSinceNanos = ctx.nanoTime();
        log.debug("{}: formed group of one {} ({})", self, number, why);
        if (ctx.nanoTime() < resignedUntil) {
            passive = true;
            actedInGroup = true; // never acts under this number
            publish(why);
            ctx.schedule(Timer.CHECK, resignedUntil - ctx.nanoTime());
            return;
        }
        publish(why);
        validity.confirmSelf(ctx.nanoTime());
        updateValidity();
        // A random first check, so that members that recover together do not all ask at once.
        ctx.schedule(Timer.CHECK, ctx.random().nextLong(config.checkInterval().toNanos()));
    }

    // ---------------------------------------------------------------- Check

    void onCheckTimer() {
        if (!isNormalCoordinator()) {
            return;
        }
        if (passive) {
            // The hold-off of a resignation is over and no one invited this member: an acting group of one, whose
            // checks merge it with the others as usual (and, by priority, may take the lead back).
            recover(ChangeReason.CAMPAIGNING);
            return;
        }
        long now = ctx.nanoTime();
        if (acting && now >= validUntilNanos) {
            updateValidity(); // lapsed while this member was not scheduled: reorganizes
            return;
        }
        foundThisRound.clear();
        validity.confirmSelf(now);
        ctx.schedule(Timer.CHECK, config.checkInterval().toNanos());
        ctx.schedule(Timer.ANSWERS, config.answerTimeout().toNanos());
        for (NodeId peer : peers.members()) {
            if (!peer.equals(self)) {
                long id = nextId();
                pendingChecks.put(peer, new long[] {id, now});
                ctx.send(peer, new AreYouCoordinator(self, group, id));
            }
        }
        updateValidity();
    }

    void onAreYouCoordinatorAnswer(AreYouCoordinatorAnswer a) {
        if (!isNormalCoordinator()) {
            return;
        }
        long[] pending = pendingChecks.get(a.from());
        if (pending == null || pending[0] != a.inReplyTo()) {
            return; // not the answer to this member's latest question
        }
        if (a.coordinator()) {
            if (!a.group().equals(group)) {
                foundThisRound.put(a.from(), a.group());
            }
        } else if (a.group().equals(group) && groupMembers.contains(a.from())) {
            confirm(a.from(), pending[1]);
        }
    }

    void onAnswersTimer() {
        if (!isNormalCoordinator()) {
            return;
        }
        mergeCandidates.putAll(foundThisRound);
        if (validity.hasSilentMember(groupMembers, groupSinceNanos)) {
            // The list of a group number never changes; a group that lost a member is re-formed, under a new
            // number, from those that still answer.
            mergePending = false;
            merge(ChangeReason.LOST_QUORUM);
            return;
        }
        if (foundThisRound.isEmpty()) {
            return;
        }
        long outranking = foundThisRound.keySet().stream()
                .filter(c -> c.compareTo(self) > 0)
                .count();
        if (outranking == 0) {
            mergePending = false;
            ctx.cancel(Timer.MERGE);
            merge(ChangeReason.CAMPAIGNING);
        } else if (!mergePending) {
            // Higher-priority coordinators get at least one full check cycle to invite this one first.
            mergePending = true;
            ctx.schedule(Timer.MERGE, config.mergeDelay().toNanos() * outranking);
        }
    }

    // ---------------------------------------------------------------- Merge

    void merge(ChangeReason why) {
        List<NodeId> oldMembers = phase == Phase.NORMAL && group.coordinator().equals(self) ? groupMembers : List.of();
        GroupNumber number = newGroupNumber();
        TreeSet<NodeId> toInvite = new TreeSet<>(mergeCandidates.keySet());
        toInvite.addAll(oldMembers);
        toInvite.remove(self);
        boolean coordinatorsInvited = !mergeCandidates.isEmpty();
        enter(Phase.ELECTION, number, List.of(self));
        invited.addAll(toInvite);
        accepted.add(self);
        invitedCoordinators = coordinatorsInvited;
        log.debug("{}: merging into {}: inviting {} ({})", self, number, toInvite, why);
        publish(why); // revokes any leadership before an invitation leaves
        if (toInvite.isEmpty()) {
            finishMerge();
            return;
        }
        ctx.schedule(Timer.ACCEPTS, config.invitationTimeout().toNanos());
        for (NodeId peer : toInvite) {
            ctx.send(peer, new Invitation(self, number, nextId()));
        }
    }

    void onAccept(Accept a) {
        if (phase != Phase.ELECTION || !a.group().equals(group)) {
            log.debug("{}: dropping stale {} (phase {}, group {})", self, a, phase, group);
            return;
        }
        accepted.add(a.from());
        // Invited coordinators forward to members nobody here knows of: then wait for the full timeout.
        if (!invitedCoordinators && accepted.containsAll(invited)) {
            ctx.cancel(Timer.ACCEPTS);
            finishMerge();
        }
    }

    void finishMerge() {
        enter(Phase.NORMAL, group, List.copyOf(accepted));
        groupSinceNanos = ctx.nanoTime();
        long now = ctx.nanoTime();
        validity.confirmSelf(now);
        log.debug("{}: group {} ready with members {}", self, group, groupMembers);
        ctx.schedule(Timer.CHECK, config.checkInterval().toNanos());
        updateValidity(); // without the gate: LEADER at once
        publish(ChangeReason.ELECTED); // with the gate: FOLLOWER until a majority has confirmed
        for (NodeId member : groupMembers) {
            if (!member.equals(self)) {
                long id = nextId();
                pendingReadies.put(member, new long[] {id, now});
                ctx.send(member, new Ready(self, group, id, groupMembers));
            }
        }
    }

    void onReadyAck(ReadyAck a) {
        if (!isNormalCoordinator() || !a.group().equals(group)) {
            return;
        }
        long[] pending = pendingReadies.get(a.from());
        if (pending != null && pending[0] == a.inReplyTo()) {
            confirm(a.from(), pending[1]);
        }
    }

    // ---------------------------------------------------------------- validity

    void confirm(NodeId member, long roundSentNanos) {
        validity.confirm(member, roundSentNanos);
        updateValidity();
    }

    /**
     * Recomputes how long this coordinator may act, starts acting when it first may in this group, and
     * reorganizes under a new number when an acting coordinator's validity has lapsed.
     */
    void updateValidity() {
        if (!isNormalCoordinator()) {
            return;
        }
        long now = ctx.nanoTime();
        long next = validity.validUntil();
        if (acting) {
            if (now >= next) {
                log.debug("{}: validity of group {} lapsed at {}; reorganizing", self, group, validUntilNanos);
                merge(ChangeReason.LOST_QUORUM);
                return;
            }
            if (next != validUntilNanos) {
                validUntilNanos = next;
                ctx.validUntil(next);
            }
            ctx.schedule(Timer.VALIDITY, next - now);
        } else if (!actedInGroup && next != Long.MIN_VALUE && now < next) {
            acting = true;
            actedInGroup = true;
            validUntilNanos = next;
            ctx.validUntil(next);
            publish(ChangeReason.ELECTED);
            ctx.schedule(Timer.VALIDITY, next - now);
        }
    }

    // ---------------------------------------------------------------- state

    GroupNumber newGroupNumber() {
        long counter = Math.max(storedCounter, highestSeenCounter) + 1;
        // Durable before the number is announced or sent; if this throws, nothing in memory has changed.
        ctx.persist(ctx.storedState().with(InvitationElector.COUNTER_KEY, counter));
        storedCounter = counter;
        highestSeenCounter = counter;
        return new GroupNumber(counter, self);
    }

    /**
     * The one transition between states: cancels every timer (each belongs to the state that armed it) and
     * forgets the coordinator's bookkeeping of the group it leaves. Callers arm the new state's timers.
     */
    void enter(Phase next, GroupNumber number, List<NodeId> members) {
        cancelAll(Timer.values());
        resetCoordinatorState();
        phase = next;
        group = number;
        groupMembers = members;
    }

    void resetCoordinatorState() {
        acting = false;
        actedInGroup = false;
        validUntilNanos = Long.MIN_VALUE;
        validity.reset();
        pendingChecks.clear();
        pendingReadies.clear();
        foundThisRound.clear();
        mergeCandidates.clear();
        mergePending = false;
        invited.clear();
        accepted.clear();
        invitedCoordinators = false;
        areYouThereId = -1;
        passive = false;
    }

    boolean isNormalCoordinator() {
        return phase == Phase.NORMAL && group.coordinator().equals(self);
    }

    boolean isNormalMember() {
        return phase == Phase.NORMAL && !group.coordinator().equals(self);
    }

    /** Announces the state that the current fields describe, if it differs from the last announcement. */
    void publish(ChangeReason why) {
        ElectorState next = describe();
        if (!next.equals(announced)) {
            announced = next;
            ctx.announce(next, why);
        }
    }

    ElectorState describe() {
        if (phase == Phase.DOWN) {
            return ElectorState.DORMANT;
        }
        long epoch = InvitationElector.epochOf(group, peers.members());
        NodeId coordinator = group.coordinator();
        return switch (phase) {
            case ELECTION -> new ElectorState(Role.CANDIDATE, epoch, Optional.empty());
            case REORGANIZATION -> new ElectorState(Role.FOLLOWER, epoch, Optional.empty());
            default -> {
                if (acting) {
                    yield new ElectorState(Role.LEADER, epoch, Optional.of(self));
                }
                boolean named =
                        !coordinator.equals(self) && (!config.majorityGate() || groupMembers.size() >= majority);
                yield new ElectorState(Role.FOLLOWER, epoch, named ? Optional.of(coordinator) : Optional.empty());
            }
        };
    }

    @Override
    public ElectorState state() {
        return announced;
    }
}
