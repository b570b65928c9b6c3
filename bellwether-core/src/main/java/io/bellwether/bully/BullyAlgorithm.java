package io.bellwether.bully;

import io.bellwether.elector.AbstractAlgorithm;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bully algorithm ({@code algorithm: bully}) as the registry sees it: its {@code bully:} section, built
 * through {@link BullyConfig.Builder}, and its two runs, {@code bully} and {@code bully-strict} (the strict
 * procedure: Halt, NewCoordinator, Ready).
 */
public final class BullyAlgorithm extends AbstractAlgorithm<BullyConfig.Builder, BullyConfig> {
    private static final Duration MINUTE = Duration.ofSeconds(60);
    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

    private static final List<Setting<BullyConfig.Builder>> SETTINGS = List.of(
            Setting.duration(
                    "message-time",
                    Duration.ofMillis(1),
                    MINUTE,
                    "Tm, the longest one-way trip of a message, transport included. Default 10ms.",
                    BullyConfig.Builder::messageTime),
            Setting.duration(
                    "processing-time",
                    Duration.ZERO,
                    MINUTE,
                    "Tp, the longest time a member takes to handle a message; an election waits 2·Tm + Tp for an"
                            + " answer. Default 5ms.",
                    BullyConfig.Builder::processingTime),
            Setting.duration(
                    "coordinator-timeout",
                    Duration.ofMillis(1),
                    TEN_MINUTES,
                    "How long a member that got an OK waits for the coordinator's announcement; at least twice"
                            + " 2·message-time + processing-time. Default 75ms.",
                    BullyConfig.Builder::coordinatorTimeout),
            Setting.duration(
                    "heartbeat-interval",
                    Duration.ofMillis(1),
                    MINUTE,
                    "How often the coordinator heartbeats its followers. Default 50ms.",
                    BullyConfig.Builder::heartbeatInterval),
            Setting.integer(
                    "missed-heartbeats",
                    "a whole number from 2 to 100",
                    "How many heartbeat intervals a follower waits before it starts an election. Default 3.",
                    BullyConfig.Builder::missedHeartbeats),
            Setting.flag(
                    "preemption",
                    "Whether a member higher than the coordinator takes over after the hold-down. Default true.",
                    BullyConfig.Builder::preemption),
            Setting.duration(
                    "preemption-hold-down",
                    Duration.ZERO,
                    TEN_MINUTES,
                    "How long after its start a member follows a lower coordinator before pre-empting it."
                            + " Default 1s.",
                    BullyConfig.Builder::preemptionHoldDown),
            Setting.flag(
                    "strict",
                    "Whether elections follow the strict procedure (Halt, NewCoordinator, Ready), so that a"
                            + " reachable old coordinator stops acting before the new one starts; every member of a"
                            + " group must use the same mode. Default false.",
                    BullyConfig.Builder::strict));

    private static final Set<Trait> TRAITS =
            Set.of(Trait.SPLITS_UNDER_PARTITION, Trait.HIGHEST_ID_WINS, Trait.PEER_MESSAGES);

    private static final List<Variant> VARIANTS = List.of(
            Variant.defaults("bully", TRAITS),
            new Variant("bully-strict", Map.of("strict", true), TRAITS, List.of("strict-bully")));

    /** The one instance {@link io.bellwether.elector.Algorithms} lists (declared after the tables its constructor reads). */
    public static final BullyAlgorithm INSTANCE = new BullyAlgorithm();

    private BullyAlgorithm() {
        super(
                "bully",
                "Garcia-Molina's bully algorithm over peer messages: the highest live id leads, one coordinator per"
                        + " side of a partition.",
                SETTINGS,
                VARIANTS,
                environment -> BullyConfig.builder(),
                BullyConfig.Builder::build);
    }

    /** The coordinator's heartbeats and their acknowledgements. */
    @Override
    public boolean isKeepAlive(ElectorMessage message) {
        return message instanceof BullyMessage.Heartbeat || message instanceof BullyMessage.HeartbeatAck;
    }

    /** Epochs pack {@code (counter, rank)}, see {@link io.bellwether.elector.RankedEpoch}. */
    @Override
    public int epochRankBits() {
        return Counters.EPOCH_RANK_BITS;
    }
}
