package io.bellwether;

/**
 * A fenced resource refused a write because its fencing token (a {@link Leadership#epoch()}) is lower than the
 * highest token the resource has already accepted: a newer leadership has written to it since, so this writer's
 * leadership is over, whatever it believes. Thrown by the fencing guards of the store modules ({@code
 * io.bellwether.store.jdbc.FencingGuard}, {@code io.bellwether.store.redis.RedisFencingGuard}); see {@code
 * docs/fencing.md}.
 *
 * <p>Unchecked, so that transaction managers that roll back on unchecked exceptions (Spring's default, for
 * instance) roll the write back without further configuration. The right reaction is to stop acting as leader:
 * roll back, and do not retry with the same token.
 */
public final class StaleTokenException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long offeredToken;
    private final long highestToken;

    /**
     * @param resource the fenced resource's name
     * @param offeredToken the token the write carried
     * @param highestToken the highest token the resource had accepted, greater than {@code offeredToken}
     */
    public StaleTokenException(String resource, long offeredToken, long highestToken) {
        super("stale fencing token for resource '" + resource + "': offered " + offeredToken
                + ", but the resource has already accepted " + highestToken
                + "; a newer leadership has written to it, so this one must stop (roll back, do not retry)");
        this.resource = resource;
        this.offeredToken = offeredToken;
        this.highestToken = highestToken;
    }

    /** The fenced resource's name. */
    public String resource() {
        return resource;
    }

    /** The token the refused write carried. */
    public long offeredToken() {
        return offeredToken;
    }

    /** The highest token the resource had accepted when it refused the write. */
    public long highestToken() {
        return highestToken;
    }
}
