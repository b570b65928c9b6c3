package io.bellwether.spi;

/**
 * Checks that the fencing guards of the store modules share ({@code io.bellwether.store.jdbc.FencingGuard},
 * {@code io.bellwether.store.redis.RedisFencingGuard}), so that they accept the same resources and tokens and word
 * their errors alike. Support for implementers; users of a guard never need it.
 */
public final class FencingSupport {
    /** The longest resource name a guard accepts, in characters. */
    public static final int MAX_RESOURCE_LENGTH = 200;

    private FencingSupport() {}

    /**
     * Checks a resource name: not blank, at most {@link #MAX_RESOURCE_LENGTH} characters.
     *
     * @throws IllegalArgumentException naming the value and what is allowed
     */
    public static void checkResource(String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("fencing resource must be a non-blank name, got "
                    + (resource == null ? null : "'" + resource + "'"));
        }
        if (resource.length() > MAX_RESOURCE_LENGTH) {
            throw new IllegalArgumentException("fencing resource must be at most " + MAX_RESOURCE_LENGTH
                    + " characters, got " + resource.length() + " ('" + resource.substring(0, 40) + "...')");
        }
    }

    /**
     * Checks a guarded write's resource ({@link #checkResource}) and token (a leadership's epoch: not negative).
     *
     * @throws IllegalArgumentException naming the value and what is allowed
     */
    public static void checkWrite(String resource, long token) {
        checkResource(resource);
        if (token < 0) {
            throw new IllegalArgumentException(
                    "fencing token for resource '" + resource + "' must not be negative, got " + token);
        }
    }
}
