package io.bellwether.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage;
import io.bellwether.quorum.QuorumMessage.ElectionProposal;
import io.bellwether.quorum.QuorumMessage.Heartbeat;
import io.bellwether.quorum.QuorumMessage.LeadershipCession;
import io.bellwether.quorum.QuorumMessage.ScoutingResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import javax.crypto.Mac;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds random and mutated frames straight into a connection's decoder and handshake (no sockets): no
 * exception may escape, nothing may be delivered from an invalid frame, and nothing at all after a refusal.
 * The frame count is {@code -Dbellwether.fuzz.frames} (default 20 000; the {@code long} profile runs a
 * million); the seed is logged and {@code -Dbellwether.fuzz.seed} reruns one.
 */
class FrameFuzzTest {
    private static final Logger log = LoggerFactory.getLogger(FrameFuzzTest.class);
    private static final String CLUSTER = "fuzz";
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final List<ElectorMessage> SAMPLES = List.of(
            new Heartbeat(5, 17),
            new ElectionProposal(3),
            new ScoutingResponse(4, true, 3),
            new LeadershipCession(6, Optional.of(NodeId.of("c"))));

    /** A transport stand-in that records what the connection tells it; it never throws. */
    private static final class FakeHost implements Connection.Host {
        final List<ElectorMessage> delivered = new ArrayList<>();
        final List<String> rejections = new ArrayList<>();
        boolean established;
        private final SplittableRandom random;

        FakeHost(SplittableRandom random) {
            this.random = random;
        }

        @Override
        public String cluster() {
            return CLUSTER;
        }

        @Override
        public NodeId self() {
            return B;
        }

        @Override
        public boolean isMember(NodeId id) {
            return id.equals(A) || id.equals(B) || id.value().equals("c");
        }

        @Override
        public int maxFrameBytes() {
            return 4096;
        }

        @Override
        public byte[] newNonce() {
            byte[] nonce = new byte[Frames.NONCE_BYTES];
            for (int i = 0; i < nonce.length; i++) {
                nonce[i] = (byte) random.nextInt(256);
            }
            return nonce;
        }

        @Override
        public long handshakeTimeoutMillis() {
            return 60_000;
        }

        @Override
        public void established(Connection connection) {
            established = true;
        }

        @Override
        public void closed(Connection connection) {}

        @Override
        public void rejected(Connection connection, String reason, String detail) {
            rejections.add(reason + ": " + detail);
        }

        @Override
        public void dropped(Connection connection, String reason, String detail) {}

        private final Peers.Group group = new Peers.Group("g", QuorumCodec.INSTANCE, null);

        @Override
        public Peers.Group group(String name) {
            return name.equals("g") ? group : null;
        }

        @Override
        public void deliver(Connection connection, Peers.Group group, ElectorMessage message) {
            delivered.add(message);
        }
    }

    /** One connection of node b, driven by the test acting as node a. */
    private static final class Session {
        final FakeHost host;
        final EmbeddedChannel channel;
        final Mac mac = Frames.newMac(Cluster.SECRET);
        final byte[] nonce = new byte[Frames.NONCE_BYTES];
        final byte[] remoteNonce;
        long counter;

        Session(SplittableRandom random) {
            host = new FakeHost(random);
            channel = new EmbeddedChannel(new Connection(host, Cluster.SECRET, null));
            for (int i = 0; i < nonce.length; i++) {
                nonce[i] = (byte) random.nextInt(256);
            }
            ByteBuf hello = channel.readOutbound();
            byte[] bytes = new byte[hello.readableBytes() - 4];
            hello.skipBytes(4).readBytes(bytes);
            hello.release();
            try {
                remoteNonce = Frames.parse(bytes).nonce();
            } catch (Frames.Rejection e) {
                throw new AssertionError(e);
            }
        }

        void handshake() {
            feed(login(), null);
            feed(Frames.auth(mac, CLUSTER, A, ++counter, 7, nonce, remoteNonce), null);
            assertThat(host.established).isTrue();
            assertThat(host.rejections).isEmpty();
        }

        byte[] login() {
            return Frames.login(mac, CLUSTER, A, nonce, remoteNonce, B, 7);
        }

        byte[] message(ElectorMessage m) {
            return frame(m, QuorumCodec.INSTANCE.encode(m));
        }

        /** {@code m} with its term (every sample's first 8 body bytes) replaced by {@code term}, properly MACed. */
        byte[] message(ElectorMessage m, long term) {
            byte[] body = QuorumCodec.INSTANCE.encode(m);
            ByteBuffer.wrap(body).putLong(0, term);
            return frame(m, body);
        }

