package io.bellwether.testkit.toy;

import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.MalformedMessageException;
import io.bellwether.elector.MessageCodec;
import io.bellwether.testkit.toy.ToyMessage.Ping;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The wire form of {@link ToyMessage}s: type 1, {@link Ping}, whose body is its epoch (8 bytes, big-endian, in
 * {@link Counters}' range) and a leading flag (1 byte, 0 or 1). Anything else is refused with {@link
 * MalformedMessageException}. Stateless and thread-safe.
 */
public final class ToyCodec implements MessageCodec {
    /** The one instance. */
    public static final ToyCodec INSTANCE = new ToyCodec();

    static final int PING = 1;
    private static final int PING_BYTES = Long.BYTES + 1;

    private ToyCodec() {}

    @Override
    public List<String> messageTypes() {
        return ElectorMessage.typesOf(ToyMessage.class);
    }

    @Override
    public int typeOf(ElectorMessage message) {
        if (!(message instanceof Ping)) {
            throw new IllegalArgumentException("not a toy message: " + message);
        }
        return PING;
    }

    @Override
    public byte[] encode(ElectorMessage message) {
        typeOf(message);
        Ping ping = (Ping) message;
        return ByteBuffer.allocate(PING_BYTES)
                .putLong(Counters.checked("epoch", ping.epoch()))
                .put((byte) (ping.leading() ? 1 : 0))
                .array();
    }

    @Override
    public ElectorMessage decode(int type, byte[] body) {
        if (type != PING) {
            throw new MalformedMessageException("unknown toy message type " + type);
        }
        if (body.length != PING_BYTES) {
            throw new MalformedMessageException("Ping has " + body.length + " bytes, not " + PING_BYTES);
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        long epoch = Counters.decoded("Ping", "epoch", in.getLong());
        byte leading = in.get();
        if (leading != 0 && leading != 1) {
            throw new MalformedMessageException("Ping has leading flag " + leading + ", not 0 or 1");
        }
        return new Ping(epoch, leading == 1);
    }
}
