package io.bellwether.transport.tcp;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.quorum.QuorumCodec;
import io.bellwether.quorum.QuorumMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The transport's per-message CPU cost on one thread: a quorum heartbeat encoded by its codec and sealed into a
 * MESSAGE frame with its HMAC-SHA256 ({@code encodeAndSeal}), and a received frame parsed, its MAC checked and its
 * body decoded ({@code parseVerifyAndDecode}), as {@link Connection} does for every message (socket I/O and Netty
 * buffers excluded). The same for a BATCH frame of {@value #BATCH} heartbeats of as many groups ({@code
 * batchEncodeAndSeal}, {@code batchParseVerifyAndDecode}; per frame: divide by {@value #BATCH} for a message), as
 * a loop pass that sends many groups' heartbeats to one peer writes them. In this package because the wire format
 * ({@link Frames}) is the transport's own.
 *
 * <p>Run: {@code java -jar bellwether-bench/target/benchmarks.jar FrameBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class FrameBenchmark {
    private static final String CLUSTER = "bench-cluster";
    private static final NodeId SENDER = NodeId.of("node-1");
    private static final String GROUP = "orders-jobs";
    /** Messages in the benchmark's BATCH frame. */
    static final int BATCH = 100;

    private final byte[] senderNonce = new byte[Frames.NONCE_BYTES];
    private final byte[] receiverNonce = new byte[Frames.NONCE_BYTES];
    private Mac mac;
    private long counter;
    private long term = 7;
    private byte[] received;
    private byte[] receivedBatch;
    private final String[] groups = new String[BATCH];

    @Setup
    public void setUp() throws Frames.Rejection {
        Arrays.fill(senderNonce, (byte) 1);
        Arrays.fill(receiverNonce, (byte) 2);
        mac = Frames.newMac("a-benchmark-secret-of-32-bytes-!".getBytes(StandardCharsets.US_ASCII));
        byte[] withPrefix = encodeAndSeal();
        received = Arrays.copyOfRange(withPrefix, 4, withPrefix.length);
        // Fail here rather than measure a path that refuses the frame.
        if (!(parseVerifyAndDecode() instanceof QuorumMessage.Heartbeat)) {
            throw new IllegalStateException("the benchmark frame does not decode to a heartbeat");
        }
        for (int i = 0; i < BATCH; i++) {
            groups[i] = "orders-" + i;
        }
        byte[] batch = batchEncodeAndSeal();
        receivedBatch = Arrays.copyOfRange(batch, 4, batch.length);
        if (batchParseVerifyAndDecode().length != BATCH) {
            throw new IllegalStateException("the benchmark batch does not decode to " + BATCH + " messages");
        }
    }

    /** The sending side of a BATCH of heartbeats of {@value #BATCH} groups: codec per message, one header and MAC. */
    @Benchmark
    public byte[] batchEncodeAndSeal() {
        QuorumCodec codec = QuorumCodec.INSTANCE;
        List<Frames.Entry> entries = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            ElectorMessage heartbeat = new QuorumMessage.Heartbeat(term, counter + i);
            entries.add(new Frames.Entry(groups[i], codec.typeOf(heartbeat), codec.encode(heartbeat)));
        }
        return Frames.batch(mac, CLUSTER, SENDER, ++counter, entries, senderNonce, receiverNonce);
    }

    /** The receiving side of that BATCH: one parse and MAC check, then each message's codec. */
    @Benchmark
    public ElectorMessage[] batchParseVerifyAndDecode() throws Frames.Rejection {
        Frames.Frame frame = Frames.parse(receivedBatch);
        if (!Frames.macMatches(mac, receivedBatch, senderNonce, receiverNonce)) {
            throw new IllegalStateException("MAC mismatch");
        }
        List<Frames.Entry> entries = Frames.entries(frame.body());
        ElectorMessage[] messages = new ElectorMessage[entries.size()];
        for (int i = 0; i < messages.length; i++) {
            Frames.Entry e = entries.get(i);
            messages[i] = Frames.decode(QuorumCodec.INSTANCE, e.group(), e.type(), e.body());
        }
        return messages;
    }

    /** The sending side: codec, frame header, counter, MAC. */
    @Benchmark
    public byte[] encodeAndSeal() {
        ElectorMessage heartbeat = new QuorumMessage.Heartbeat(term, ++counter);
        QuorumCodec codec = QuorumCodec.INSTANCE;
        return Frames.message(
                mac,
                CLUSTER,
                SENDER,
                counter,
                GROUP,
                codec.typeOf(heartbeat),
                codec.encode(heartbeat),
                senderNonce,
                receiverNonce);
    }

    /** The receiving side: parse and range checks, MAC check, codec. */
    @Benchmark
    public ElectorMessage parseVerifyAndDecode() throws Frames.Rejection {
        Frames.Frame frame = Frames.parse(received);
        if (!Frames.macMatches(mac, received, senderNonce, receiverNonce)) {
            throw new IllegalStateException("MAC mismatch");
        }
        return Frames.decode(QuorumCodec.INSTANCE, frame);
    }
}
