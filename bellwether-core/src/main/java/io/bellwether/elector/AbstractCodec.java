package io.bellwether.elector;

import java.util.List;

/**
 * A {@link MessageCodec} whose wire types are the places of its message classes in one list, as every built-in
 * one's are: {@link #typeOf} and {@link #messageTypes} come from that list and the messages' sealed interface,
 * {@link #encode} checks that a message is one of them, and subclasses write the bodies ({@link #encodeBody})
 * and read them.
 *
 * @param <M> the messages' sealed interface
 */
public abstract class AbstractCodec<M extends ElectorMessage> implements MessageCodec {
    private final Class<M> family;
    private final List<Class<?>> types;
    private final String kind;

    /**
     * @param family the messages' sealed interface
     * @param types the message classes in wire-type order: a message's type is its place here, counting from 1
     * @param kind how errors name a message of {@code family} ({@code "a bully message"})
     */
    protected AbstractCodec(Class<M> family, List<Class<?>> types, String kind) {
        this.family = family;
        this.types = List.copyOf(types);
        this.kind = kind;
    }

    @Override
    public final List<String> messageTypes() {
        return ElectorMessage.typesOf(family);
    }

    /** {@inheritDoc} Its class's place in the list, counting from 1; see {@link Wire#typeOf}. */
    @Override
    public final int typeOf(ElectorMessage message) {
        return Wire.typeOf(message, family, types, kind);
    }

    /**
     * {@inheritDoc} Finds its type ({@link #typeOf}, which refuses a message of another family), then writes it with
     * {@link #encodeBody}.
     */
    @Override
    public final byte[] encode(ElectorMessage message) {
        int type = typeOf(message);
        return encodeBody(type, family.cast(message));
    }

    /**
     * The body of {@code message}, whose wire type is {@code type}.
     *
     * @throws IllegalArgumentException if a field cannot be written (negative, out of range)
     */
    protected abstract byte[] encodeBody(int type, M message);
}
