package io.bellwether.elector;

import java.util.Objects;

/**
 * An {@link ElectorSpec} whose algorithm name and message codec are fixed at construction, as every built-in
 * configuration's are; subclasses add {@link #create} and their own keys.
 */
public abstract class AbstractSpec implements ElectorSpec {
    private final String algorithm;
    private final MessageCodec codec;

    /**
     * @param algorithm see {@link #algorithm()}
     * @param codec see {@link #codec()}: {@link MessageCodec#NONE} for an algorithm that sends no messages
     */
    protected AbstractSpec(String algorithm, MessageCodec codec) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    @Override
    public final String algorithm() {
        return algorithm;
    }

    @Override
    public final MessageCodec codec() {
        return codec;
    }
}
