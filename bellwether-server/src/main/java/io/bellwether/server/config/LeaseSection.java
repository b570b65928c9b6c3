package io.bellwether.server.config;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Environment;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.spi.LeaseStoreSupport;
import io.bellwether.store.jdbc.JdbcLeaseStore;
import io.bellwether.store.redis.RedisLeaseStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads the section of an algorithm that elects through a store ({@code lease:} for {@code algorithm: lease}):
 * the store's address and credentials, the node's own keys, and the algorithm's timings, read by
 * {@link AlgorithmSection} and checked by the algorithm against a stand-in store.
 */
final class LeaseSection {
    private static final List<String> STORE_KEYS = List.of("store", "table", "key-prefix", "create-schema");
    private static final List<String> CREDENTIAL_KEYS = List.of("username", "password-file");
    static final String STORES_ALLOWED = "a JDBC URL (jdbc:postgresql://host:port/db?user=..., jdbc:mariadb://...,"
            + " jdbc:mysql://..., jdbc:h2:...) or a Redis URI (redis://host:port[/db], rediss://...)";
    private static final List<String> SQL_STORES =
            List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:h2:");
    private static final Pattern SQL_TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
    private static final String TABLE_ALLOWED = "an SQL table name: letters, digits and '_', not starting with a"
            + " digit, optionally schema.table, at most 63 characters";
    private static final String KEY_PREFIX_ALLOWED = "1 to 100 characters without whitespace";
    private static final String USERNAME_ALLOWED = "the store's user name, 1 to 128 characters without whitespace";
    private static final String PASSWORD_FILE_ALLOWED = "the path of a readable file holding the store's password"
            + " (UTF-8, at most " + LeaseCredentials.MAX_PASSWORD_BYTES + " bytes, not empty; trailing newlines are"
            + " ignored)";

    private final ConfigValues l;
    private final Algorithm algorithm;
    private String store;
    private boolean redis;

    private LeaseSection(ConfigValues l, Algorithm algorithm) {
        this.l = l;
        this.algorithm = algorithm;
    }

    /** Every key of {@code algorithm}'s section: the store's, the algorithm's settings, the credentials. */
    static List<String> keys(Algorithm algorithm) {
        List<String> keys = new ArrayList<>(STORE_KEYS);
        keys.addAll(AlgorithmSection.keys(algorithm));
        keys.addAll(CREDENTIAL_KEYS);
        return List.copyOf(keys);
    }

    /**
     * The lease settings; null after a problem.
     *
     * @param algorithm the algorithm, which names the section
     * @param group the election group, the lease's name
     */
    static LeaseSettings read(ConfigValues top, Algorithm algorithm, String group) {
        String key = algorithm.name();
        if (!top.given(key)) {
            top.error(key + " is missing: with algorithm " + key + ", allowed a mapping with at least store ("
                    + STORES_ALLOWED
                    + "), e.g. lease: {store: 'jdbc:postgresql://127.0.0.1:5432/app?user=app', create-schema: true}");
            return null;
        }
        ConfigValues l = top.section(key, "a mapping of the keys " + String.join(", ", keys(algorithm)));
        return l == null ? null : new LeaseSection(l, algorithm).settings(top, group);
    }

    private LeaseSettings settings(ConfigValues top, String group) {
        int before = top.errorCount();
        l.unknownKeys(keys(algorithm));
        store();
        Optional<String> table = table();
        Optional<String> keyPrefix = keyPrefix();
        boolean createSchema = createSchema();
        Optional<String> username = username();
        Optional<String> password = password();
        if (redis && username.isPresent() && password.isEmpty() && !l.has("password-file")) {
            l.error("lease.username = '" + username.get() + "' is given without lease.password-file: for Redis,"
                    + " allowed only with a password (Redis authenticates a user by its password)");
        }

        // The timings are checked by the algorithm, against a stand-in store, so that the node's messages and the
        // library's agree; the real store is built only when the node starts.
        LeaseConfig c = (LeaseConfig) AlgorithmSection.configure(
                l,
                algorithm,
                new Environment(
                        group == null ? NodeConfig.DEFAULT_GROUP : group,
                        LeaseStoreSupport.placeholder("(validation only)"),
                        null),
                before);
        if (c == null || store == null) {
            return null;
        }
        if (!redis && table.isEmpty()) {
            table = Optional.of(JdbcLeaseStore.DEFAULT_TABLE);
        }
        if (redis && keyPrefix.isEmpty()) {
            keyPrefix = Optional.of(RedisLeaseStore.DEFAULT_KEY_PREFIX);
        }
        return new LeaseSettings(
                store,
                table,
                keyPrefix,
                createSchema,
                c.duration(),
                c.renewInterval(),
                c.renewDeadline(),
                c.retry(),
                c.requestTimeout(),
                c.maxClockDrift(),
                c.validityMargin(),
                c.priority(),
                username,
                password.map(LeaseSettings.Password::new));
    }

