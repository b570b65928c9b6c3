package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorSpec;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An {@link ElectorSpec} that wraps another (a test double, an instrumented elector). The simulator looks
 * through it to find the wrapped algorithm's timings, which its timing checkers need.
 */
public interface DelegatingSpec extends ElectorSpec {
    /** The wrapped spec. */
    ElectorSpec delegate();

    @Override
    default String algorithm() {
        return delegate().algorithm();
    }

    @Override
    default boolean highestIdLeads() {
        return delegate().highestIdLeads();
    }

    @Override
    default Optional<Duration> resignHoldOff() {
        return delegate().resignHoldOff();
    }

    @Override
    default int priority() {
        return delegate().priority();
    }

    /**
     * A spec that creates electors with {@code create}, given the spec with this node's priority, while the
     * simulator still sees {@code real}'s timings: a double that runs with per-node priorities.
     */
    static DelegatingSpec wrappingEach(ElectorSpec real, BiFunction<ElectorSpec, ElectorContext, Elector> create) {
        return new DelegatingSpec() {
            @Override
            public ElectorSpec delegate() {
                return real;
            }

            @Override
            public Elector create(ElectorContext context) {
                return create.apply(real, context);
            }

            @Override
            public ElectorSpec withPriority(int priority) {
                return wrappingEach(real.withPriority(priority), create);
            }

            @Override
            public ElectorSpec withPriorities(Map<NodeId, Integer> all, NodeId self) {
                return wrappingEach(real.withPriorities(all, self), create);
            }
        };
    }

    /** A spec that creates electors with {@code create} while the simulator still sees {@code real}'s timings. */
    static DelegatingSpec wrapping(ElectorSpec real, Function<ElectorContext, Elector> create) {
        return new DelegatingSpec() {
            @Override
            public ElectorSpec delegate() {
                return real;
            }

            @Override
            public Elector create(ElectorContext context) {
                return create.apply(context);
            }
        };
    }
}
