package io.bellwether.ring;

import io.bellwether.elector.Priorities;
import io.bellwether.elector.RankedAlgorithm;
import io.bellwether.elector.RankedConfig;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The ring algorithm ({@code algorithm: ring}) as the registry sees it: its {@code ring:} section, built through
 * {@link RingConfig.Builder}.
 */
public final class RingAlgorithm extends RankedAlgorithm<RingConfig.Builder, RingConfig> {
    private static final List<Setting<RingConfig.Builder>> SETTINGS = Stream.of(
                    RankedConfig.<RingConfig.Builder>messageSettings("a hop waits 2·Tm + Tp for its acknowledgement"),
                    List.of(Setting.<RingConfig.Builder>integer(
                            "hop-attempts",
                            "a whole number from 1 to 10",
                            "How often a hop is sent to the same successor before that successor is skipped."
                                    + " Default 2.",
                            RingConfig.Builder::hopAttempts)),
                    RankedConfig.<RingConfig.Builder>heartbeatSettings(),
                    List.of(
                            RankedConfig.<RingConfig.Builder>preemptionHoldDownSetting("starting an election"),
                            Priorities.<RingConfig.Builder>unsupported(
                                    "ring",
                                    "its ELECTION circulates in id order and the coordinator it announces is the"
                                            + " highest id it collected; use bully (priorities) or quorum (priority)")))
            .flatMap(List::stream)
            .toList();

    private static final List<Variant> VARIANTS = List.of(new Variant(
            "ring",
            Map.of(),
            Set.of(Trait.SPLITS_UNDER_PARTITION, Trait.HIGHEST_ID_WINS, Trait.PEER_MESSAGES),
            List.of("ring")));

    /** The one instance {@link io.bellwether.elector.Algorithms} lists (declared after the tables its constructor reads). */
    public static final RingAlgorithm INSTANCE = new RingAlgorithm();

    private RingAlgorithm() {
        super(
                "ring",
                "Chang and Roberts' ring election over peer messages: the highest live id leads, one coordinator per"
                        + " side of a partition.",
                SETTINGS,
                VARIANTS,
                RingMessage.Heartbeat.class,
                RingMessage.HeartbeatAck.class,
                RingConfig::builder,
                RingConfig.Builder::build);
    }
}
