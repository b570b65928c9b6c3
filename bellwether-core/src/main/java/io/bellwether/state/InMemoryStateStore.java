package io.bellwether.state;

import io.bellwether.elector.StoredState;
import io.bellwether.spi.StateStore;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps state in memory only: it does <strong>not</strong> survive a restart of the process. Use it in tests,
 * or when embedding where every member that restarts also gets a new identity. A quorum member that forgets
 * its term across a restart can vote twice in one term; use {@link FileStateStore} otherwise.
 *
 * <p>Thread-safe.
 */
public final class InMemoryStateStore implements StateStore {
    private final Map<String, StoredState> states = new ConcurrentHashMap<>();

    /** An empty store: every group starts from {@link StoredState#EMPTY}. */
    public InMemoryStateStore() {}

    @Override
    public StoredState load(String group) {
        Objects.requireNonNull(group, "group");
        return states.getOrDefault(group, StoredState.EMPTY);
    }

    /** False: a save is a map update, done on the election's loop. */
    @Override
    public boolean blocks() {
        return false;
    }

    @Override
    public void save(String group, StoredState state) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(state, "state");
        states.put(group, state);
    }

    @Override
    public String toString() {
        return "InMemoryStateStore" + states;
    }
}
