package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.MessageCodec;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.quorum.QuorumElector;
import io.bellwether.quorum.QuorumMessage;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The values-in-range checker can fail: the quorum elector as it was before terms were bounded (a codec that
 * takes any term, an elector that adopts and persists any higher term) is caught by the byzantine-lite fault.
 */
class ByzantineLiteMutationTest {
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();

    /** Decodes what the real codec refuses for its term alone, as a heartbeat of that term. */
    private static final MessageCodec LENIENT = new MessageCodec() {
        @Override
        public List<String> messageTypes() {
            return QuorumCodec.INSTANCE.messageTypes();
        }

        @Override
        public int typeOf(ElectorMessage message) {
            return QuorumCodec.INSTANCE.typeOf(message);
        }

        @Override
        public byte[] encode(ElectorMessage message) {
            return QuorumCodec.INSTANCE.encode(message);
        }

        @Override
        public ElectorMessage decode(int type, byte[] body) {
            try {
                return QuorumCodec.INSTANCE.decode(type, body);
            } catch (MalformedMessageException e) {
                return new QuorumMessage.Heartbeat(ByteBuffer.wrap(body).getLong(0), 1);
            }
        }
    };

    @Test
    void anElectorThatAdoptsAnExtremeTermIsCaught() {
        ElectorSpec unbounded = new DelegatingSpec() {
            @Override
            public ElectorSpec delegate() {
                return CONFIG;
            }

            @Override
            public MessageCodec codec() {
                return LENIENT;
            }

            @Override
            public io.bellwether.elector.Elector create(ElectorContext ctx) {
                QuorumElector real = (QuorumElector) CONFIG.create(ctx);
                return new ForwardingElector(real) {
                    @Override
                    public void onMessage(NodeId from, ElectorMessage message) {
                        // Rule 1 without the bound: any higher term is adopted and made durable.
                        if (message instanceof QuorumMessage q && q.term() > real.term()) {
                            ctx.persist(ctx.storedState().with(QuorumElector.TERM_KEY, q.term()));
                        }
                        inner.onMessage(from, message);
                    }
                };
            }
        };
        SimulationConfig config = new SimulationConfig(
                "quorum",
                unbounded,
                5,
                EnumSet.of(FaultKind.BYZANTINE_LITE),
                SimulationConfig.DEFAULT_FAULT_PHASE,
                SimulationConfig.DEFAULT_QUIET_PHASE);
        RunResult r = Simulator.run(config, 1, false);
        assertThat(r.violations()).hasSize(1);
        Violation v = r.violations().get(0);
        assertThat(v.invariant()).isEqualTo("values-in-range");
        assertThat(v.message())
                .containsPattern(
                        "n\\d persisted term=(9223372036854775807|9223372036854775806|140737488355328|140737488355329)");
        assertThat(v.replayCommand()).contains("--faults byzantine-lite").contains("--seed-start 1");
        assertThat(Simulator.run(config, 1, false).violations()).containsExactly(v);
    }

    @Test
    void theRealElectorUnderTheSameFramesKeepsEveryInvariant() {
        SimulationConfig config = SimulationConfig.forAlgorithm("quorum", 5, EnumSet.of(FaultKind.BYZANTINE_LITE));
        assertThat(Simulator.run(config, 1, false).violations()).isEmpty();
    }
}
