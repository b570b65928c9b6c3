package io.bellwether.sim;

import io.bellwether.elector.ElectorSpec;

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
}
