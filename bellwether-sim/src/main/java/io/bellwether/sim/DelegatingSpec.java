package io.bellwether.sim;

import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorSpec;
import java.time.Duration;
import java.util.Optional;
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
