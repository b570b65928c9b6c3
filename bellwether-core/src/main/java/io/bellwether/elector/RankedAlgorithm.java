package io.bellwether.elector;

import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The descriptor of a ranked election ({@link RankedConfig}: the highest live id leads, a coordinator heartbeats
 * its followers): its epochs pack {@code (counter, rank)} ({@link RankedEpoch}), and its keep-alive messages are
 * the coordinator's heartbeats and their acknowledgements.
 *
 * @param <B> the configuration builder
 * @param <S> the configuration it builds
 */
public abstract class RankedAlgorithm<B extends RankedConfig.Builder<B>, S extends RankedConfig>
        extends AbstractAlgorithm<B, S> {
    /**
     * @param heartbeat the coordinator's heartbeat message
     * @param heartbeatAck a follower's acknowledgement of it
     * @param builder a fresh builder with the defaults (a ranked election needs nothing from the environment)
     * @see AbstractAlgorithm the other parameters
     */
    protected RankedAlgorithm(
            String name,
            String summary,
            List<Setting<B>> settings,
            List<Variant> variants,
            Class<? extends ElectorMessage> heartbeat,
            Class<? extends ElectorMessage> heartbeatAck,
            Supplier<B> builder,
            Function<B, S> build) {
        super(name, summary, settings, variants, Set.of(heartbeat, heartbeatAck), environment -> builder.get(), build);
    }

    /** Epochs pack {@code (counter, rank)}, see {@link RankedEpoch}. */
    @Override
    public final int epochRankBits() {
        return Counters.EPOCH_RANK_BITS;
    }
}
