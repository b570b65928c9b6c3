package io.bellwether.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RingConfigTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        RingConfig c = RingConfig.defaults();
        assertThat(c.algorithm()).isEqualTo("ring");
        assertThat(c.hopTimeout()).isEqualTo(Duration.ofMillis(25));
        assertThat(c.hopAttempts()).isEqualTo(2);
        assertThat(c.leaderTimeout()).isEqualTo(Duration.ofMillis(150));
        assertThat(c.preemptionHoldDown()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.electionDeadlineNanos(5)).isEqualTo(21 * 25_000_000L);
        assertThat(c.codec()).isSameAs(RingCodec.INSTANCE);
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
    }

    @Test
    void badValuesAreRefusedNamingKeyValueAndRange() {
        assertThatThrownBy(() -> RingConfig.builder().hopAttempts(0))
                .hasMessageContaining("hop-attempts = 0 is out of range: allowed 1 to 10");
        assertThatThrownBy(() -> RingConfig.builder().heartbeatInterval(Duration.ZERO))
                .hasMessageContaining("heartbeat-interval = 0ms is out of range");
        assertThatThrownBy(() ->
                        RingConfig.builder().messageTime(Duration.ofMillis(200)).build())
                .hasMessageContaining("heartbeat-interval = 50ms with missed-heartbeats = 3");
    }
}
