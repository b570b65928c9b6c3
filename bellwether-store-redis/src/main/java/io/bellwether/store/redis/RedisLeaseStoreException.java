package io.bellwether.store.redis;

import io.bellwether.spi.LeaseStoreException;

/**
 * A {@link RedisLeaseStore} operation failed. The message names the store (its {@link RedisLeaseStore#describe()
 * description}, never a password), what went wrong and what to do about it. It adds nothing to {@link
 * LeaseStoreException} but its type, so a caller can catch a failure of this store alone.
 */
public class RedisLeaseStoreException extends LeaseStoreException {
    private static final long serialVersionUID = 1L;

    public RedisLeaseStoreException(String store, Problem problem, String message, Throwable cause) {
        super(store, problem, message, cause);
    }
}
