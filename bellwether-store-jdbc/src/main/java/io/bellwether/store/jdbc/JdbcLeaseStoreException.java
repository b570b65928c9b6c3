package io.bellwether.store.jdbc;

import io.bellwether.spi.LeaseStoreException;

/**
 * A {@link JdbcLeaseStore} operation failed. The message names the store (its {@link JdbcLeaseStore#describe()
 * description}, never a password), what went wrong and what to do about it. It adds nothing to {@link
 * LeaseStoreException} but its type, so a caller can catch a failure of this store alone.
 */
public class JdbcLeaseStoreException extends LeaseStoreException {
    private static final long serialVersionUID = 1L;

    public JdbcLeaseStoreException(String store, Problem problem, String message, Throwable cause) {
        super(store, problem, message, cause);
    }
}
