package io.bellwether.testkit.toy;

import io.bellwether.elector.AbstractAlgorithm;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The toy algorithm's descriptor ({@code algorithm: toy}): what a plug-in algorithm provides, and all it provides.
 * Its runs are {@code toy} (the lowest live id leads) and {@code toy-highest} ({@code highest-wins: true}). Its
 * traits claim only that members exchange messages: it guarantees no exclusive leadership and does not keep one
 * leader per side of a partition apart (two sides may elect at the same epoch), so the simulator checks it for
 * epochs that only increase and for one known leader after the faults stop; it passes those under crashes, stops,
 * resets, duplication and clock drift, and fails them under partitions.
 *
 * <p>Public with a public no-argument constructor, as {@link java.util.ServiceLoader} needs.
 */
public final class ToyAlgorithm extends AbstractAlgorithm<ToyConfig.Builder, ToyConfig> {
    /** Its name in configuration files and on the command line. */
    public static final String NAME = "toy";

    private static final List<Setting<ToyConfig.Builder>> SETTINGS = List.of(
            Setting.duration(
                    "ping-interval",
                    ToyConfig.MIN_PING_INTERVAL,
                    ToyConfig.MAX_PING_INTERVAL,
                    "How often every member pings every other one; a member not heard from for four intervals is"
                            + " taken for dead. Default 50ms.",
                    ToyConfig.Builder::pingInterval),
            Setting.flag(
                    "highest-wins",
                    "Whether the highest live id leads instead of the lowest. Default false.",
                    ToyConfig.Builder::highestWins));

    /** The instance the tests share; {@link java.util.ServiceLoader} makes its own. */
    public static final ToyAlgorithm INSTANCE = new ToyAlgorithm();

    /** For {@link java.util.ServiceLoader}. */
    public ToyAlgorithm() {
        super(
                NAME,
                "A test and example algorithm, not for production: the lowest id heard from recently leads.",
                SETTINGS,
                List.of(
                        Variant.defaults(NAME, Set.of(Trait.PEER_MESSAGES)),
                        new Variant(
                                NAME + "-highest",
                                Map.of("highest-wins", true),
                                Set.of(Trait.PEER_MESSAGES, Trait.HIGHEST_ID_WINS),
                                List.of())),
                environment -> ToyConfig.builder(),
                ToyConfig.Builder::build);
    }

    /** Every toy message is a ping, which flows whether or not the leadership changes. */
    @Override
    public boolean isKeepAlive(ElectorMessage message) {
        return message instanceof ToyMessage.Ping;
    }
}
