package io.bellwether.elector;

import java.util.List;

/**
 * A {@link MessageCodec} whose wire types are the places of its message classes in one list, as every built-in
 * one's are: {@link #typeOf} and {@link #messageTypes} come from that list and the messages' sealed interface,
 * subclasses write and read the bodies.
 */
public abstract class AbstractCodec implements MessageCodec {
    private final Class<? extends ElectorMessage> family;
    private final List<Class<?>> types;
    private final String kind;

    /**
     * @param family the messages' sealed interface
     * @param types the message classes in wire-type order: a message's type is its place here, counting from 1
     * @param kind how errors name a message of {@code family} ({@code "a bully message"})
     */
    protected AbstractCodec(Class<? extends ElectorMessage> family, List<Class<?>> types, String kind) {
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
}
