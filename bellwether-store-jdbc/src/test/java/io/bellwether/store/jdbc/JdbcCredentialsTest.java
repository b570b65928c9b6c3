package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStoreException.Problem;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Credentials given to the builder rather than in the URL: what reaches HikariCP, that they are never shown, and
 * that they authenticate, against an in-memory H2 database created with a password of its own (PostgreSQL here
 * trusts every local connection, so it could not tell a right password from a wrong one).
 */
class JdbcCredentialsTest {
    private static final String PASSWORD = "pw-" + UUID.randomUUID();

    @Test
    void aUserAndPasswordGivenApartReachTheConnectionPoolAndAreNeverShown() {
        try (JdbcLeaseStore store = JdbcLeaseStore.builder()
                .url("jdbc:postgresql://127.0.0.1:5432/test")
                .user("app")
                .password(PASSWORD)
                .build()) {
            assertThat(store.poolConfig().getUsername()).isEqualTo("app");
            assertThat(store.poolConfig().getPassword()).isEqualTo(PASSWORD);
            assertThat(store.poolConfig().getJdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
            assertThat(store.describe()).doesNotContain(PASSWORD);
        }
    }

    @Test
    void aPasswordInTheUrlIsNeverShown() {
        try (JdbcLeaseStore store = JdbcLeaseStore.builder()
                .url("jdbc:postgresql://app:" + PASSWORD + "@127.0.0.1:5432/test?password=" + PASSWORD)
                .build()) {
            assertThat(store.describe()).isEqualTo("postgresql 127.0.0.1:5432/test table bellwether_lease");
        }
    }

    @Test
    void aPasswordGivenApartAuthenticatesAgainstAProtectedDatabase() throws Exception {
        String db = "jdbc:h2:mem:bw_" + UUID.randomUUID().toString().replace("-", "");
        // The first connection creates the database with this user and password; later ones must match.
        try (Connection keepAlive = DriverManager.getConnection(db + ";USER=owner;PASSWORD=" + PASSWORD)) {
            try (JdbcLeaseStore store = JdbcLeaseStore.builder()
                    .url(db)
                    .user("owner")
                    .password(PASSWORD)
                    .createSchema(true)
                    .build()) {
                LeaseRecord r = store.acquireOrRenew("g", "a", 0, Duration.ofSeconds(5))
                        .toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
                assertThat(r.holder()).isEqualTo("a");
                assertThat(r.token()).isEqualTo(1);
            }
            try (JdbcLeaseStore store = JdbcLeaseStore.builder()
                    .url(db)
                    .user("owner")
                    .password("not-" + PASSWORD)
                    .createSchema(true)
                    .build()) {
                ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                        ExecutionException.class, () -> store.acquireOrRenew("g", "b", 0, Duration.ofSeconds(5))
                                .toCompletableFuture()
                                .get(30, TimeUnit.SECONDS));
                assertThat(e.getCause()).isInstanceOf(JdbcLeaseStoreException.class);
                assertThat(((JdbcLeaseStoreException) e.getCause()).problem()).isEqualTo(Problem.CREDENTIALS);
                assertThat(e.getCause().getMessage()).doesNotContain(PASSWORD);
            }
        }
    }
}
