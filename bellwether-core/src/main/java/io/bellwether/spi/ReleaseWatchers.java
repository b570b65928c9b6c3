package io.bellwether.spi;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callbacks of {@link LeaseStore#watchReleases}, by key (a group, or the channel a store announces its
 * releases on), for a store that pushes releases. Thread-safe. Callbacks run on the store's executor; one that
 * throws is logged and the others still run; once the executor is shut down, wakes are dropped. Support for
 * implementers.
 */
public final class ReleaseWatchers {
    private static final Logger log = LoggerFactory.getLogger(ReleaseWatchers.class);

    private final Map<String, Set<Watcher>> watchers = new ConcurrentHashMap<>();
    private final Executor callbacks;

    /** @param callbacks where callbacks run: the store's thread, never a caller's */
    public ReleaseWatchers(Executor callbacks) {
        this.callbacks = callbacks;
    }

    /** Registers {@code onRelease} under {@code key}; registering one callback twice makes two watchers. */
    public Watcher add(String key, Runnable onRelease) {
        Watcher w = new Watcher(onRelease);
        watchers.computeIfAbsent(key, k -> new CopyOnWriteArraySet<>()).add(w);
        return w;
    }

    /**
     * Removes {@code watcher} from {@code key}.
     *
     * @return whether that left {@code key} without watchers, so the store may stop listening on it
     */
    public boolean remove(String key, Watcher watcher) {
        boolean[] last = {false};
        watchers.computeIfPresent(key, (k, set) -> {
            last[0] = set.remove(watcher) && set.isEmpty();
            return set.isEmpty() ? null : set;
        });
        return last[0];
    }

    /** Whether no key has a watcher. */
    public boolean isEmpty() {
        return watchers.isEmpty();
    }

    /** The keys with watchers, for a store resubscribing after a reconnection. */
    public Set<String> keys() {
        return watchers.keySet();
    }

    /** Calls every watcher of {@code key} (none if it has none). */
    public void wake(String key) {
        Set<Watcher> set = watchers.get(key);
        if (set != null) {
            set.forEach(this::wake);
        }
    }

    /** Calls every watcher of every key: after a (re)connection, when a release may have been missed. */
    public void wakeAll() {
        watchers.values().forEach(set -> set.forEach(this::wake));
    }

    /** Calls {@code watcher}: once, when its registration comes into force. */
    public void wake(Watcher watcher) {
        try {
            callbacks.execute(watcher::run);
        } catch (RejectedExecutionException e) {
            // the store is closed
        }
    }

    /** One registration; identity-based so that one callback may be registered twice. */
    public static final class Watcher {
        private final Runnable onRelease;

        private Watcher(Runnable onRelease) {
            this.onRelease = onRelease;
        }

        private void run() {
            try {
                onRelease.run();
            } catch (RuntimeException e) {
                log.warn("release watcher failed", e);
            }
        }
    }
}
