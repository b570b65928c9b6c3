package io.bellwether.quorum;

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
 * The quorum algorithm ({@code algorithm: quorum}, the default) as the registry sees it: its {@code quorum:}
 * section, built through {@link QuorumConfig.Builder}.
 */
public final class QuorumAlgorithm extends AbstractAlgorithm<QuorumConfig.Builder, QuorumConfig> {
    private static final Duration MINUTE = Duration.ofSeconds(60);

    private static final List<Setting<QuorumConfig.Builder>> SETTINGS = List.of(
            Setting.duration(
                    "heartbeat-interval",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How often the leader sends heartbeats. Default 100ms.",
                    QuorumConfig.Builder::heartbeatInterval),
            Setting.integer(
                    "missed-heartbeats",
                    "a whole number from 2 to 100",
                    "How many heartbeat intervals a follower waits without one before declaring the leader lost;"
                            + " heartbeat-interval × missed-heartbeats is the election timeout. Default 4.",
                    QuorumConfig.Builder::missedHeartbeats),
            Setting.duration(
                    "backoff-min",
                    Duration.ZERO,
                    MINUTE,
                    "The shortest wait before scouting; at most backoff-max. Default 10ms.",
                    QuorumConfig.Builder::backoffMin),
            Setting.duration(
                    "backoff-max",
                    Duration.ZERO,
                    MINUTE,
                    "The longest wait before scouting. Default 100ms.",
                    QuorumConfig.Builder::backoffMax),
            Setting.duration(
                    "scouting-timeout",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How long a scouting round waits for a majority. Default 100ms.",
                    QuorumConfig.Builder::scoutingTimeout),
            Setting.duration(
                    "proposal-timeout",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How long an election proposal waits for a majority. Default 200ms.",
                    QuorumConfig.Builder::proposalTimeout),
            Setting.decimal(
                    "max-clock-drift",
                    "a number from 0 to 0.1",
                    "The largest rate error assumed between two members' monotonic clocks, as a fraction."
                            + " Default 0.01.",
                    QuorumConfig.Builder::maxClockDrift),
            Setting.duration(
                    "validity-margin",
                    Duration.ZERO,
                    MINUTE,
                    "Subtracted from a leader's validity to absorb drift beyond the bound and scheduling delays."
                            + " Default 20ms.",
                    QuorumConfig.Builder::validityMargin),
            Setting.duration(
                    "step-down-hold-down",
                    Duration.ZERO,
                    Duration.ofMinutes(10),
                    "How long a leader that lost its quorum does not campaign. Default 400ms.",
                    QuorumConfig.Builder::stepDownHoldDown),
            Setting.flag(
                    "standby",
                    "Whether the leader keeps a standby successor that gathers pledged votes, so that a graceful"
                            + " stop hands over with one message. Default true.",
                    QuorumConfig.Builder::standby),
            Setting.integer(
                    Priorities.KEY,
                    Priorities.ALLOWED,
                    "This member's priority as leader, higher preferred: the leader hands over to the connected member"
                            + " of the highest priority above its own (equal priorities never move a leadership)."
                            + " Default 0.",
                    QuorumConfig.Builder::priority),
            Setting.duration(
                    "priority-hold-down",
                    Duration.ZERO,
                    Duration.ofMinutes(10),
                    "How long a member of higher priority than the leader must have confirmed every heartbeat"
                            + " before the leader hands over to it. Default 1000ms.",
                    QuorumConfig.Builder::priorityHoldDown));

    private static final Set<Trait> TRAITS = Set.of(Trait.EXCLUSIVE, Trait.PEER_MESSAGES);

    private static final List<Variant> VARIANTS = List.of(new Variant("quorum", Map.of(), TRAITS, List.of("quorum")));

    /** The one instance {@link io.bellwether.elector.Algorithms} lists (declared after the tables its constructor reads). */
    public static final QuorumAlgorithm INSTANCE = new QuorumAlgorithm();

    private QuorumAlgorithm() {
        super(
                "quorum",
                "Majority votes with leader leases over peer messages: never two valid leaders, a minority side"
                        + " has none; the default.",
                SETTINGS,
                VARIANTS,
                // Heartbeats, their answers and a standby's pledges flow whether or not an election is under way.
                Set.of(
                        QuorumMessage.Heartbeat.class,
                        QuorumMessage.HeartbeatResponse.class,
                        QuorumMessage.StandbyRequest.class,
                        QuorumMessage.StandbyRound.class,
                        QuorumMessage.StandbyConfirm.class,
                        QuorumMessage.StandbyReady.class),
                environment -> QuorumConfig.builder(),
                QuorumConfig.Builder::build);
    }
}
