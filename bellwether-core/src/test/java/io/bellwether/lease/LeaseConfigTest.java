package io.bellwether.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.elector.MessageCodec;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeaseConfigTest {
    private final FakeLeaseStore fake = new FakeLeaseStore();

    @AfterEach
    void shutdown() {
        fake.shutdown();
    }

    private LeaseConfig.Builder builder() {
        return LeaseConfig.builder().store(fake.view(false));
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        LeaseConfig c = builder().build();
        assertThat(c.algorithm()).isEqualTo("lease");
        assertThat(c.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.renewInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.renewDeadline()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.retry()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.maxClockDrift()).isEqualTo(0.01);
        assertThat(c.validityMargin()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.validityNanos(c.duration())).isEqualTo(2_870_000_000L);
        assertThat(c.codec()).isSameAs(MessageCodec.NONE);
        assertThat(c.storeClient("jobs")).isInstanceOf(LeaseStoreClient.class);
    }

    @Test
    void derivedDefaultsScaleWithTheDuration() {
        LeaseConfig c = builder().duration(Duration.ofMillis(600)).build();
        assertThat(c.renewInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(c.renewDeadline()).isEqualTo(Duration.ofMillis(400));
        assertThat(c.retry()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.validityMargin()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void holderIdsAreNodeIdPlusAProcessWideSuffix() {
        LeaseConfig c = builder().build();
        LeaseConfig other = builder().build();
        assertThat(c.holderSuffix()).matches("[0-9a-f]{8}").isEqualTo(other.holderSuffix());
        assertThat(c.holderId(NodeId.of("n1"))).isEqualTo("n1-" + c.holderSuffix());
        assertThat(builder().holderSuffix("x1").build().holderId(NodeId.of("n1")))
                .isEqualTo("n1-x1");
        assertThat(LeaseElector.nodeOf("n1-x1")).isEqualTo(NodeId.of("n1"));
        assertThat(LeaseElector.nodeOf("node-a-0badcafe")).isEqualTo(NodeId.of("node-a"));
        assertThat(LeaseElector.nodeOf("host name!")).isEqualTo(NodeId.of("host_name_"));
    }

    @Test
    void missingStoreIsNamed() {
        assertThatThrownBy(() -> LeaseConfig.builder().build()).hasMessageContaining("store");
    }

    @Test
    void renewIntervalMustBeBelowTheRenewDeadline() {
        assertThatThrownBy(() -> builder()
                        .renewInterval(Duration.ofSeconds(2))
                        .renewDeadline(Duration.ofSeconds(2))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renew-interval = 2000ms")
                .hasMessageContaining("renew-deadline");
    }

    @Test
    void renewDeadlineMustEndBeforeTheValidity() {
        assertThatThrownBy(
                        () -> builder().renewDeadline(Duration.ofMillis(2900)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renew-deadline = 2900ms")
                .hasMessageContaining("2870.0ms");
    }

    @Test
    void outOfRangeValuesNameTheKey() {
        assertThatThrownBy(() -> builder().duration(Duration.ofMillis(5))).hasMessageContaining("duration = 5ms");
        assertThatThrownBy(() -> builder().maxClockDrift(0.5)).hasMessageContaining("max-clock-drift = 0.5");
        assertThatThrownBy(() -> builder().retry(Duration.ZERO)).hasMessageContaining("retry = 0ms");
        assertThatThrownBy(() -> builder().requestTimeout(Duration.ofSeconds(4)).build())
                .hasMessageContaining("request-timeout = 4000ms");
        assertThatThrownBy(() -> builder().validityMargin(Duration.ofSeconds(3)).build())
                .hasMessageContaining("validity-margin = 3000ms");
        assertThatThrownBy(() -> builder().holderSuffix("a-b")).hasMessageContaining("holder-suffix = 'a-b'");
    }
}
