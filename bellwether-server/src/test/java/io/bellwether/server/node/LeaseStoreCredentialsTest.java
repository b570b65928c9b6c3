package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.LeaseSettings;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.store.jdbc.JdbcLeaseStoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node builds its lease store with {@code lease.username} and the password of {@code lease.password-file}:
 * against an H2 database created with a password of its own, the store gets in with them and not without.
 */
class LeaseStoreCredentialsTest {
    private static final String PASSWORD = "pw-" + UUID.randomUUID();

    @TempDir
    Path dir;

    private LeaseSettings settings(String store, String credentials) throws Exception {
        String yaml = "cluster: c\nnode: n1\nalgorithm: lease\nhttp: 127.0.0.1:8101\nlease:\n  store: '" + store
                + "'\n  create-schema: true\n" + credentials.indent(2);
        return ConfigLoader.parse(yaml, dir, "test.yaml").lease().orElseThrow();
    }

    private static LeaseRecord acquire(LeaseStore store) throws Exception {
        return store.acquireOrRenew("g", "n1", 0, Duration.ofSeconds(5))
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void theUserAndThePasswordFileReachTheStore() throws Exception {
        Files.writeString(dir.resolve("pw"), PASSWORD + "\n");
        String db = "jdbc:h2:mem:bw_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection keepAlive = DriverManager.getConnection(db + ";USER=owner;PASSWORD=" + PASSWORD)) {
            try (LeaseStore store = NodeDaemon.buildStore(settings(db, "username: owner\npassword-file: ./pw\n"))) {
                assertThat(acquire(store).token()).isEqualTo(1);
                assertThat(store.describe()).doesNotContain(PASSWORD);
            }
            try (LeaseStore store = NodeDaemon.buildStore(settings(db, "username: owner\n"))) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> acquire(store));
                assertThat(e.getCause()).isInstanceOf(JdbcLeaseStoreException.class);
                assertThat(((JdbcLeaseStoreException) e.getCause()).problem())
                        .isEqualTo(JdbcLeaseStoreException.Problem.CREDENTIALS);
            }
        }
    }
}
