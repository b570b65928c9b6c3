package io.bellwether.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks and threads that {@link LeaseStore} implementations share, so that every store words its errors alike
 * and names its threads alike. Support for implementers; callers of a store never need it.
 */
public final class LeaseStoreSupport {
    /** The longest group or holder name a store must accept (and the longest it accepts). */
    public static final int MAX_NAME_LENGTH = 200;

    private LeaseStoreSupport() {}

    /**
     * Checks a group or holder name: 1 to {@link #MAX_NAME_LENGTH} characters.
     *
     * @param what how the error names the value ({@code "group"}, {@code "holder"})
     * @param store the store's description, for the error
     * @throws IllegalArgumentException naming the value, the store and what is allowed
     */
    public static void checkName(String what, String value, String store) {
        if (value == null || value.isEmpty() || value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must be 1 to " + MAX_NAME_LENGTH + " characters, got "
                    + (value == null ? "null" : "'" + value + "'") + " (store " + store + ")");
        }
    }

    /**
     * Checks the arguments of {@link LeaseStore#acquireOrRenew}: the group and the holder as {@link #checkName}
     * does, and a lease duration of at least 1 ms.
     *
     * @param store the store's description, for the error
     * @throws IllegalArgumentException naming the value, the store and what is allowed
     */
    public static void checkAcquireOrRenew(String group, String holder, Duration duration, String store) {
        checkName("group", group, store);
        checkName("holder", holder, store);
        if (duration == null || duration.toMillis() <= 0) {
            throw new IllegalArgumentException(
                    "lease duration must be at least 1 ms, got " + duration + " (store " + store + ")");
        }
    }

    /**
     * Returns {@code value} if it is a usable request timeout for a store operation: 100 ms to 60 s.
     *
     * @throws IllegalArgumentException naming the value and the range
     */
    public static Duration requestTimeout(Duration value) {
        if (value == null || value.toMillis() < 100 || value.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("request timeout must be 100 ms to 60 s, got " + value);
        }
        return value;
    }

    /**
     * Daemon threads named {@code <prefix>-1}, {@code <prefix>-2}, ...: a store's threads must never keep the
     * JVM alive after the application is done.
     */
    public static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * A store that talks to nothing: every operation's stage fails with {@link UnsupportedOperationException}.
     * It stands in where a lease configuration must be built (its values checked, its defaults read) but no
     * election will run on it.
     *
     * @param description what {@link LeaseStore#describe()} says
     */
    public static LeaseStore placeholder(String description) {
        return new Placeholder(description);
    }

    private record Placeholder(String describe) implements LeaseStore {
        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            return unsupported();
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return unsupported();
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            return unsupported();
        }

        @Override
        public void close() {}

        private <T> CompletionStage<T> unsupported() {
            return CompletableFuture.failedFuture(
                    new UnsupportedOperationException(describe + ": a placeholder store, not for elections"));
        }
    }
}
