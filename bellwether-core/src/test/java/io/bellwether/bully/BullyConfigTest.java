package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.ScriptedContext;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BullyConfigTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        BullyConfig c = BullyConfig.defaults();
        assertThat(c.algorithm()).isEqualTo("bully");
        assertThat(c.answerTimeout()).isEqualTo(Duration.ofMillis(25));
        assertThat(c.coordinatorTimeout()).isEqualTo(Duration.ofMillis(75));
        assertThat(c.leaderTimeout()).isEqualTo(Duration.ofMillis(150));
        assertThat(c.preemption()).isTrue();
        assertThat(c.preemptionHoldDown()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.strict()).isFalse();
        assertThat(c.codec()).isSameAs(BullyCodec.INSTANCE);
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
    }

    @Test
    void strictSelectsTheStrictElectorWithTheSameNameCodecAndTimings() {
        BullyConfig strict = BullyConfig.defaults().toBuilder().strict(true).build();
        ScriptedContext ctx = new ScriptedContext(NodeId.of("n1"), List.of(NodeId.of("n1"), NodeId.of("n2")), 1);

        assertThat(strict.strict()).isTrue();
        assertThat(strict.create(ctx)).isInstanceOf(StrictBullyElector.class);
        assertThat(BullyConfig.defaults().create(ctx)).isInstanceOf(BullyElector.class);
        assertThat(strict.algorithm()).isEqualTo("bully");
        assertThat(strict.codec()).isSameAs(BullyCodec.INSTANCE);
        assertThat(strict.toString()).endsWith("strict=true}");
        assertThat(strict.toBuilder().build().toString()).isEqualTo(strict.toString());
    }

    @Test
    void coordinatorTimeoutShorterThanTwoAnswerTimeoutsIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> BullyConfig.builder()
                        .coordinatorTimeout(Duration.ofMillis(40))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("coordinator-timeout = 40ms")
                .hasMessageContaining("50ms");
    }

    @Test
    void outOfRangeValuesAreRefusedNamingKeyValueAndRange() {
        assertThatThrownBy(() -> BullyConfig.builder().messageTime(Duration.ZERO))
                .hasMessageContaining("message-time = 0ms is out of range");
        assertThatThrownBy(() -> BullyConfig.builder().missedHeartbeats(1))
                .hasMessageContaining("missed-heartbeats = 1 is out of range: allowed 2 to 100");
        assertThatThrownBy(() -> BullyConfig.builder().preemptionHoldDown(Duration.ofMinutes(11)))
                .hasMessageContaining("preemption-hold-down");
    }

    @Test
    void followerTimeoutShorterThanAHeartbeatPlusAnAnswerIsRefused() {
        assertThatThrownBy(() -> BullyConfig.builder()
                        .messageTime(Duration.ofMillis(100))
                        .coordinatorTimeout(Duration.ofMillis(500))
                        .build())
                .hasMessageContaining("heartbeat-interval = 50ms");
    }

    @Test
    void epochsOrderByCounterThenCoordinator() {
        assertThat(RankedEpoch.of(2, 0)).isGreaterThan(RankedEpoch.of(1, 1023));
        assertThat(RankedEpoch.of(2, 3)).isGreaterThan(RankedEpoch.of(2, 1));
        assertThat(RankedEpoch.counter(RankedEpoch.of(7, 5))).isEqualTo(7);
        assertThat(RankedEpoch.rank(RankedEpoch.of(7, 5))).isEqualTo(5);
        assertThatThrownBy(() -> RankedEpoch.of(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RankedEpoch.of(1, 1024)).hasMessageContaining("rank 1024");
    }
}
