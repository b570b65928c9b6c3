package io.bellwether.elector;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * An {@link Algorithm} whose configuration goes through a builder, as every built-in one's does: its name,
 * summary, settings and variants are fixed at construction, and {@link #configure} applies the values to a fresh
 * builder through the settings, then builds. Its keep-alive messages are a set of classes given at construction;
 * subclasses add {@link #epochRankBits} or {@link #counterField} where they differ from the defaults.
 *
 * @param <B> the configuration builder
 * @param <S> the specification it builds
 */
public abstract class AbstractAlgorithm<B, S extends ElectorSpec> implements Algorithm {
    private final String name;
    private final String summary;
    private final List<Setting<B>> settings;
    private final List<Variant> variants;
    private final Set<Class<?>> keepAlive;
    private final Function<Environment, B> builder;
    private final Function<B, S> build;

    /** An algorithm none of whose messages is a keep-alive, see the full constructor. */
    protected AbstractAlgorithm(
            String name,
            String summary,
            List<Setting<B>> settings,
            List<Variant> variants,
            Function<Environment, B> builder,
            Function<B, S> build) {
        this(name, summary, settings, variants, Set.of(), builder, build);
    }

    /**
     * @param name see {@link #name()}
     * @param summary see {@link #summary()}
     * @param settings see {@link #settings()}, each applied to the builder
     * @param variants see {@link #variants()}: the first named {@code name}, changing nothing
     * @param keepAlive the message classes (records, so final) that {@link #isKeepAlive} is true for
     * @param builder a fresh builder with the defaults and what it needs from the environment
     * @param build checks the builder's values together and builds
     */
    protected AbstractAlgorithm(
            String name,
            String summary,
            List<Setting<B>> settings,
            List<Variant> variants,
            Set<Class<? extends ElectorMessage>> keepAlive,
            Function<Environment, B> builder,
            Function<B, S> build) {
        this.keepAlive = Set.copyOf(keepAlive);
        this.name = Objects.requireNonNull(name, "name");
        this.summary = Objects.requireNonNull(summary, "summary");
        this.settings = List.copyOf(settings);
        this.variants = List.copyOf(variants);
        this.builder = Objects.requireNonNull(builder, "builder");
        this.build = Objects.requireNonNull(build, "build");
        if (this.variants.isEmpty()
                || !this.variants.get(0).name().equals(name)
                || !this.variants.get(0).settings().isEmpty()) {
            throw new IllegalArgumentException(
                    name + ": the first variant must be named like the algorithm and change nothing");
        }
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String summary() {
        return summary;
    }

    @Override
    public final List<Setting<?>> settings() {
        return List.copyOf(settings);
    }

    @Override
    public final List<Variant> variants() {
        return variants;
    }

    /**
     * {@inheritDoc} Applies the value to a builder made for a group of no name and no store; an algorithm whose
     * builder needs a store overrides this.
     */
    @Override
    public void check(String key, Object value) {
        Setting.applyAll(settings, builder.apply(Environment.of("")), Map.of(key, value));
    }

    /** {@inheritDoc} Whether its class is one of the keep-alive classes given at construction. */
    @Override
    public boolean isKeepAlive(ElectorMessage message) {
        return message != null && keepAlive.contains(message.getClass());
    }

    @Override
    public final S configure(Map<String, Object> values, Environment environment) {
        return build.apply(Setting.applyAll(settings, builder.apply(environment), values));
    }
}
