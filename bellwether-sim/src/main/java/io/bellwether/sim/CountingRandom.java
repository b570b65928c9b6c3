package io.bellwether.sim;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * An elector's seeded random source that counts its draws, so that exhaustive exploration can tell two
 * states apart whose futures differ only in the randomness still to come.
 */
final class CountingRandom implements RandomGenerator {
    private final SplittableRandom delegate;
    long draws;

    CountingRandom(SplittableRandom delegate) {
        this.delegate = delegate;
    }

    @Override
    public long nextLong() {
        draws++;
        return delegate.nextLong();
    }
}