        /** A BATCH frame carrying {@code ms} for group "g", properly MACed. */
        byte[] batch(List<ElectorMessage> ms) {
            List<Frames.Entry> entries = new ArrayList<>();
            for (ElectorMessage m : ms) {
                entries.add(new Frames.Entry("g", QuorumCodec.INSTANCE.typeOf(m), QuorumCodec.INSTANCE.encode(m)));
            }
            return Frames.batch(mac, CLUSTER, A, ++counter, entries, nonce, remoteNonce);
        }

        private byte[] frame(ElectorMessage m, byte[] body) {
            return Frames.message(
                    mac, CLUSTER, A, ++counter, "g", QuorumCodec.INSTANCE.typeOf(m), body, nonce, remoteNonce);
        }

        /** Writes {@code bytes}, split in random pieces when {@code random} is given, until the channel closes. */
        void feed(byte[] bytes, SplittableRandom random) {
            int at = 0;
            while (at < bytes.length && channel.isOpen()) {
                int piece = random == null ? bytes.length - at : 1 + random.nextInt(bytes.length - at);
                channel.writeInbound(Unpooled.wrappedBuffer(bytes, at, piece));
                at += piece;
            }
        }
    }

    @Test
    void randomAndMutatedFramesNeitherThrowNorDeliver() {
        int frames = Integer.getInteger("bellwether.fuzz.frames", 20_000);
        long seed = Long.getLong("bellwether.fuzz.seed", System.nanoTime());
        log.info(
                "fuzzing the frame decoder with {} frames, seed {} (rerun: -Dbellwether.fuzz.seed={})",
                frames,
                seed,
                seed);
        SplittableRandom random = new SplittableRandom(seed);
        Map<String, Integer> reasons = new TreeMap<>();
        for (int round = 0; round < frames; round++) {
            String context = "seed " + seed + ", round " + round;
            try {
                for (String r : runOne(random.split(), context)) {
                    reasons.merge(r.substring(0, r.indexOf(':')), 1, Integer::sum);
                }
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        "fuzz failure at " + context + " (rerun with -Dbellwether.fuzz.seed=" + seed + "): "
                                + e.getMessage(),
                        e);
            }
        }
        log.info("refusals by reason: {}", reasons);
        if (frames >= 1000) {
            assertThat(reasons).as("the fuzzer reaches every check").containsKeys("bad-mac", "malformed", "too-large");
        }
    }

    /**
     * The overflow case: one authenticated frame with a term of {@code 2^63 − 1} once moved every node to that
     * term for good. Every extreme term is refused as malformed (counted by the transport under that reason)
     * and nothing is delivered; the last term of the range is delivered.
     */
    @Test
    void authenticatedFramesWithExtremeTermsAreRefusedAsMalformed() {
        for (ElectorMessage sample : SAMPLES) {
            for (long term : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 1, Counters.LIMIT, Counters.LIMIT + 1, -1}) {
                Session s = new Session(new SplittableRandom(term));
                s.handshake();
                s.feed(s.message(sample, term), null);
                assertThat(s.host.delivered).as("%s with term %d", sample, term).isEmpty();
                assertThat(s.host.rejections)
                        .as("%s with term %d", sample, term)
                        .singleElement()
                        .asString()
                        .startsWith("malformed: ")
                        .contains("term " + term);
                s.channel.finishAndReleaseAll();
            }
            Session ok = new Session(new SplittableRandom(1));
            ok.handshake();
            ok.feed(ok.message(sample, Counters.LIMIT - 1), null);
            assertThat(ok.host.delivered).hasSize(1);
            assertThat(((QuorumMessage) ok.host.delivered.get(0)).term()).isEqualTo(Counters.LIMIT - 1);
            ok.channel.finishAndReleaseAll();
        }
    }

    private static List<String> runOne(SplittableRandom random, String context) {
        Session s = new Session(random);
        int mode = random.nextInt(9);
        boolean handshaken = mode != 0 && mode != 1;
        if (handshaken) {
            s.handshake();
        }
        ElectorMessage sample = SAMPLES.get(random.nextInt(SAMPLES.size()));
        // What the valid frame carries: one message, or (half of the time) a BATCH of two to four.
        List<ElectorMessage> carried = List.of(sample);
        byte[] valid;
        if (!handshaken) {
            valid = s.login();
        } else if (random.nextBoolean()) {
            List<ElectorMessage> batch = new ArrayList<>(List.of(sample));
            for (int extra = 1 + random.nextInt(3); extra > 0; extra--) {
                batch.add(SAMPLES.get(random.nextInt(SAMPLES.size())));
            }
            carried = List.copyOf(batch);
            valid = s.batch(carried);
        } else {
            valid = s.message(sample);
        }
        byte[] input;
        boolean mayDeliver = false;
        switch (mode) {
            case 0 -> input = randomBytes(random, random.nextInt(200));
            case 1, 2 -> input = flip(random, valid);
            case 3 -> input = Arrays.copyOf(valid, random.nextInt(valid.length));
            case 4 -> {
                // A valid frame followed by garbage: the frame may be delivered, the garbage never.
                input = concat(valid, randomBytes(random, 1 + random.nextInt(64)));
                mayDeliver = true;
            }
            case 5 -> input = randomLengthPrefix(random, valid);
            case 6 -> {
                // Content mutated and then MACed properly: a peer holding the secret but sending junk.
                input = reMac(s, flip(random, valid));
                mayDeliver = true;
            }
            case 7 -> input = concat(randomBytes(random, 4 + random.nextInt(8)), valid);
            default -> {
                // A peer holding the secret sends a well-formed, authenticated message whose term is out of range.
                long[] extremes = {Long.MAX_VALUE, Long.MAX_VALUE - 1, Counters.LIMIT, Counters.LIMIT + 1, -1};
                input = s.message(sample, extremes[random.nextInt(extremes.length)]);
            }
        }
        s.feed(input, random);
        assertThat(s.host.rejections)
                .as("no internal failure (%s)", context)
                .noneMatch(r -> r.contains("unexpected failure") || r.contains("pipeline failure"));
        if (!mayDeliver) {
            assertThat(s.host.delivered)
                    .as("nothing delivered from invalid input (%s)", context)
                    .isEmpty();
        } else {
            if (mode == 4) {
                // The valid frame is delivered whole, or not at all; the garbage after it never.
                assertThat(s.host.delivered.isEmpty() || s.host.delivered.equals(carried))
                        .as("all or nothing of %s, got %s (%s)", carried, s.host.delivered, context)
                        .isTrue();
            } else if (carried.size() == 1) {
                // Re-MACed junk: a MESSAGE delivers at most one message (a BATCH's mutated entries may split anew).
                assertThat(s.host.delivered)
                        .as("at most the one frame (%s)", context)
                        .hasSizeLessThanOrEqualTo(1);
            }
        }
        if (!handshaken) {
            assertThat(s.host.established)
                    .as("no handshake from one frame (%s)", context)
                    .isFalse();
        }
        int deliveredBefore = s.host.delivered.size();
        if (!s.host.rejections.isEmpty()) {
            // After a refusal nothing more is delivered, not even a valid frame.
            assertThat(s.channel.isOpen())
                    .as("closed after a refusal (%s)", context)
                    .isFalse();
            if (handshaken) {
                s.feed(s.message(sample), null);
            }
            assertThat(s.host.delivered)
                    .as("nothing after a refusal (%s)", context)
                    .hasSize(deliveredBefore);
        }
        s.channel.finishAndReleaseAll();
        return s.host.rejections;
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        // Half of the time, make it look like the start of a frame so the decoder reads past the length check.
        if (length >= 10 && random.nextBoolean()) {
            ByteBuffer.wrap(b).putInt(length - 4).putInt(Frames.MAGIC).put((byte) Frames.VERSION);
        }
        return b;
    }

    /** Flips 1–4 random bytes, never to the same value. */
    private static byte[] flip(SplittableRandom random, byte[] frame) {
        byte[] b = frame.clone();
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
            int at = random.nextInt(b.length);
            b[at] ^= (byte) (1 + random.nextInt(255));
        }
        return Arrays.equals(b, frame) ? flip(random, frame) : b;
    }

    private static byte[] randomLengthPrefix(SplittableRandom random, byte[] frame) {
        byte[] b = frame.clone();
        int length;
        do {
            length = random.nextBoolean() ? random.nextInt() : frame.length - 4 + random.nextInt(-40, 40);
        } while (length == frame.length - 4);
        ByteBuffer.wrap(b).putInt(length);
        return b;
    }

    /** Recomputes the MAC over the (possibly damaged) content, keeping the declared length consistent. */
    private static byte[] reMac(Session s, byte[] frame) {
        byte[] b = frame.clone();
        ByteBuffer.wrap(b).putInt(b.length - 4);
        byte[] tag = Frames.mac(s.mac, b, 4, b.length - 4 - Frames.MAC_BYTES, s.nonce, s.remoteNonce);
        System.arraycopy(tag, 0, b, b.length - Frames.MAC_BYTES, Frames.MAC_BYTES);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
