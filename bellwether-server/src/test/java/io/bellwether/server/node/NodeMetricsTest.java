package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.quorum.QuorumCodec;
import org.junit.jupiter.api.Test;

class NodeMetricsTest {
    @Test
    void everyMessageTypeHasItsSeriesBeforeItsFirstMessage() {
        NodeMetrics metrics = new NodeMetrics("c", NodeId.of("n1"), "g");

        metrics.messageTypes(QuorumCodec.INSTANCE.messageTypes());

        String scrape = metrics.scrape();
        for (String type : QuorumCodec.INSTANCE.messageTypes()) {
            for (String direction : new String[] {"in", "out"}) {
                assertThat(scrape)
                        .as("%s %s", direction, type)
                        .containsPattern("bellwether_messages_total\\{[^}]*direction=\"" + direction + "\"[^}]*type=\""
                                + type + "\"[^}]*} 0.0");
            }
        }
    }

    @Test
    void aPreRegisteredSeriesCountsTheMessagesThatFollow() {
        NodeMetrics metrics = new NodeMetrics("c", NodeId.of("n1"), "g");
        metrics.messageTypes(QuorumCodec.INSTANCE.messageTypes());

        metrics.messageSent("LeadershipCession");
        metrics.messageSent("LeadershipCession");
        metrics.messageReceived("ElectionResponse");

        assertThat(metrics.registry()
                        .get("bellwether.messages")
                        .tags("direction", "out", "type", "LeadershipCession")
                        .counter()
                        .count())
                .isEqualTo(2.0);
        assertThat(metrics.registry()
                        .get("bellwether.messages")
                        .tags("direction", "in", "type", "ElectionResponse")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }
}
