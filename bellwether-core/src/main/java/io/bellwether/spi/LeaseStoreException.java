package io.bellwether.spi;

import java.util.Objects;

/**
 * A {@link LeaseStore} operation failed. Stores complete their stages exceptionally with a subclass of this
 * (JDBC, Redis), so that callers such as the node daemon can tell "the database is down, keep trying" from "the
 * password is wrong, someone must act" without knowing the store. The message names the store (its {@link
 * LeaseStore#describe() description}, never a password), what went wrong and what to do about it.
 */
public class LeaseStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure it was, for every store. */
    public enum Problem {
        /** The store could not be reached (refused, reset, no route): usually transient. */
        UNREACHABLE,
        /** The store did not answer within the request timeout: usually transient. */
        TIMEOUT,
        /** The store rejected the user or password, or the database named in the address does not exist. */
        CREDENTIALS,
        /** The lease's table or keys are missing or have the wrong shape. */
        SCHEMA,
        /** The store was closed. */
        CLOSED,
        /** Anything else the store reported. */
        FAILED
    }

    private final Problem kind;
    private final String store;

    /**
     * @param store the store's description (never a password)
     * @param kind the kind of failure
     * @param message what went wrong and what to do; the full message is {@code "lease store <store>: <message>"}
     */
    public LeaseStoreException(String store, Problem kind, String message, Throwable cause) {
        super("lease store " + Objects.requireNonNull(store, "store") + ": " + message, cause);
        this.store = store;
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** The kind of failure, in the store-independent classification. */
    public Problem kind() {
        return kind;
    }

    /** {@link #kind()} by the older name the JDBC and Redis stores' exceptions have always offered. */
    public Problem problem() {
        return kind;
    }

    /** The description of the store that failed. */
    public String store() {
        return store;
    }

    /**
     * Whether trying again later may succeed without anyone changing the configuration: true for {@link
     * Problem#UNREACHABLE}, {@link Problem#TIMEOUT} and {@link Problem#FAILED}.
     */
    public boolean transientFailure() {
        return kind == Problem.UNREACHABLE || kind == Problem.TIMEOUT || kind == Problem.FAILED;
    }
}
