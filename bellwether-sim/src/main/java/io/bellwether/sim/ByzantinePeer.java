package io.bellwether.sim;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.MessageCodec;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The {@link FaultKind#BYZANTINE_LITE} fault's frames: one member, besides its honest traffic, sends well-formed
 * frames that carry an extreme value where the algorithm's term, epoch or group counter goes ({@code
 * Long.MAX_VALUE}, {@code Long.MAX_VALUE − 1}, the {@link Counters#LIMIT bound}, the bound + 1, a negative value),
 * as a buggy or corrupted build holding the cluster secret could. Each frame is the encoding of a real message
 * the group sent lately with that one field overwritten, so everything but the value is valid.
 *
 * <p>The receiver decodes it with the algorithm's codec, as the TCP transport does: a refused frame is dropped
 * and counted (history event {@code drop-malformed}) and the connection it came on is reset, as the transport
 * closes it (the refusing end learns first); a frame the codec accepts is delivered to the elector like any message.
 */
final class ByzantinePeer {
    private final Engine e;
    private final Algorithm algorithm;
    private final MessageCodec codec;
    /** Frames refused by the receiver's codec in this run. */
    long malformed;

    ByzantinePeer(Engine engine) {
        this.e = engine;
        this.algorithm = engine.config.descriptor();
        this.codec = codecOf(engine.spec);
    }

    /** The spec's codec, looking through wrappers that do not name one (mutation doubles). */
    static MessageCodec codecOf(ElectorSpec spec) {
        ElectorSpec s = spec;
        while (s.codec() == MessageCodec.NONE && s instanceof DelegatingSpec d) {
            s = d.delegate();
        }
        return s.codec();
    }

    /** The extreme values a frame may carry, in the units of {@code field}. */
    static long[] extremes(Algorithm.CounterField field) {
        // Packed epochs (bully, ring) carry the counter above the rank bits: the bound is the bound's epoch.
        long scale = 1L << field.rankBits();
        return new long[] {
            Long.MAX_VALUE, Long.MAX_VALUE - 1, Counters.LIMIT * scale, (Counters.LIMIT + 1) * scale, -1, Long.MIN_VALUE
        };
    }

    /**
     * Sends one forged frame from {@code from} to {@code to} with a value drawn from {@link #extremes(Algorithm.CounterField)}, built on
     * the last message the group sent (none yet: nothing to forge, nothing sent).
     */
    void send(int from, int to, SplittableRandom rng) {
        ElectorMessage template = e.net.lastSent;
        if (template == null || codec == MessageCodec.NONE) {
            return;
        }
        int type = codec.typeOf(template);
        byte[] body = codec.encode(template);
        Algorithm.CounterField field = algorithm.counterField(body);
        long[] values = extremes(field);
        long value = values[rng.nextInt(values.length)];
        ByteBuffer.wrap(body).putLong(field.offset(), value);
        e.recorder.add(e.now, from, "send-forged", 0, to, template.type() + " with value " + value);
        long arrival = e.now + Network.BASE_LATENCY_MIN + rng.nextLong(Network.BASE_LATENCY_SPREAD + 1);
        long gen = e.net.connGen[from][to];
        e.at(arrival, () -> arrive(from, to, type, body, gen));
    }

    private void arrive(int from, int to, int type, byte[] body, long gen) {
        SimNode node = e.nodes[to];
        if (!node.live() || gen != e.net.connGen[from][to] || e.net.blocked[from][to] > 0) {
            return; // lost with its connection, like any message
        }
        ElectorMessage decoded;
        try {
            decoded = codec.decode(type, body);
        } catch (MalformedMessageException ex) {
            malformed++;
            e.recorder.add(e.now, to, "drop-malformed", node.state.epoch(), from, ex.getMessage());
            // The refusing end closes the connection and knows at once; the sender learns of it after (reset tells its
            // first node first), as with the TCP transport, where the sender learns by the FIN that follows.
            e.net.reset(to, from);
            return;
        }
        e.net.deliverNow(from, to, decoded);
    }
}
