package io.bellwether.spring;

/**
 * A {@code bellwether.*} property has a value the starter cannot use. The message names the property (with its
 * {@code bellwether.} prefix), the value and what is allowed; the application context does not start.
 */
public class BellwetherConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String property;

    /**
     * @param property the property at fault, e.g. {@code bellwether.lease.duration}
     * @param message the whole message, naming the property
     * @param cause the core builder's refusal, if any
     */
    public BellwetherConfigurationException(String property, String message, Throwable cause) {
        super(message, cause);
        this.property = property;
    }

    /** The property at fault, e.g. {@code bellwether.lease.duration}. */
    public String property() {
        return property;
    }
}
