package io.bellwether.store.redis;

import io.bellwether.spi.LeaseStoreException;
import java.util.Objects;

/**
 * A {@link RedisLeaseStore} operation failed. The message names the store (its {@link RedisLeaseStore#describe()
 * description}, never a password), what went wrong and what to do about it; {@link #problem()} classifies it
 * so a caller can report "unreachable" without parsing messages. Its {@link #kind()} is the same classification
 * in the store-independent {@link LeaseStoreException.Problem}.
 */
public class RedisLeaseStoreException extends LeaseStoreException {
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

    public RedisLeaseStoreException(String store, Problem problem, String message, Throwable cause) {
        super(store, shared(Objects.requireNonNull(problem, "problem")), message, cause);
        this.problem = problem;
    }

    /** The kind of failure. */
    public Problem problem() {
        return problem;
    }

    private static LeaseStoreException.Problem shared(Problem problem) {
        return switch (problem) {
            case UNREACHABLE -> LeaseStoreException.Problem.UNREACHABLE;
            case TIMEOUT -> LeaseStoreException.Problem.TIMEOUT;
            case CREDENTIALS -> LeaseStoreException.Problem.CREDENTIALS;
            case SCHEMA -> LeaseStoreException.Problem.SCHEMA;
            case CLOSED -> LeaseStoreException.Problem.CLOSED;
            case FAILED -> LeaseStoreException.Problem.FAILED;
        };
    }
}
