package io.bellwether.elector;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A trivial algorithm from the test tree, registered in {@code META-INF/services/io.bellwether.elector.Algorithm}:
 * the registry must list it after the built-in ones. Its spec is never run.
 */
public final class TestToyAlgorithm implements Algorithm {
    @Override
    public String name() {
        return "test-toy";
    }

    @Override
    public String summary() {
        return "A test plug-in.";
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of();
    }

    @Override
    public ElectorSpec configure(Map<String, Object> values, Environment environment) {
        Setting.applyAll(List.<Setting<Object>>of(), new Object(), values);
        return new ElectorSpec() {
            @Override
            public String algorithm() {
                return "test-toy";
            }

            @Override
            public Elector create(ElectorContext context) {
                throw new UnsupportedOperationException("the test plug-in is never run");
            }

            @Override
            public MessageCodec codec() {
                return MessageCodec.NONE;
            }
        };
    }

    @Override
    public List<Variant> variants() {
        return List.of(Variant.defaults("test-toy", Set.of(Trait.PEER_MESSAGES)));
    }

    @Override
    public boolean isKeepAlive(ElectorMessage message) {
        return false;
    }
}
