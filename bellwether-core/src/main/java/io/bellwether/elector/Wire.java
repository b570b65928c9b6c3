package io.bellwether.elector;

import io.bellwether.NodeId;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The encoding pieces the peer algorithms' codecs share (bully, ring, invitation): message types numbered by
 * their place in a list, big-endian numbers that are never negative, and node ids as a length byte and UTF-8.
 * Read errors are {@link MalformedMessageException}s naming the message ({@code what}, such as {@code "ring
 * message type 3"}), the field, the value and what is allowed; write errors are {@link IllegalArgumentException}s,
 * since only a programming error builds such a message. Stateless.
 */
public final class Wire {
    private Wire() {}

    /**
     * The wire type of {@code message}: its class's place in {@code types}, counting from 1.
     *
     * @param family the messages' sealed interface, named in the error as {@code kind} ("a bully message")
     * @throws IllegalArgumentException if {@code message} is not one of {@code types}
     */
    public static int typeOf(ElectorMessage message, Class<?> family, List<Class<?>> types, String kind) {
        int index = message == null ? -1 : types.indexOf(message.getClass());
        if (!family.isInstance(message) || index < 0) {
            throw new IllegalArgumentException("not " + kind + ": "
                    + (message == null ? "null" : message.getClass().getName()));
        }
        return index + 1;
    }

    /**
     * Returns {@code value} if it is not negative, for writing.
     *
     * @param of the message, named in the error; or null
     */
    public static long nonNegative(String field, long value, Object of) {
        if (value < 0) {
            throw new IllegalArgumentException(
                    field + " " + value + (of == null ? "" : " of " + of) + " is negative: allowed 0 or more");
        }
        return value;
    }

    /** Returns a packed ranked epoch (see {@link RankedEpoch}) if its counter is in range, for writing {@code m}. */
    public static long epoch(long epoch, Object m) {
        if (!Counters.epochInRange(epoch)) {
            throw new IllegalArgumentException(
                    "epoch " + epoch + " of " + m + " is out of range: its counter " + Counters.allowed());
        }
        return epoch;
    }

    /** Reads a number that must not be negative. */
    public static long readNonNegative(ByteBuffer in, String what, String field) {
        long value = in.getLong();
        if (value < 0) {
            throw new MalformedMessageException(what + " has " + field + " " + value + ": allowed 0 or more");
        }
        return value;
    }

    /** Writes {@code value} big-endian, as {@link ByteBuffer#putLong} does. */
    public static void putLong(ByteArrayOutputStream out, long value) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            out.write((int) (value >>> shift));
        }
    }

    /** Writes {@code count} in two bytes, big-endian. */
    public static void putCount(ByteArrayOutputStream out, int count) {
        out.write(count >>> 8);
        out.write(count & 0xFF);
    }

    /** Writes a node id as its length (one byte) and its UTF-8 bytes (ids are ASCII, at most 64 characters). */
    public static void putId(ByteArrayOutputStream out, NodeId id) {
        byte[] utf8 = id.value().getBytes(StandardCharsets.UTF_8);
        out.write(utf8.length);
        out.write(utf8, 0, utf8.length);
    }

    /**
     * Decodes {@code bytes} as UTF-8, refusing malformed or unmappable input rather than replacing it: a peer's
     * message or a stored file with bad text is damaged, not to be guessed at.
     *
     * @throws CharacterCodingException if the bytes are not valid UTF-8
     */
    public static String strictUtf8(ByteBuffer bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(bytes)
                .toString();
    }

    /**
     * Reads the {@code length} bytes of a node id (the caller has read and checked the length byte): they must be
     * UTF-8 and a valid {@link NodeId}.
     */
    public static NodeId readIdBytes(ByteBuffer in, int length, String what, String field) {
        ByteBuffer slice = in.slice(in.position(), length);
        in.position(in.position() + length);
        String text;
        try {
            text = strictUtf8(slice);
        } catch (CharacterCodingException e) {
            throw new MalformedMessageException(what + " has a " + field + " that is not valid UTF-8", e);
        }
        try {
            return new NodeId(text);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException(what + " has " + field + ": " + e.getMessage(), e);
        }
    }
}
