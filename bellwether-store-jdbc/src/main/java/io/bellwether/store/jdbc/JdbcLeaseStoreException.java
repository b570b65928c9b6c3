package io.bellwether.store.jdbc;

import java.util.Objects;

/**
 * A {@link JdbcLeaseStore} operation failed. The message names the store (its {@link JdbcLeaseStore#describe()
 * description}, never a password), what went wrong and what to do about it; {@link #problem()} classifies it
 * so a caller can report "unreachable" without parsing messages.
 */
public class JdbcLeaseStoreException extends RuntimeException {
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
    private final String store;

    public JdbcLeaseStoreException(String store, Problem problem, String message, Throwable cause) {
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