    /** {@code lease.store}: sets {@link #store} (null after a problem) and {@link #redis}. */
    private void store() {
        if (!l.given("store")) {
            l.error("lease.store is missing: allowed " + STORES_ALLOWED);
        } else {
            store = l.text("store", STORES_ALLOWED);
            if (store != null
                    && !LeaseSettings.isRedis(store)
                    && SQL_STORES.stream().noneMatch(store.toLowerCase(Locale.ROOT)::startsWith)) {
                l.error("lease.store = '" + LeaseSettings.redact(store) + "' is not a supported store: allowed "
                        + STORES_ALLOWED);
                store = null;
            }
        }
        redis = store != null && LeaseSettings.isRedis(store);
    }

    private Optional<String> table() {
        String text = l.text("table", TABLE_ALLOWED);
        if (text != null && redis) {
            l.error("lease.table = '" + text + "' applies to SQL stores only: for Redis, allowed lease.key-prefix"
                    + " (e.g. key-prefix: 'bellwether:lease:')");
        } else if (text != null && (!SQL_TABLE.matcher(text).matches() || text.length() > 63)) {
            l.invalid("table", text, TABLE_ALLOWED);
        } else if (text != null) {
            return Optional.of(text);
        }
        return Optional.empty();
    }

    private Optional<String> keyPrefix() {
        String text = l.text("key-prefix", KEY_PREFIX_ALLOWED);
        if (text != null && store != null && !redis) {
            l.error("lease.key-prefix = '" + text + "' applies to Redis only: for SQL stores, allowed"
                    + " lease.table (e.g. table: bellwether_lease)");
        } else if (text != null && (text.isEmpty() || text.length() > 100 || !text.matches("\\S+"))) {
            l.invalid("key-prefix", text, KEY_PREFIX_ALLOWED);
        } else if (text != null) {
            return Optional.of(text);
        }
        return Optional.empty();
    }

    private boolean createSchema() {
        Boolean value = l.bool("create-schema");
        if (value == null) {
            return false;
        }
        if (redis && value) {
            l.error("lease.create-schema = true applies to SQL stores only: Redis needs no schema, allowed"
                    + " false or leave it out");
            return false;
        }
        return value;
    }

    private Optional<String> username() {
        String text = l.text("username", USERNAME_ALLOWED);
        if (text == null) {
            return Optional.empty();
        }
        if (text.isEmpty() || text.length() > 128 || !text.matches("\\S+")) {
            l.invalid("username", text, USERNAME_ALLOWED);
            return Optional.empty();
        }
        if (store != null && LeaseCredentials.userIn(store)) {
            l.error("lease.username = '" + text + "' is given but lease.store = '" + LeaseSettings.redact(store)
                    + "' names a user too: allowed one of them (remove the user from the store's "
                    + (redis ? "URI" : "URL") + ", or leave lease.username out)");
            return Optional.empty();
        }
        return Optional.of(text);
    }

    /** {@code lease.password-file}: the password, read now so that a missing or empty file stops the node here. */
    private Optional<String> password() {
        String text = l.text("password-file", PASSWORD_FILE_ALLOWED);
        if (text == null) {
            return Optional.empty();
        }
        LeaseCredentials.Read read = LeaseCredentials.passwordFile(l.path(text));
        if (read.problem() != null) {
            l.error("lease.password-file = '" + text + "' " + read.problem() + ": allowed " + PASSWORD_FILE_ALLOWED);
            return Optional.empty();
        }
        if (store != null && LeaseCredentials.passwordIn(store)) {
            l.error("lease.password-file = '" + text + "' is given but lease.store = '" + LeaseSettings.redact(store)
                    + "' carries a password too: allowed one of them (remove the password from the store's address)");
            return Optional.empty();
        }
        return Optional.of(read.password());
    }
}
