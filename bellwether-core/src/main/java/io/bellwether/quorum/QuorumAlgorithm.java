package io.bellwether.quorum;

import io.bellwether.elector.AbstractAlgorithm;
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
public final class QuorumAlgorithm extends AbstractAlgorithm<QuorumAlgorithm.Draft, QuorumConfig> {
    private static final Duration MINUTE = Duration.ofSeconds(60);

    private static final List<Setting<Draft>> SETTINGS = List.of(
            Setting.duration(
                    "heartbeat-interval",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How often the leader sends heartbeats. Default 100ms.",
                    (d, v) -> d.builder.heartbeatInterval(v)),
            Setting.integer(
                    "missed-heartbeats",
                    "a whole number from 2 to 100",
                    "How many heartbeat intervals a follower waits without one before declaring the leader lost;"
                            + " heartbeat-interval × missed-heartbeats is the election timeout. Default 4.",
                    (d, v) -> d.builder.missedHeartbeats(v)),
            Setting.duration(
                    "backoff-min",
                    Duration.ZERO,
                    MINUTE,
                    "The shortest wait before scouting; at most backoff-max. Default 10ms.",
                    (d, v) -> d.backoffMin = checkedBackoff(v, v)),
            Setting.duration(
                    "backoff-max",
                    Duration.ZERO,
                    MINUTE,
                    "The longest wait before scouting. Default 100ms.",
                    (d, v) -> d.backoffMax = checkedBackoff(Duration.ZERO, v)),
            Setting.duration(
                    "scouting-timeout",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How long a scouting round waits for a majority. Default 100ms.",
                    (d, v) -> d.builder.scoutingTimeout(v)),
            Setting.duration(
                    "proposal-timeout",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How long an election proposal waits for a majority. Default 200ms.",
                    (d, v) -> d.builder.proposalTimeout(v)),
            Setting.decimal(
                    "max-clock-drift",
                    "a number from 0 to 0.1",
                    "The largest rate error assumed between two members' monotonic clocks, as a fraction."
                            + " Default 0.01.",
                    (d, v) -> d.builder.maxClockDrift(v)),
            Setting.duration(
                    "validity-margin",
                    Duration.ZERO,
                    MINUTE,
                    "Subtracted from a leader's validity to absorb drift beyond the bound and scheduling delays."
                            + " Default 20ms.",
                    (d, v) -> d.builder.validityMargin(v)),
            Setting.duration(
                    "step-down-hold-down",
                    Duration.ZERO,
                    Duration.ofMinutes(10),
                    "How long a leader that lost its quorum does not campaign. Default 400ms.",
                    (d, v) -> d.builder.stepDownHoldDown(v)),
            Setting.flag(
                    "standby",
                    "Whether the leader keeps a standby successor that gathers pledged votes, so that a graceful"
                            + " stop hands over with one message. Default true.",
                    (d, v) -> d.builder.standby(v)));

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
                environment -> new Draft(),
                Draft::build);
    }

    /**
     * The builder takes both backoff bounds at once (it checks min ≤ max); the descriptor collects them and hands
     * them over together at the end.
     */
    static final class Draft {
        final QuorumConfig.Builder builder = QuorumConfig.builder();
        Duration backoffMin;
        Duration backoffMax;

        QuorumConfig build() {
            if (backoffMin != null || backoffMax != null) {
                QuorumConfig defaults = QuorumConfig.defaults();
                builder.backoff(
                        backoffMin != null ? backoffMin : defaults.backoffMin(),
                        backoffMax != null ? backoffMax : defaults.backoffMax());
            }
            return builder.build();
        }
    }

    /**
     * Checks one backoff bound's range with the builder's own check and wording, and returns {@code max}: a lone
     * minimum is checked as {@code (min, min)}, a lone maximum as {@code (0, max)}, so that an error names the bound
     * given.
     */
    private static Duration checkedBackoff(Duration min, Duration max) {
        QuorumConfig.builder().backoff(min, max);
        return max;
    }
}
