package io.bellwether.transport.tcp;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.MessageCodec;
import io.bellwether.state.GroupNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The wire format (protocol version {@value #VERSION}). Every frame is a 4-byte big-endian length (of what
 * follows it) and then:
 *
 * <pre>
 *   magic      4  0x42574C54 ("BWLT")
 *   version    1  {@value #VERSION}
 *   kind       1  1 = HELLO, 2 = AUTH, 3 = MESSAGE, 4 = LOGIN, 5 = PING, 6 = PONG, 7 = BATCH
 *   cluster    1 + n  length-prefixed ASCII
 *   sender     1 + n  length-prefixed ASCII node id
 *   HELLO:     nonce (16)
 *   LOGIN:     nonce (16), receiver's nonce (16), receiver (1 + n, its node id), instance (8)
 *   AUTH:      counter (8), instance (8)
 *   MESSAGE:   counter (8), group (1 + n), message type (1), body (the rest)
 *   BATCH:     counter (8), count (2, at least 2), then count times:
 *              group (1 + n), message type (1), body length (4), body
 *   PING/PONG: counter (8)
 *   mac        32 HMAC-SHA256
 * </pre>
 *
 * <p><b>Handshake.</b> The accepting end sends a HELLO with a fresh nonce at once. The dialing end answers with
 * a LOGIN carrying its own fresh nonce, the HELLO's nonce and the id of the member it means to reach; the
 * accepting end checks all three before it sends anything more, so a LOGIN replayed on another connection (to
 * the same member: another nonce; to another member: another nonce and receiver) is refused before any AUTH
 * leaves. Then the accepting end sends its AUTH, and the dialing end, once that AUTH checks out, its own. The
 * instance is a random number each transport draws at start: two live processes with one id show up as two
 * instances.
 *
 * <p><b>MACs.</b> The MAC of a HELLO or LOGIN covers the frame from the magic to the end of its content (a
 * LOGIN's content holds both nonces). The MAC of AUTH, MESSAGE, PING and PONG frames covers the sender's nonce,
 * then the receiver's, then the frame from the magic on: a frame is valid on one connection and in one direction
 * only. Counters run per direction: AUTH carries 1 and each later frame the next number, so a frame replayed or
 * reordered within a connection is refused too. PING asks the peer to answer with a PONG (a liveness probe).
 *
 * <p><b>Batches.</b> The messages a member writes to one peer in one pass of its loop (the heartbeats of every group
 * whose timer fell due, the answers to every frame of one read) travel as BATCH frames of up to {@link
 * #MAX_BATCH_BYTES} each: one header, one counter and one MAC for all of their messages. A BATCH counts as one
 * frame; its messages are delivered in order, and only once every one of them has decoded (a malformed one refuses
 * the whole frame). A lone message travels as a MESSAGE.
 *
 * <p><b>Versions.</b> A frame of another version is refused (reason {@code bad-version}) with both versions in
 * the log line; nodes of different versions never connect. Version 3 added BATCH; version 2 (no BATCH) and version
 * 1 (HELLO from both ends at once, a HELLO's MAC bound to nothing fresh, no instance) are not spoken by this
 * version: a cluster moves to a new version by restarting every member with it.
 */
final class Frames {
    static final int MAGIC = 0x42574C54;
    static final int VERSION = 3;
    static final int HELLO = 1;
    static final int AUTH = 2;
    static final int MESSAGE = 3;
    static final int LOGIN = 4;
    static final int PING = 5;
    static final int PONG = 6;
    static final int BATCH = 7;
    static final int NONCE_BYTES = 16;
    static final int MAC_BYTES = 32;
    /** Magic, version, kind, two one-byte lengths of at least one byte each, and the MAC. */
    static final int MIN_FRAME_BYTES = 4 + 1 + 1 + 2 + 2 + MAC_BYTES;
    /** Everything but the cluster, sender, group and body in a MESSAGE frame. */
    static final int MESSAGE_OVERHEAD = 4 + 1 + 1 + 1 + 1 + 8 + 1 + 1 + MAC_BYTES;

    /** The key used without a secret: it keeps the framing and counters identical, and authenticates nothing. */
    static final byte[] INSECURE_KEY = "bellwether-insecure-no-secret-set".getBytes(StandardCharsets.US_ASCII);

    private Frames() {}

    static Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** A HELLO frame, length prefix included. */
    static byte[] hello(Mac mac, String cluster, NodeId sender, byte[] nonce) {
        ByteBuffer out = header(HELLO, cluster, sender, NONCE_BYTES);
        out.put(nonce);
        return seal(out, mac, null, null);
    }

    /**
     * A LOGIN frame (the dialing end's answer to a HELLO), length prefix included: its MAC covers both nonces and
     * the receiver's id.
     */
    static byte[] login(
            Mac mac,
            String cluster,
            NodeId sender,
            byte[] nonce,
            byte[] receiverNonce,
            NodeId receiver,
            long instance) {
        byte[] r = ascii(receiver.value());
        ByteBuffer out = header(LOGIN, cluster, sender, NONCE_BYTES + NONCE_BYTES + 1 + r.length + 8);
        out.put(nonce).put(receiverNonce).put((byte) r.length).put(r).putLong(instance);
        return seal(out, mac, null, null);
    }

    /** An AUTH frame, length prefix included. */
    static byte[] auth(
            Mac mac,
            String cluster,
            NodeId sender,
            long counter,
            long instance,
            byte[] senderNonce,
            byte[] receiverNonce) {
        ByteBuffer out = header(AUTH, cluster, sender, 16);
        out.putLong(counter).putLong(instance);
        return seal(out, mac, senderNonce, receiverNonce);
    }

    /** A PING or PONG frame, length prefix included. */
    static byte[] probe(
            Mac mac, int kind, String cluster, NodeId sender, long counter, byte[] senderNonce, byte[] receiverNonce) {
        ByteBuffer out = header(kind, cluster, sender, 8);
        out.putLong(counter);
        return seal(out, mac, senderNonce, receiverNonce);
    }

    /** A MESSAGE frame, length prefix included. */
    static byte[] message(
            Mac mac,
            String cluster,
            NodeId sender,
            long counter,
            String group,
            int type,
            byte[] body,
            byte[] senderNonce,
            byte[] receiverNonce) {
        byte[] g = ascii(group);
        ByteBuffer out = header(MESSAGE, cluster, sender, 8 + 1 + g.length + 1 + body.length);
        out.putLong(counter).put((byte) g.length).put(g).put((byte) type).put(body);
        return seal(out, mac, senderNonce, receiverNonce);
    }

    /** One message of a BATCH frame. */
    record Entry(String group, int type, byte[] body) {}

    /** A BATCH frame of at least two messages, length prefix included. */
    static byte[] batch(
            Mac mac,
            String cluster,
            NodeId sender,
            long counter,
            List<Entry> entries,
            byte[] senderNonce,
            byte[] receiverNonce) {
        if (entries.size() < 2 || entries.size() > MAX_BATCH_ENTRIES) {
            throw new IllegalArgumentException(
                    "a batch holds 2 to " + MAX_BATCH_ENTRIES + " messages, not " + entries.size());
        }
        int bytes = 0;
        for (Entry e : entries) {
            bytes += batchEntryBytes(e.group(), e.body().length);
        }
        ByteBuffer out = header(BATCH, cluster, sender, 8 + 2 + bytes);
        out.putLong(counter).putShort((short) entries.size());
        for (Entry e : entries) {
            byte[] g = ascii(e.group());
            out.put((byte) g.length)
                    .put(g)
                    .put((byte) e.type())
                    .putInt(e.body().length)
                    .put(e.body());
        }
        return seal(out, mac, senderNonce, receiverNonce);
    }

    /**
     * The largest BATCH frame a node builds (length prefix excluded): the smallest {@code max-frame-bytes} a member
     * may have, so that every peer accepts it whatever its own limit. A message larger than this still travels, alone,
     * as a MESSAGE.
     */
    static final int MAX_BATCH_BYTES = 1024;

    /** The most messages one BATCH frame carries (its count is two bytes). */
    static final int MAX_BATCH_ENTRIES = 0xFFFF;

    /** What one message adds to a BATCH frame. */
    static int batchEntryBytes(String group, int bodyBytes) {
        return 1 + group.length() + 1 + 4 + bodyBytes;
    }

    /** The whole frame size (length prefix excluded) of a BATCH whose messages take {@code entryBytes}. */
    static int batchFrameBytes(String cluster, NodeId sender, int entryBytes) {
        return 4 + 1 + 1 + 1 + cluster.length() + 1 + sender.value().length() + 8 + 2 + entryBytes + MAC_BYTES;
    }

    /**
     * The messages of a BATCH frame's {@link Frame#body()}; read only once the frame's MAC and counter hold.
     *
     * @throws Rejection with reason {@code malformed} if the count is below 2 or the messages do not fill the body
     *     exactly
     */
    static List<Entry> entries(byte[] body) throws Rejection {
        ByteBuffer in = ByteBuffer.wrap(body);
        need(in, 2, "message count");
        int count = in.getShort() & 0xFFFF;
        if (count < 2) {
            throw new Rejection("malformed", "a BATCH of " + count + " messages (at least 2)");
        }
        List<Entry> entries = new ArrayList<>(Math.min(count, body.length / 7 + 1));
        for (int i = 0; i < count; i++) {
            String group = name(in, "group");
            need(in, 1 + 4, "message type and length");
            int type = in.get() & 0xFF;
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new Rejection(
                        "malformed",
                        "BATCH message " + (i + 1) + " of " + count + " announces " + Integer.toUnsignedString(length)
                                + " bytes; " + in.remaining() + " are left");
            }
            byte[] messageBody = new byte[length];
            in.get(messageBody);
            entries.add(new Entry(group, type, messageBody));
        }
        end(in);
        return entries;
    }

    /** The whole frame size (length prefix excluded) of a MESSAGE with these parts. */
    static int messageFrameBytes(String cluster, NodeId sender, String group, int bodyBytes) {
        return MESSAGE_OVERHEAD + cluster.length() + sender.value().length() + group.length() + bodyBytes;
    }

    private static ByteBuffer header(int kind, String cluster, NodeId sender, int specificBytes) {
        byte[] c = ascii(cluster);
        byte[] s = ascii(sender.value());
        int length = 4 + 1 + 1 + 1 + c.length + 1 + s.length + specificBytes + MAC_BYTES;
        ByteBuffer out = ByteBuffer.allocate(4 + length);
        out.putInt(length).putInt(MAGIC).put((byte) VERSION).put((byte) kind);
        out.put((byte) c.length).put(c).put((byte) s.length).put(s);
        return out;
    }

    private static byte[] seal(ByteBuffer out, Mac mac, byte[] senderNonce, byte[] receiverNonce) {
        byte[] frame = out.array();
        int contentEnd = out.position();
        byte[] tag = mac(mac, frame, 4, contentEnd - 4, senderNonce, receiverNonce);
        System.arraycopy(tag, 0, frame, contentEnd, MAC_BYTES);
        return frame;
    }

    static byte[] mac(Mac mac, byte[] frame, int offset, int length, byte[] senderNonce, byte[] receiverNonce) {
        mac.reset();
        if (senderNonce != null) {
            mac.update(senderNonce);
            mac.update(receiverNonce);
        }
        mac.update(frame, offset, length);
        return mac.doFinal();
    }

    /** Whether {@code frame} (without its length prefix) ends with the right MAC for its content. */
    static boolean macMatches(Mac mac, byte[] frame, byte[] senderNonce, byte[] receiverNonce) {
        int contentLength = frame.length - MAC_BYTES;
        byte[] expected = mac(mac, frame, 0, contentLength, senderNonce, receiverNonce);
        byte[] actual = new byte[MAC_BYTES];
        System.arraycopy(frame, contentLength, actual, 0, MAC_BYTES);
        return MessageDigest.isEqual(expected, actual);
    }

    private static byte[] ascii(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        if (b.length > 255) {
            throw new IllegalArgumentException("'" + s + "' is longer than 255 bytes");
        }
        return b;
    }

    /**
     * Checks a frame's length prefix before the frame is read.
     *
     * @return {@code length}
     * @throws Rejection with reason {@code too-large} or {@code malformed}
     */
    static int announcedLength(int length, int maxFrameBytes) throws Rejection {
        if (length < 0 || length > maxFrameBytes) {
            throw new Rejection(
                    "too-large",
                    "frame of " + Integer.toUnsignedString(length) + " bytes announced; at most " + maxFrameBytes
                            + " allowed");
        }
        if (length < MIN_FRAME_BYTES) {
            throw new Rejection("malformed", "frame of " + length + " bytes is shorter than any valid frame");
        }
        return length;
    }

    /**
     * The message a MESSAGE frame carries, decoded by its group's codec.
     *
     * @throws Rejection with reason {@code malformed} if the codec refuses the body, fails, or decodes nothing
     */
    static ElectorMessage decode(MessageCodec codec, Frame f) throws Rejection {
        return decode(codec, f.group(), f.type(), f.body());
    }

    /**
     * A message of {@code group}, decoded by its codec.
     *
     * @throws Rejection with reason {@code malformed} if the codec refuses the body, fails, or decodes nothing
     */
    static ElectorMessage decode(MessageCodec codec, String group, int type, byte[] body) throws Rejection {
        ElectorMessage message;
        try {
            message = codec.decode(type, body);
        } catch (MalformedMessageException e) {
            throw new Rejection("malformed", "group '" + group + "' message: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new Rejection("malformed", "group '" + group + "' codec failed: " + e);
        }
        if (message == null) {
            throw new Rejection("malformed", "group '" + group + "' codec decoded nothing");
        }
        return message;
    }

    /** Why a frame was refused: a short metric label and a detail for the log. */
    static final class Rejection extends Exception {
        private static final long serialVersionUID = 1L;
        final String reason;

        Rejection(String reason, String detail) {
            super(detail, null, false, false);
            this.reason = reason;
        }
    }

    /** The parts of a frame (its length prefix excluded), as read, before the MAC is checked. */
    record Frame(
            int kind,
            String cluster,
            NodeId sender,
            byte[] nonce,
            long counter,
            String group,
            int type,
            byte[] body,
            byte[] receiverNonce,
            String receiver,
            long instance) {}

    /**
     * Reads a frame's parts; checks the magic, version, structure and the form of names, not their values.
     *
     * @throws Rejection with reason {@code malformed} or {@code bad-version}
     */
    static Frame parse(byte[] frame) throws Rejection {
        if (frame.length < MIN_FRAME_BYTES) {
            throw new Rejection("malformed", "frame of " + frame.length + " bytes is shorter than any valid frame");
        }
        ByteBuffer in = ByteBuffer.wrap(frame, 0, frame.length - MAC_BYTES);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new Rejection("malformed", String.format("bad magic 0x%08X, expected 0x%08X", magic, MAGIC));
        }
        int version = in.get() & 0xFF;
        if (version != VERSION) {
            throw new Rejection(
                    "bad-version",
                    "the peer speaks Bellwether wire protocol version " + version + " but this node speaks version "
                            + VERSION + "; disconnecting it");
        }
        int kind = in.get() & 0xFF;
        String cluster = name(in, "cluster");
        String senderText = name(in, "sender");
        NodeId sender;
        try {
            sender = new NodeId(senderText);
        } catch (IllegalArgumentException e) {
            throw new Rejection("malformed", e.getMessage());
        }
        switch (kind) {
            case HELLO -> {
                need(in, NONCE_BYTES, "nonce");
                byte[] nonce = new byte[NONCE_BYTES];
                in.get(nonce);
                end(in);
                return new Frame(kind, cluster, sender, nonce, 0, null, 0, null, null, null, 0);
            }
            case LOGIN -> {
                need(in, 2 * NONCE_BYTES, "nonces");
                byte[] nonce = new byte[NONCE_BYTES];
                in.get(nonce);
                byte[] receiverNonce = new byte[NONCE_BYTES];
                in.get(receiverNonce);
                String receiver = name(in, "receiver");
                need(in, 8, "instance");
                long instance = in.getLong();
                end(in);
                return new Frame(kind, cluster, sender, nonce, 0, null, 0, null, receiverNonce, receiver, instance);
            }
            case AUTH -> {
                need(in, 16, "counter and instance");
                long counter = in.getLong();
                long instance = in.getLong();
                end(in);
                return new Frame(kind, cluster, sender, null, counter, null, 0, null, null, null, instance);
            }
            case PING, PONG -> {
                need(in, 8, "counter");
                long counter = in.getLong();
                end(in);
                return new Frame(kind, cluster, sender, null, counter, null, 0, null, null, null, 0);
            }
            case BATCH -> {
                need(in, 8, "counter");
                long counter = in.getLong();
                byte[] entries = new byte[in.remaining()]; // read by entries() once the MAC and counter hold
                in.get(entries);
                return new Frame(kind, cluster, sender, null, counter, null, 0, entries, null, null, 0);
            }
            case MESSAGE -> {
                need(in, 8, "counter");
                long counter = in.getLong();
                String group = name(in, "group");
                need(in, 1, "message type");
                int type = in.get() & 0xFF;
                byte[] body = new byte[in.remaining()];
                in.get(body);
                return new Frame(kind, cluster, sender, null, counter, group, type, body, null, null, 0);
            }
            default -> throw new Rejection("malformed", "unknown frame kind " + kind);
        }
    }

    private static String name(ByteBuffer in, String what) throws Rejection {
        need(in, 1, what + " length");
        int length = in.get() & 0xFF;
        need(in, length, what);
        byte[] bytes = new byte[length];
        in.get(bytes);
        String text = new String(bytes, StandardCharsets.US_ASCII);
        try {
            return GroupNames.check(what, text);
        } catch (IllegalArgumentException e) {
            // A node id may start with '.', '_' or '-', which group names may not; NodeId checks senders.
            if ((what.equals("sender") || what.equals("receiver")) && !text.isEmpty() && isAscii(bytes)) {
                return text;
            }
            throw new Rejection("malformed", what + " is invalid");
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7E) {
                return false;
            }
        }
        return true;
    }

    private static void need(ByteBuffer in, int bytes, String what) throws Rejection {
        if (in.remaining() < bytes) {
            throw new Rejection("malformed", "frame ends inside its " + what);
        }
    }

    private static void end(ByteBuffer in) throws Rejection {
        if (in.hasRemaining()) {
            throw new Rejection("malformed", "frame has " + in.remaining() + " unexpected bytes before its MAC");
        }
    }
}
