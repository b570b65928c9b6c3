package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseStoreException;
import java.util.Objects;

/**
 * A {@link JdbcLeaseStore} operation failed. The message names the store (its {@link JdbcLeaseStore#describe()
 * description}, never a password), what went wrong and what to do about it; {@link #problem()} classifies it
 * so a caller can report "unreachable" without parsing messages. Its {@link #kind()} is the same classification
 * in the store-independent {@link LeaseStoreException.Problem}.
 */
public class JdbcLeaseStoreException extends LeaseStoreException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure it was. */
    public enum Problem {
        /** The database could not be reached (refused, reset, no route): usually transient. */
        UNREACHABLE,
        /** The database did not answer within the request timeout: usually transient. */
        TIMEOUT,
        /** The database rejected the user or password, or the database named in the URL does not exist. */
        CREDENTIALS,
        /** The lease table is missing (and schema creation is off) or does not have the expected shape. */
        SCHEMA,
        /** The store was closed. */
        CLOSED,
        /** Anything else the database reported. */
        FAILED
    }

    private final Problem problem;

    public JdbcLeaseStoreException(String store, Problem problem, String message, Throwable cause) {
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
