package io.bellwether.invitation;

import io.bellwether.elector.AbstractAlgorithm;
import io.bellwether.elector.Priorities;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The invitation algorithm ({@code algorithm: invitation}) as the registry sees it: its {@code invitation:}
 * section, built through {@link InvitationConfig.Builder}, and its two runs: {@code invitation}, the classic
 * algorithm with one coordinator per side of a partition, and {@code invitation-gated}, with the majority gate on,
 * which never has two acting coordinators.
 */
public final class InvitationAlgorithm extends AbstractAlgorithm<InvitationConfig.Builder, InvitationConfig> {
    /** Epochs are {@code counter × 2^16 + rank} (see {@link InvitationElector}). */
    private static final int RANK_BITS = 16;

    private static final Duration MS = Duration.ofMillis(1);
    private static final Duration MINUTE = Duration.ofSeconds(60);

    private static final List<Setting<InvitationConfig.Builder>> SETTINGS = List.of(
            Setting.duration(
                    "check-interval",
                    MS,
                    MINUTE,
                    "How often a coordinator asks every other member whether it is a coordinator. Default 200ms.",
                    InvitationConfig.Builder::checkInterval),
            Setting.duration(
                    "answer-timeout",
                    MS,
                    MINUTE,
                    "How long a check waits for answers before deciding whether to merge; below check-interval."
                            + " Default 50ms.",
                    InvitationConfig.Builder::answerTimeout),
            Setting.duration(
                    "merge-delay",
                    Duration.ZERO,
                    MINUTE,
                    "The priority delay per rank before a coordinator that found others merges. Default 300ms.",
                    InvitationConfig.Builder::mergeDelay),
            Setting.duration(
                    "are-you-there-interval",
                    MS,
                    MINUTE,
                    "How often members ask their coordinator whether it is there. Default 100ms.",
                    InvitationConfig.Builder::areYouThereInterval),
            Setting.duration(
                    "are-you-there-timeout",
                    MS,
                    MINUTE,
                    "How long a member waits for its coordinator's answer before forming a group of one."
                            + " Default 100ms.",
                    InvitationConfig.Builder::areYouThereTimeout),
            Setting.duration(
                    "invitation-timeout",
                    MS,
                    MINUTE,
                    "How long a merging coordinator waits for Accepts. Default 100ms.",
                    InvitationConfig.Builder::invitationTimeout),
            Setting.duration(
                    "ready-timeout",
                    MS,
                    MINUTE,
                    "How long an invitee waits for Ready after its Accept; above invitation-timeout."
                            + " Default 200ms.",
                    InvitationConfig.Builder::readyTimeout),
            Setting.duration(
                    "lease",
                    MS,
                    Duration.ofMinutes(10),
                    "How long a member's confirmation binds it, and so how long a coordinator may act on it."
                            + " Default 600ms.",
                    InvitationConfig.Builder::lease),
            Setting.decimal(
                    "max-clock-drift",
                    "a number from 0 to 0.1",
                    "The largest rate error assumed between two members' monotonic clocks, as a fraction."
                            + " Default 0.01.",
                    InvitationConfig.Builder::maxClockDrift),
            Setting.duration(
                    "validity-margin",
                    Duration.ZERO,
                    MINUTE,
                    "Subtracted from a coordinator's validity to absorb drift beyond the bound and scheduling"
                            + " delays. Default 20ms.",
                    InvitationConfig.Builder::validityMargin),
            Setting.flag(
                    "majority-gate",
                    "Whether a coordinator acts only while a majority of the configured members confirm its"
                            + " group, so that two coordinators never act at once. Default false.",
                    InvitationConfig.Builder::majorityGate),
            Priorities.unsupported(
                    "invitation",
                    "groups merge under the coordinator whose invitation is accepted first, whatever its rank, so no"
                            + " member can be preferred; use bully (priorities) or quorum (priority)"));

    private static final List<Variant> VARIANTS = List.of(
            new Variant(
                    "invitation",
                    Map.of(),
                    Set.of(Trait.SPLITS_UNDER_PARTITION, Trait.PEER_MESSAGES),
                    List.of("invitation")),
            new Variant(
                    "invitation-gated",
                    Map.of("majority-gate", true),
                    Set.of(Trait.EXCLUSIVE, Trait.PEER_MESSAGES),
                    List.of("invitation")));

    /** The one instance {@link io.bellwether.elector.Algorithms} lists (declared after the tables its constructor reads). */
    public static final InvitationAlgorithm INSTANCE = new InvitationAlgorithm();

    private InvitationAlgorithm() {
        super(
                "invitation",
                "Garcia-Molina's invitation algorithm over peer messages: groups merge under the highest-priority"
                        + " coordinator; with majority-gate on, never two acting coordinators.",
                SETTINGS,
                VARIANTS,
                // The periodic probes and their answers: members ask their coordinator AreYouThere, coordinators
                // ask everyone AreYouCoordinator. Like heartbeats, they flow whether or not an election is under way.
                Set.of(
                        InvitationMessage.AreYouThere.class,
                        InvitationMessage.AreYouThereAnswer.class,
                        InvitationMessage.AreYouCoordinator.class,
                        InvitationMessage.AreYouCoordinatorAnswer.class),
                environment -> InvitationConfig.builder(),
                InvitationConfig.Builder::build);
    }

    @Override
    public int epochRankBits() {
        return RANK_BITS;
    }

    /** Bodies start with the sender's id (a length byte, then the id), then the plain group counter. */
    @Override
    public CounterField counterField(byte[] body) {
        return new CounterField(1 + (body[0] & 0xFF), 0);
    }
}
