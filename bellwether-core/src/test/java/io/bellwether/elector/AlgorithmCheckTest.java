package io.bellwether.elector;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.bully.BullyAlgorithm;
import io.bellwether.lease.LeaseAlgorithm;
import io.bellwether.quorum.QuorumAlgorithm;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Algorithm#check}: one value on its own, by the builder's setter, without relations between keys. */
class AlgorithmCheckTest {
    @Test
    void aValueOutOfRangeIsRefusedNamingItsKey() {
        assertThatThrownBy(() -> BullyAlgorithm.INSTANCE.check("missed-heartbeats", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("missed-heartbeats");
        assertThatCode(() -> BullyAlgorithm.INSTANCE.check("missed-heartbeats", 3))
                .doesNotThrowAnyException();
    }

    @Test
    void aValueOfAnotherKindOrAnUnknownKeyIsRefused() {
        assertThatThrownBy(() -> QuorumAlgorithm.INSTANCE.check("heartbeat-interval", 5))
                .hasMessageStartingWith("heartbeat-interval = '5' is invalid");
        assertThatThrownBy(() -> QuorumAlgorithm.INSTANCE.check("no-such-key", 5))
                .hasMessageStartingWith("no-such-key is unknown");
    }

    @Test
    void aValueIsCheckedWithoutTheOthersItMustAgreeWith() {
        // backoff-min above the default backoff-max is refused only when the spec is built.
        assertThatCode(() -> QuorumAlgorithm.INSTANCE.check("backoff-min", Duration.ofSeconds(5)))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> QuorumAlgorithm.INSTANCE.configure(
                        java.util.Map.of("backoff-min", Duration.ofSeconds(5)), Environment.of("g")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theLeaseAlgorithmChecksItsTimingsWithoutAStore() {
        assertThatThrownBy(() -> LeaseAlgorithm.INSTANCE.check("duration", Duration.ZERO))
                .hasMessageStartingWith("duration");
        assertThatCode(() -> LeaseAlgorithm.INSTANCE.check("duration", Duration.ofSeconds(10)))
                .doesNotThrowAnyException();
    }

    @Test
    void theDefaultCheckKnowsOnlyKindsAndKeys() {
        Algorithm toy = new TestToyAlgorithm();
        assertThatThrownBy(() -> toy.check("anything", 1)).hasMessageStartingWith("anything is unknown");
    }
}
