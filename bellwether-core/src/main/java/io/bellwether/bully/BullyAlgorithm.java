package io.bellwether.bully;

import io.bellwether.elector.Priorities;
import io.bellwether.elector.RankedAlgorithm;
import io.bellwether.elector.RankedConfig;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The bully algorithm ({@code algorithm: bully}) as the registry sees it: its {@code bully:} section, built
 * through {@link BullyConfig.Builder}, and its two runs, {@code bully} and {@code bully-strict} (the strict
 * procedure: Halt, NewCoordinator, Ready).
 */
public final class BullyAlgorithm extends RankedAlgorithm<BullyConfig.Builder, BullyConfig> {
    private static final List<Setting<BullyConfig.Builder>> SETTINGS = Stream.of(
                    RankedConfig.<BullyConfig.Builder>messageSettings("an election waits 2·Tm + Tp for an answer"),
                    List.of(Setting.<BullyConfig.Builder>duration(
                            "coordinator-timeout",
                            Duration.ofMillis(1),
                            Duration.ofMinutes(10),
                            "How long a member that got an OK waits for the coordinator's announcement; at least"
                                    + " twice 2·message-time + processing-time. Default 75ms.",
                            BullyConfig.Builder::coordinatorTimeout)),
                    RankedConfig.<BullyConfig.Builder>heartbeatSettings(),
                    List.of(
                            Setting.<BullyConfig.Builder>flag(
                                    "preemption",
                                    "Whether a member higher than the coordinator takes over after the hold-down."
                                            + " Default true.",
                                    BullyConfig.Builder::preemption),
                            RankedConfig.<BullyConfig.Builder>preemptionHoldDownSetting("pre-empting it"),
                            Setting.<BullyConfig.Builder>flag(
                                    "strict",
                                    "Whether elections follow the strict procedure (Halt, NewCoordinator, Ready), so"
                                            + " that a reachable old coordinator stops acting before the new one"
                                            + " starts; every member of a group must use the same mode. Default"
                                            + " false.",
                                    BullyConfig.Builder::strict),
                            Setting.<BullyConfig.Builder>text(
                                    "priorities",
                                    "member=priority pairs separated by commas (e.g. n1=5,n3=2), each priority "
                                            + Priorities.MIN + " to " + Priorities.MAX,
                                    "The members' priorities, the same at every member: the group is ordered by"
                                            + " (priority, id) instead of id, so the live member of the highest"
                                            + " priority leads (ties: the highest id). Members left out have 0."
                                            + " Default none.",
                                    BullyConfig.Builder::priorities),
                            Priorities.<BullyConfig.Builder>unsupported(
                                    "bully",
                                    "a bully member's rank must be known to every member before they hear from"
                                            + " it, so bully takes the group's priorities in one map; give them as"
                                            + " priorities (e.g. n1=5,n3=2), the same at every member")))
            .flatMap(List::stream)
            .toList();

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
                BullyMessage.Heartbeat.class,
                BullyMessage.HeartbeatAck.class,
                BullyConfig::builder,
                BullyConfig.Builder::build);
    }
}
