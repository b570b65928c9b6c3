package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.lease.LeaseConfig;
import io.bellwether.spi.LeaseStoreSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code algorithm: lease} configuration: the {@code lease:} section and what lease mode makes optional. */
class LeaseConfigLoaderTest {
    @TempDir
    Path dir;

    static final String MINIMAL =
            """
            cluster: billing
            node: n1
            algorithm: lease
            http: 127.0.0.1:8101
            lease:
              store: jdbc:postgresql://127.0.0.1:5432/app?user=app&password=hunter2
            """;

    NodeConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, dir, "test.yaml");
    }

    List<String> errorsOf(String yaml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(yaml));
        assertThat(e).as("expected a configuration error").isNotNull();
        return e.errors();
    }

    static String withLease(String leaseLines) {
        return """
                cluster: billing
                node: n1
                algorithm: lease
                http: 127.0.0.1:8101
                lease:
                """
                + leaseLines.indent(2);
    }

    @Test
    void aLeaseNodeNeedsNoListenPeersSecretOrStateDir() throws Exception {
        NodeConfig c = parse(MINIMAL);

        assertThat(c.algorithm()).isEqualTo("lease");
        assertThat(c.listen()).isNull();
        assertThat(c.secret()).isEmpty();
        assertThat(c.stateDir()).isNull();
        assertThat(c.http()).isEqualTo(NodeAddress.parse("127.0.0.1:8101"));
        // Alone in its member list, so /cluster and the dashboard show this node.
        assertThat(c.peers()).containsOnlyKeys(NodeId.of("n1"));
        assertThat(c.httpAddresses()).containsEntry(NodeId.of("n1"), NodeAddress.parse("127.0.0.1:8101"));
    }

    @Test
    void timingsDefaultInProportionToTheDurationAndTheTableToTheStoresDefault() throws Exception {
        LeaseSettings l = parse(MINIMAL).lease().orElseThrow();

        assertThat(l.redis()).isFalse();
        assertThat(l.table()).contains("bellwether_lease");
        assertThat(l.keyPrefix()).isEmpty();
        assertThat(l.createSchema()).isFalse();
        assertThat(l.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(l.renewInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(l.renewDeadline()).isEqualTo(Duration.ofSeconds(2));
        assertThat(l.retry()).isEqualTo(Duration.ofMillis(500));
        assertThat(l.requestTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(l.maxClockDrift()).isEqualTo(0.01);
        assertThat(l.validityMargin()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void everyLeaseKeyIsReadAndMapsOntoTheElectorsConfiguration() throws Exception {
        NodeConfig c = parse(withLease(
                        """
                        store: jdbc:h2:mem:test
                        table: app.leases
                        create-schema: true
                        duration: 1s
                        renew-interval: 200ms
                        renew-deadline: 600ms
                        retry: 150ms
                        request-timeout: 250ms
                        max-clock-drift: 0.02
                        validity-margin: 50ms
                        priority: 7
                        """)
                .replace("lease:\n", "group: jobs\nlease:\n"));
        LeaseSettings l = c.lease().orElseThrow();
        assertThat(l.table()).contains("app.leases");
        assertThat(l.createSchema()).isTrue();

        LeaseConfig lc = l.leaseConfig(LeaseStoreSupport.placeholder("unused"));
        assertThat(lc.duration()).isEqualTo(Duration.ofSeconds(1));
        assertThat(lc.renewInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(lc.renewDeadline()).isEqualTo(Duration.ofMillis(600));
        assertThat(lc.retry()).isEqualTo(Duration.ofMillis(150));
        assertThat(lc.requestTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(lc.maxClockDrift()).isEqualTo(0.02);
        assertThat(lc.validityMargin()).isEqualTo(Duration.ofMillis(50));
        assertThat(lc.priority()).isEqualTo(7);
        assertThat(lc.holderId(c.node())).startsWith("n1-");
    }

    @Test
    void redisStoresTakeAKeyPrefixNotATable() throws Exception {
        LeaseSettings l = parse(withLease("store: redis://127.0.0.1:6379/2\nkey-prefix: 'app:lease:'\n"))
                .lease()
                .orElseThrow();
        assertThat(l.redis()).isTrue();
        assertThat(l.keyPrefix()).contains("app:lease:");
        assertThat(l.table()).isEmpty();
        assertThat(parse(withLease("store: redis://127.0.0.1:6379\n"))
                        .lease()
                        .orElseThrow()
                        .keyPrefix())
                .contains("bellwether:lease:");

        assertThat(errorsOf(withLease("store: redis://127.0.0.1:6379\ntable: leases\n")))
                .containsExactly("lease.table = 'leases' applies to SQL stores only: for Redis, allowed"
                        + " lease.key-prefix (e.g. key-prefix: 'bellwether:lease:')");
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nkey-prefix: 'a:'\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease.key-prefix = 'a:' applies to Redis only"));
        assertThat(errorsOf(withLease("store: redis://127.0.0.1:6379\ncreate-schema: true\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease.create-schema = true applies to SQL stores only"));
    }

    @Test
    void aMissingOrUnsupportedStoreIsNamedWithoutShowingItsPassword() {
        assertThat(errorsOf(withLease("duration: 3s\n"))).singleElement().satisfies(e -> assertThat(e)
                .startsWith("lease.store is missing: allowed a JDBC URL"));
        assertThat(errorsOf(withLease("store: 'jdbc:oracle:thin:scott/x@host?password=tiger'\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("lease.store = 'jdbc:oracle:thin:scott/x@host?password=***' is not a supported"
                                + " store: allowed a JDBC URL")
                        .doesNotContain("tiger"));
        assertThat(errorsOf(MINIMAL.replace(
                        "lease:\n  store: jdbc:postgresql://127.0.0.1:5432/app?user=app&password=hunter2\n", "")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease is missing: with algorithm lease"));
    }

    @Test
    void theSettingsNeverShowThePassword() throws Exception {
        LeaseSettings sql = parse(MINIMAL).lease().orElseThrow();
        assertThat(sql.toString()).doesNotContain("hunter2").contains("password=***");
        LeaseSettings redis = parse(withLease("store: redis://user:hunter2@127.0.0.1:6379\n"))
                .lease()
                .orElseThrow();
        assertThat(redis.toString()).doesNotContain("hunter2");
        assertThat(redis.redactedStore()).isEqualTo("redis://***@127.0.0.1:6379");
    }

    @Test
    void badTimingsNameTheLeaseKeyValueAndWhatIsAllowed() {
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nduration: 3\n")))
                .containsExactly("lease.duration = '3' is not a duration: allowed " + Durations.ALLOWED);
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nduration: 2h\n")))
                .containsExactly("lease.duration = 7200000ms is out of range: allowed 10ms to 3600000ms");
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nduration: 3s\nrenew-deadline: 3s\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("lease.renew-deadline = 3000ms is invalid: it must be below duration × (1 −"
                                + " max-clock-drift) − validity-margin"));
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nrenew-interval: 2s\nrenew-deadline: 1s\n")))
                .containsExactly("lease.renew-interval = 2000ms is invalid: it must be below renew-deadline (1000ms)");
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nmax-clock-drift: lots\n")))
                .containsExactly("lease.max-clock-drift = 'lots' is invalid: allowed a number from 0 to 0.1");
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\npriority: 1001\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("lease.priority = 1001 is out of range: allowed -1000 to 1000"));
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\ncreate-schema: sure\n")))
                .containsExactly("lease.create-schema = 'sure' is invalid: allowed true or false");
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\ntable: 'drop table'\n")))
                .singleElement()
                .satisfies(e ->
                        assertThat(e).startsWith("lease.table = 'drop table' is invalid: allowed an SQL table name"));
    }

    @Test
    void unknownLeaseKeysGetASuggestion() {
        assertThat(errorsOf(withLease("store: jdbc:h2:mem:x\nrenew-dedline: 1s\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'lease.renew-dedline' = '1s': did you mean 'lease.renew-deadline'?"));
    }

    @Test
    void peersListenAndSecretAreAcceptedAndCheckedWhenGiven() throws Exception {
        String yaml =
                """
                cluster: billing
                node: n2
                algorithm: lease
                listen: 127.0.0.1:7102
                peers:
                  n1: 127.0.0.1:7101
                  n2: 127.0.0.1:7102
                secret: 0123456789abcdef0123
                state-dir: ./state
                lease:
                  store: jdbc:h2:mem:x
                """;
        NodeConfig c = parse(yaml);
        assertThat(c.peers()).containsOnlyKeys(NodeId.of("n1"), NodeId.of("n2"));
        assertThat(c.http()).isEqualTo(NodeAddress.parse("127.0.0.1:8102"));
        assertThat(c.secret()).isPresent();
        assertThat(c.stateDir()).isEqualTo(dir.resolve("state"));

        assertThat(errorsOf(yaml.replace("node: n2", "node: n9")))
                .anySatisfy(e -> assertThat(e).startsWith("node = 'n9' is not one of the peers"));
        assertThat(errorsOf(yaml.replace("secret: 0123456789abcdef0123", "secret: short")))
                .anySatisfy(e -> assertThat(e).startsWith("secret = (5 bytes, not shown) is too short"));
    }

    @Test
    void withoutPeersOrListenTheHttpAddressIsRequired() {
        assertThat(errorsOf(MINIMAL.replace("http: 127.0.0.1:8101\n", "")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("http is missing: with algorithm lease"));
    }

    @Test
    void aSectionOfTheOtherAlgorithmIsRefused() {
        assertThat(errorsOf(MINIMAL + "quorum: {heartbeat-interval: 50ms}\n"))
                .containsExactly("quorum is given but algorithm = 'lease': allowed only with algorithm: quorum"
                        + " (remove the quorum section, or set algorithm: quorum)");
        assertThat(errorsOf(ConfigLoaderTest.VALID
                        .replace("state-dir: ./data/n1", "state-dir: ./data/n1\nsecret-file: x")
                        .replace("secret-file: ./secret\n", "insecure: true\n")
                        .replace("secret-file: x", "lease: {store: 'jdbc:h2:mem:x'}")))
                .containsExactly("lease is given but algorithm = 'quorum': allowed only with algorithm: lease"
                        + " (remove the lease section, or set algorithm: lease)");
    }

    @Test
    void quorumModeStillRequiresPeersListenAndASecret() {
        String quorum = MINIMAL.replace("algorithm: lease", "algorithm: quorum")
                .replace("lease:\n  store: jdbc:postgresql://127.0.0.1:5432/app?user=app&password=hunter2\n", "");
        assertThat(errorsOf(quorum))
                .anySatisfy(e -> assertThat(e).startsWith("listen is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("peers is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("secret-file is missing"))
                .anySatisfy(e -> assertThat(e).startsWith("state-dir is missing"));
    }
}
