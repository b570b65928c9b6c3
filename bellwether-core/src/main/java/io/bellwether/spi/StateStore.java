package io.bellwether.spi;

import io.bellwether.elector.StoredState;

/**
 * Keeps what an elector must remember across restarts (terms, counters), one record per election group.
 * Implementations must make {@link #save} durable before returning and must never turn an unreadable record
 * into an empty one: {@link #load} either returns what was last saved or throws.
 *
 * <p>Thread-safe.
 */
public interface StateStore {
    /**
     * Returns the state last saved for {@code group}, or {@link StoredState#EMPTY} if none was ever saved.
     *
     * @throws StateStoreException if a record exists but cannot be read or is corrupt (the message names it)
     */
    StoredState load(String group);

    /**
     * Durably replaces the state of {@code group}.
     *
     * @throws StateStoreException if it could not be made durable; the previous state is then intact
     */
    void save(String group, StoredState state);

    /**
     * Whether {@link #save} waits for I/O (a disk's flush, a database): the runtime then saves off the election's
     * event loop, which many groups and the transport may share, and holds back whatever the elector sends after the
     * save until it has returned. Default true; a store that keeps its state in memory says false and is saved on
     * the loop.
     */
    default boolean blocks() {
        return true;
    }
}
