package io.bellwether.server.config;

import io.bellwether.lease.LeaseConfig;
import io.bellwether.spi.LeaseStore;
import java.time.Duration;
import java.util.Optional;

/**
 * The validated {@code lease:} section of a node's configuration ({@code algorithm: lease}): where the lease lives
 * and the lease elector's timings, with every default filled in. The store itself is built by the node daemon,
 * not here, so that reading a configuration never opens a connection.
 *
 * @param store the store's address: a JDBC URL ({@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code
 *     jdbc:mysql:}, {@code jdbc:h2:}) or a Redis URI ({@code redis://}, {@code rediss://}); it may carry a password,
 *     so {@link #toString()} never shows it
 * @param table the SQL table (SQL stores only; empty for Redis)
 * @param keyPrefix the key prefix (Redis only; empty for SQL stores)
 * @param createSchema whether an SQL store creates its table if it is missing
 * @param duration {@code lease.duration}
 * @param renewInterval {@code lease.renew-interval}
 * @param renewDeadline {@code lease.renew-deadline}
 * @param retry {@code lease.retry}
 * @param requestTimeout {@code lease.request-timeout}, also the store's own bound on each operation
 * @param maxClockDrift {@code lease.max-clock-drift}
 * @param validityMargin {@code lease.validity-margin}
 * @param priority {@code lease.priority}
 * @param username {@code lease.username}, the store's user, if given apart from the address
 * @param password the password read from {@code lease.password-file}, if given; its {@code toString()} hides it
 */
public record LeaseSettings(
        String store,
        Optional<String> table,
        Optional<String> keyPrefix,
        boolean createSchema,
        Duration duration,
        Duration renewInterval,
        Duration renewDeadline,
        Duration retry,
        Duration requestTimeout,
        double maxClockDrift,
        Duration validityMargin,
        int priority,
        Optional<String> username,
        Optional<Password> password) {

    /** A store password; {@link #toString()} never shows it, so no log line or message can by accident. */
    public record Password(String value) {
        @Override
        public String toString() {
            return "(not shown)";
        }
    }

    /** Whether the store is Redis (else SQL over JDBC). */
    public boolean redis() {
        return isRedis(store);
    }

    static boolean isRedis(String store) {
        return store.startsWith("redis://") || store.startsWith("rediss://");
    }

    /** The lease elector's configuration over {@code leaseStore} (the lease is named after the election's group). */
    public LeaseConfig leaseConfig(LeaseStore leaseStore) {
        return timings(LeaseConfig.builder().store(leaseStore)).build();
    }

    LeaseConfig.Builder timings(LeaseConfig.Builder b) {
        return b.duration(duration)
                .renewInterval(renewInterval)
                .renewDeadline(renewDeadline)
                .retry(retry)
                .requestTimeout(requestTimeout)
                .maxClockDrift(maxClockDrift)
                .validityMargin(validityMargin)
                .priority(priority);
    }

    /** The store's address with any password replaced by {@code ***}. */
    public String redactedStore() {
        return redact(store);
    }

    static String redact(String address) {
        if (isRedis(address)) {
            // redis://[[user:]password@]host: whatever precedes the host may be a password.
            return address.replaceAll("//[^/@]*@", "//***@");
        }
        return address.replaceAll("(?i)(password\\s*=)[^&;]*", "$1***")
                .replaceAll("//([^/@?;]*?):([^/@?;]*)@", "//$1:***@");
    }

    @Override
    public String toString() {
        return "LeaseSettings{store=" + redactedStore() + ", table=" + table.orElse("-") + ", key-prefix="
                + keyPrefix.orElse("-") + ", create-schema=" + createSchema + ", duration=" + Durations.format(duration)
                + ", renew-interval=" + Durations.format(renewInterval) + ", renew-deadline="
                + Durations.format(renewDeadline) + ", retry=" + Durations.format(retry) + ", request-timeout="
                + Durations.format(requestTimeout) + ", max-clock-drift=" + maxClockDrift + ", validity-margin="
                + Durations.format(validityMargin) + (priority != 0 ? ", priority=" + priority : "") + ", username="
                + username.orElse("-") + ", password="
                + password.map(p -> "(from lease.password-file, not shown)").orElse("-") + "}";
    }
}
