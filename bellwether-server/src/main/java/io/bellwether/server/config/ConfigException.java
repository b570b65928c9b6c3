package io.bellwether.server.config;

import java.util.List;

/** A configuration file that cannot be used; {@link #errors()} lists every problem found, one per entry. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    public ConfigException(String source, List<String> errors) {
        super(source + ": " + errors.size() + " configuration error" + (errors.size() == 1 ? "" : "s") + ":\n  "
                + String.join("\n  ", errors));
        this.errors = List.copyOf(errors);
    }

    /** Each problem, naming the key, the value and what is allowed. */
    public List<String> errors() {
        return errors;
    }
}
