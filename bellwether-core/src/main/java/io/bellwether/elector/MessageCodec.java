package io.bellwether.elector;

import java.util.List;

/**
 * Turns one algorithm's messages into bytes and back, for transports that cross a process boundary. Pure: no
 * I/O, no state; thread-safe.
 */
public interface MessageCodec {
    /** For algorithms that exchange no peer messages (the lease elector talks only to its store). */
    MessageCodec NONE = new MessageCodec() {
        @Override
        public int typeOf(ElectorMessage message) {
            throw new IllegalArgumentException("this algorithm sends no peer messages: " + message.type());
        }

        @Override
        public byte[] encode(ElectorMessage message) {
            throw new IllegalArgumentException("this algorithm sends no peer messages: " + message.type());
        }

        @Override
        public ElectorMessage decode(int type, byte[] body) {
            throw new MalformedMessageException("this algorithm accepts no peer messages (type " + type + ")");
        }
    };

    /**
     * The {@link ElectorMessage#type()} names of every message this codec handles, so that observers can set up
     * per-type state (a metric's series, say) before the first message of a kind is sent or received, not on the
     * failover path that first sends it. Empty by default.
     */
    default List<String> messageTypes() {
        return List.of();
    }

    /** The message's wire type, 1–255, stable across releases of the same protocol version. */
    int typeOf(ElectorMessage message);

    /** The message's body (its type is carried separately). */
    byte[] encode(ElectorMessage message);

    /**
     * Reads a body written by {@link #encode}.
     *
     * @throws MalformedMessageException for an unknown type, a truncated or over-long body, or values out of
     *     range; never any other exception
     */
    ElectorMessage decode(int type, byte[] body);
}
