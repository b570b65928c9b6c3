package io.bellwether.elector;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * One key of an algorithm's configuration section: its name as written in configuration files, its kind, what
 * is allowed, what it means, and how it is applied to the algorithm's builder {@code B}. Loaders (the node's
 * YAML, Spring properties) read a value of the key's {@link Kind} and hand it to {@link Algorithm#configure};
 * the builder checks ranges and relations and names the key in its errors.
 *
 * @param key the key, lower case with dashes, e.g. {@code heartbeat-interval}
 * @param kind the type of its value
 * @param allowed what is allowed, for messages and docs, e.g. {@code "1 ms to 1 h"}
 * @param description what it means, with its default, for docs and IDE metadata
 * @param apply sets the value on the builder
 * @param <B> the algorithm's configuration builder
 */
public record Setting<B>(String key, Kind kind, String allowed, String description, BiConsumer<B, Object> apply) {
    /** The type of a setting's value. */
    public enum Kind {
        /** A {@link Duration}. */
        DURATION(Duration.class),
        /** A whole number, an {@link Integer}. */
        INTEGER(Integer.class),
        /** A number with a fraction, a {@link Double}. */
        DECIMAL(Double.class),
        /** {@code true} or {@code false}, a {@link Boolean}. */
        BOOLEAN(Boolean.class),
        /** Text, a {@link String}. */
        TEXT(String.class);

        private final Class<?> type;

        Kind(Class<?> type) {
            this.type = type;
        }

        /** The Java type of its values. */
        public Class<?> type() {
            return type;
        }
    }

    public Setting {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(allowed, "allowed");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(apply, "apply");
    }

    /** A duration setting. */
    public static <B> Setting<B> duration(
            String key, String allowed, String description, BiConsumer<B, Duration> setter) {
        return new Setting<>(key, Kind.DURATION, allowed, description, (b, v) -> setter.accept(b, (Duration) v));
    }

    /** A whole-number setting. */
    public static <B> Setting<B> integer(
            String key, String allowed, String description, BiConsumer<B, Integer> setter) {
        return new Setting<>(key, Kind.INTEGER, allowed, description, (b, v) -> setter.accept(b, (Integer) v));
    }

    /** A setting that is a number with a fraction. */
    public static <B> Setting<B> decimal(String key, String allowed, String description, BiConsumer<B, Double> setter) {
        return new Setting<>(key, Kind.DECIMAL, allowed, description, (b, v) -> setter.accept(b, (Double) v));
    }

    /** A text setting. */
    public static <B> Setting<B> text(String key, String allowed, String description, BiConsumer<B, String> setter) {
        return new Setting<>(key, Kind.TEXT, allowed, description, (b, v) -> setter.accept(b, (String) v));
    }

    /** A true-or-false setting. */
    public static <B> Setting<B> flag(String key, String description, BiConsumer<B, Boolean> setter) {
        return new Setting<>(key, Kind.BOOLEAN, "true or false", description, (b, v) -> setter.accept(b, (Boolean) v));
    }

    /**
     * A duration setting whose builder accepts {@code min} to {@code max}: its allowed text is the range as the
     * builder's own error states it ({@code 1ms to 60000ms}).
     */
    public static <B> Setting<B> duration(
            String key, Duration min, Duration max, String description, BiConsumer<B, Duration> setter) {
        return duration(key, min.toMillis() + "ms to " + max.toMillis() + "ms", description, setter);
    }

    /**
     * Applies {@code values} to {@code builder} through {@code settings}, in the order of {@code settings} (so
     * that of two bad values the same one is always reported), and returns the builder.
     *
     * @throws IllegalArgumentException for a key none of {@code settings} has, or a value not of its kind or
     *     refused by the builder, naming the key
     */
    public static <B> B applyAll(List<Setting<B>> settings, B builder, Map<String, Object> values) {
        List<String> keys = settings.stream().map(Setting::key).toList();
        for (String key : values.keySet()) {
            if (!keys.contains(key)) {
                throw new IllegalArgumentException(key + " is unknown: allowed " + String.join(", ", keys));
            }
        }
        for (Setting<B> setting : settings) {
            if (values.containsKey(setting.key)) {
                setting.applyTo(builder, values.get(setting.key));
            }
        }
        return builder;
    }

    /**
     * Sets {@code value} on {@code builder}.
     *
     * @throws IllegalArgumentException if {@code value} is not of this setting's kind, or the builder refuses it
     */
    public void applyTo(B builder, Object value) {
        if (!kind.type.isInstance(value)) {
            throw new IllegalArgumentException(key + " = '" + value + "' is invalid: allowed " + allowed);
        }
        apply.accept(builder, value);
    }
}
