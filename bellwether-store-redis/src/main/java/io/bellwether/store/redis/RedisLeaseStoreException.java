package io.bellwether.store.redis;

import java.util.Objects;

/**
 * A {@link RedisLeaseStore} operation failed. The message names the store (its {@link RedisLeaseStore#describe()
 * description}, never a password), what went wrong and what to do about it; {@link #problem()} classifies it
 * so a caller can report "unreachable" without parsing messages.
 */
public class RedisLeaseStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure it was. */
    public enum Problem {
        /** Redis could not be reached (refused, reset, no route): usually transient. */
        UNREACHABLE,
        /** Redis did not answer within the request timeout: usually transient. */
        TIMEOUT,
        /** Redis rejected the user or password. */
        CREDENTIALS,
        /** A lease key holds a value of another type (the key prefix collides with other data). */
        SCHEMA,
        /** The store was closed. */
        CLOSED,
        /** Anything else Redis reported. */
        FAILED
    }

    private final Problem problem;
    private final String store;

    public RedisLeaseStoreException(String store, Problem problem, String message, Throwable cause) {
        super("lease store " + store + ": " + message, cause);
        this.store = Objects.requireNonNull(store, "store");
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** The kind of failure. */
    public Problem problem() {
        return problem;
    }

    /** The description of the store that failed. */
    public String store() {
        return store;
    }

    /** Whether trying again later may succeed without anyone changing the configuration. */
    public boolean transientFailure() {
        return problem == Problem.UNREACHABLE || problem == Problem.TIMEOUT || problem == Problem.FAILED;
    }
}
