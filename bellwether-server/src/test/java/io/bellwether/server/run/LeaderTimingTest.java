package io.bellwether.server.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.bully.BullyConfig;
import io.bellwether.quorum.QuorumConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The rule between {@code --grace} and an algorithm's timing: grace + kill margin ≤ validity − 2 × renewal. */
class LeaderTimingTest {
    private static LeaderTiming quorum(Duration heartbeat, int missed, Duration margin) {
        return LeaderTiming.of(QuorumConfig.builder()
                        .heartbeatInterval(heartbeat)
                        .missedHeartbeats(missed)
                        .validityMargin(margin)
                        .build())
                .orElseThrow();
    }

    @Test
    void quorumDefaultsLeaveAGraceOf126Milliseconds() {
        // validity 400 ms × 0.99 − 20 ms = 376 ms; minus 2 × 100 ms heartbeats, minus the 50 ms kill margin
        LeaderTiming timing = quorum(Duration.ofMillis(100), 4, Duration.ofMillis(20));
        assertThat(timing.maxGrace()).isEqualTo(Duration.ofMillis(126));
        timing.check(Duration.ofMillis(126));
    }

    @Test
    void aGraceThatDoesNotFitIsRefusedNamingTheGraceTheAlgorithmsKeysAndTheAllowedRange() {
        LeaderTiming timing = quorum(Duration.ofMillis(100), 4, Duration.ofMillis(20));
        assertThatThrownBy(() -> timing.check(Duration.ofMillis(127)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--grace = 127ms")
                .hasMessageContaining("quorum.heartbeat-interval")
                .hasMessageContaining("quorum.missed-heartbeats")
                .hasMessageContaining("allowed --grace 0ms – 126ms");
    }

    @Test
    void aSlowStoppingProgramGetsItsGraceFromLongerHeartbeatTimings() {
        // 1 s × 10 (with the validity margin that drift over 10 s needs): validity 9.9 s − 100 ms; minus 2 s and
        // the kill margin
        LeaderTiming timing = quorum(Duration.ofSeconds(1), 10, Duration.ofMillis(100));
        timing.check(Duration.ofSeconds(5));
        assertThat(timing.maxGrace()).isEqualTo(Duration.ofMillis(7750));
    }

    @Test
    void bullyDefaultsLeaveNoGraceButZero() {
        LeaderTiming timing = LeaderTiming.of(BullyConfig.builder().build()).orElseThrow();
        timing.check(Duration.ZERO);
        assertThatThrownBy(() -> timing.check(Duration.ofMillis(1)))
                .hasMessageContaining("bully.heartbeat-interval")
                .hasMessageContaining("allowed --grace 0ms – 0ms");
    }
}
