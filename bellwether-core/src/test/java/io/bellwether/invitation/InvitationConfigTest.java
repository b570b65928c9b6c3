package io.bellwether.invitation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class InvitationConfigTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        InvitationConfig c = InvitationConfig.defaults();
        assertThat(c.algorithm()).isEqualTo("invitation");
        assertThat(c.checkInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(c.answerTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.mergeDelay()).isEqualTo(Duration.ofMillis(300));
        assertThat(c.areYouThereInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.areYouThereTimeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.invitationTimeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.readyTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(c.lease()).isEqualTo(Duration.ofMillis(600));
        assertThat(c.maxClockDrift()).isEqualTo(0.01);
        assertThat(c.validityMargin()).isEqualTo(Duration.ofMillis(20));
        assertThat(c.majorityGate()).isFalse();
        assertThat(c.validityNanos()).isEqualTo(574_000_000L);
        assertThat(c.codec()).isSameAs(InvitationCodec.INSTANCE);
    }

    @Test
    void toBuilderKeepsEveryValue() {
        InvitationConfig c = InvitationConfig.builder()
                .majorityGate(true)
                .checkInterval(Duration.ofMillis(300))
                .lease(Duration.ofSeconds(1))
                .build();
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
    }

    @Test
    void outOfRangeValuesNameTheKey() {
        assertThatThrownBy(() -> InvitationConfig.builder().checkInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("check-interval = 0ms")
                .hasMessageContaining("allowed 1ms to 60000ms");
        assertThatThrownBy(() -> InvitationConfig.builder().mergeDelay(Duration.ofMillis(-1)))
                .hasMessageContaining("merge-delay");
        assertThatThrownBy(() -> InvitationConfig.builder().maxClockDrift(0.5))
                .hasMessageContaining("max-clock-drift = 0.5");
        assertThatThrownBy(() -> InvitationConfig.builder().areYouThereTimeout(null))
                .hasMessageContaining("are-you-there-timeout");
    }

    @Test
    void relationsBetweenValuesAreChecked() {
        assertThatThrownBy(() -> InvitationConfig.builder()
                        .answerTimeout(Duration.ofMillis(200))
                        .build())
                .hasMessageContaining("answer-timeout = 200ms")
                .hasMessageContaining("check-interval");
        assertThatThrownBy(() -> InvitationConfig.builder()
                        .readyTimeout(Duration.ofMillis(100))
                        .build())
                .hasMessageContaining("ready-timeout = 100ms")
                .hasMessageContaining("invitation-timeout");
        assertThatThrownBy(() ->
                        InvitationConfig.builder().lease(Duration.ofMillis(250)).build())
                .hasMessageContaining("lease = 250ms is too short");
        assertThatThrownBy(() -> InvitationConfig.builder()
                        .lease(Duration.ofSeconds(60))
                        .validityMargin(Duration.ofMillis(1))
                        .build())
                .hasMessageContaining("validity-margin = 1ms is too small");
    }
}
