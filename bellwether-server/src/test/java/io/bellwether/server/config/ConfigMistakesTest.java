package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mistakes that used to surface late, as something else: an address two servers would both bind, an address no
 * member can dial, a state directory that cannot be created, a key given at the wrong level. Each is refused when
 * the file is read, naming the key(s), the value and what is allowed.
 */
class ConfigMistakesTest {
    @TempDir
    Path dir;

    @BeforeEach
    void writeSecret() throws IOException {
        Files.writeString(dir.resolve("secret"), "0123456789abcdef0123\n", StandardCharsets.UTF_8);
    }

    private List<String> errorsOf(String yaml) {
        ConfigException e =
                catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml, dir, "test.yaml"));
        assertThat(e).as("expected a configuration error").isNotNull();
        return e.errors();
    }

    private static String valid(String from, String to) {
        assertThat(ConfigLoaderTest.VALID).contains(from);
        return ConfigLoaderTest.VALID.replace(from, to);
    }

    // ------------------------------------------------------------------ addresses

    @Test
    void httpOnTheListenAddressNamesBothKeys() {
        assertThat(errorsOf(valid("http: 127.0.0.1:8101", "http: 127.0.0.1:7101")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("http = '127.0.0.1:7101' is the same address as listen = '127.0.0.1:7101':")
                        .contains("allowed a host:port of its own for the HTTP server")
                        .contains("e.g. http: 127.0.0.1:8101"));
    }

    @Test
    void httpOnTheListenPortOfAWildcardListenClashesToo() {
        assertThat(errorsOf(valid("listen: 127.0.0.1:7101", "listen: 0.0.0.0:7101")
                        .replace("http: 127.0.0.1:8101", "http: 127.0.0.1:7101")))
                .anySatisfy(e -> assertThat(e)
                        .contains("http = '127.0.0.1:7101' is the same address as listen = '0.0.0.0:7101'"));
    }

    @Test
    void httpOnAnotherMembersPeerOrHttpAddressIsRefused() {
        assertThat(errorsOf(valid("http: 127.0.0.1:8101", "http: 127.0.0.1:7102")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .isEqualTo("http = '127.0.0.1:7102' is the peer address of peers.n2: allowed a host:port no"
                                + " other member uses"));
        assertThat(errorsOf(valid("http: 127.0.0.1:8101", "http: 127.0.0.1:9103")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .isEqualTo("http = '127.0.0.1:9103' is the HTTP address of peers.n3: allowed a host:port no"
                                + " other member uses"));
    }

    @Test
    void aPeersDefaultHttpAddressOnAnotherMembersPeerAddressIsRefused() {
        // n1's HTTP address defaults to its peer port + 1000, which is n2's peer address.
        assertThat(errorsOf(valid("n2: 127.0.0.1:7102", "n2: 127.0.0.1:8101").replace("http: 127.0.0.1:8101\n", "")))
                .anySatisfy(e -> assertThat(e)
                        .startsWith("peers.n1.http = '127.0.0.1:8101' (its default: the peer port + 1000) is the peer"
                                + " address of peers.n2:")
                        .contains("allowed a host:port no member uses for anything else"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"0.0.0.0:7102", "0:7102", "'[::]:7102'", "'[0:0:0:0:0:0:0:0]:7102'", "'[::ffff:0.0.0.0]:7102'"})
    void aWildcardPeerAddressIsRefused(String address) {
        String shown = address.replace("'", "").replace("[0:0:0:0:0:0:0:0]", "[0:0:0:0:0:0:0:0]");
        assertThat(errorsOf(valid("n2: 127.0.0.1:7102", "n2: " + address))).anySatisfy(e -> assertThat(e)
                .startsWith("peers.n2 = '" + shown + "' is a wildcard address, which no member can dial:")
                .contains("allowed the host name or IP address the other members reach n2 at"));
    }

    @Test
    void aWildcardInAPeersAddressOrHttpKeyIsNamedByThatKey() {
        assertThat(errorsOf(valid(
                        "n3: {address: 127.0.0.1:7103, http: 127.0.0.1:9103}",
                        "n3: {address: '*:7103', http: '[::]:9103'}")))
                .anySatisfy(e -> assertThat(e).startsWith("peers.n3.address = '*:7103' is a wildcard address"))
                .anySatisfy(e -> assertThat(e)
                        .startsWith("peers.n3.http = '[::]:9103' is a wildcard address")
                        .contains("allowed the host name or IP address of n3's HTTP server"));
    }

    @Test
    void portZeroIsRefusedForPeersListenAndHttp() {
        assertThat(errorsOf(valid("n2: 127.0.0.1:7102", "n2: 127.0.0.1:0"))).anySatisfy(e -> assertThat(e)
                .startsWith("peers.n2 = '127.0.0.1:0' is not an address: allowed host:port with a port from 1"
                        + " to 65535"));
        assertThat(errorsOf(valid("http: 127.0.0.1:8101", "http: 127.0.0.1:0")))
                .anySatisfy(e -> assertThat(e).startsWith("http = '127.0.0.1:0' is not an address"));
    }

    // ------------------------------------------------------------------ state-dir

    @Test
    void aStateDirUnderAFileCannotBeCreatedAndSaysWhy() throws IOException {
        Files.writeString(dir.resolve("data"), "a file\n");

        assertThat(errorsOf(ConfigLoaderTest.VALID)).singleElement().satisfies(e -> assertThat(e)
                .isEqualTo("state-dir = './data/n1' cannot be created: " + dir.resolve("data")
                        + " is not a directory: allowed a directory this process can write (created if"
                        + " missing)"));
    }

    @Test
    void aStateDirThatIsAFileIsRefused() throws IOException {
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(dir.resolve("data/n1"), "a file\n");

        assertThat(errorsOf(ConfigLoaderTest.VALID)).singleElement().satisfies(e -> assertThat(e)
                .startsWith("state-dir = './data/n1' is not a directory: allowed"));
    }

    @Test
    void aStateDirInAReadOnlyDirectoryIsRefused() throws IOException {
        Path locked = Files.createDirectories(dir.resolve("locked"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assumeTrue(!Files.isWritable(locked), "runs as root, who may write anywhere");
            assertThat(errorsOf(valid("state-dir: ./data/n1", "state-dir: ./locked/n1")))
                    .singleElement()
                    .satisfies(e -> assertThat(e)
                            .startsWith("state-dir = './locked/n1' cannot be created: " + locked
                                    + " is not writable by this process"));
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    // ------------------------------------------------------------------ keys at the wrong level

    @Test
    void aTopLevelQuorumKeyPointsUnderQuorum() {
        assertThat(errorsOf(ConfigLoaderTest.VALID + "heartbeat-interval: 200ms\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'heartbeat-interval' = '200ms': did you mean"
                                + " 'quorum.heartbeat-interval'? (heartbeat-interval belongs under quorum:; also"
                                + " valid as bully.heartbeat-interval, ring.heartbeat-interval)")
                        .contains("allowed cluster, node, algorithm"));
    }

    @Test
    void theConfiguredAlgorithmsSectionIsSuggestedFirst() {
        assertThat(errorsOf(valid("algorithm: quorum", "algorithm: ring") + "heartbeat-interval: 200ms\n"))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("did you mean 'ring.heartbeat-interval'?"));
        assertThat(errorsOf(valid("algorithm: quorum", "algorithm: bully") + "preemption: false\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'preemption' = 'false': did you mean 'bully.preemption'?"));
        assertThat(errorsOf(valid("algorithm: quorum", "algorithm: ring") + "ring: {}\nhop-attempts: 3\n"))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("did you mean 'ring.hop-attempts'?"));
        assertThat(errorsOf(valid("algorithm: quorum", "algorithm: invitation") + "check-interval: 1s\n"))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("did you mean 'invitation.check-interval'?"));
    }

    @Test
    void aTopLevelLeaseKeyPointsUnderLease() {
        String lease =
                "cluster: c\nnode: n1\nalgorithm: lease\nhttp: 127.0.0.1:8101\n" + "lease: {store: 'jdbc:h2:mem:x'}\n";
        assertThat(errorsOf(lease + "renew-deadline: 2s\n")).singleElement().satisfies(e -> assertThat(e)
                .startsWith("unknown key 'renew-deadline' = '2s': did you mean 'lease.renew-deadline'?"));
        // max-clock-drift is valid in three sections: the configured algorithm's comes first.
        assertThat(errorsOf(lease + "max-clock-drift: 0.01\n")).singleElement().satisfies(e -> assertThat(e)
                .contains("did you mean 'lease.max-clock-drift'?"));
    }

    @Test
    void aSectionKeyInTheWrongSectionPointsToItsSection() {
        assertThat(errorsOf(ConfigLoaderTest.VALID + "quorum: {renew-interval: 1s}\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'quorum.renew-interval' = '1s': did you mean 'lease.renew-interval'?"
                                + " (renew-interval belongs under lease:)")
                        .contains("allowed heartbeat-interval, missed-heartbeats"));
        assertThat(errorsOf(valid("algorithm: quorum", "algorithm: bully") + "bully: {hop-attempts: 2}\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'bully.hop-attempts' = '2': did you mean 'ring.hop-attempts'?"));
        assertThat(errorsOf(ConfigLoaderTest.VALID + "quorum: {state-dir: ./x}\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'quorum.state-dir' = './x': did you mean 'state-dir'? (state-dir"
                                + " belongs at the top level)"));
        assertThat(errorsOf(ConfigLoaderTest.VALID + "certificate: node.pem\n"))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("did you mean 'tls.certificate'?"));
    }

    @Test
    void aMisspeltKeyStillGetsTheClosestKeyOfItsOwnLevel() {
        assertThat(errorsOf(ConfigLoaderTest.VALID + "quorum: {heartbeat-intreval: 1s}\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'quorum.heartbeat-intreval' = '1s': did you mean"
                                + " 'quorum.heartbeat-interval'? allowed"));
    }

    @Test
    void anUnknownKeyNeverShowsWhatMayBeACredential() {
        assertThat(errorsOf(ConfigLoaderTest.VALID + "quorum: {secret: hunter2hunter2hunter2}\npassword: hunter2\n"))
                .anySatisfy(e ->
                        assertThat(e).startsWith("unknown key 'quorum.secret' = (not shown): did you mean 'secret'?"))
                .anySatisfy(e -> assertThat(e).startsWith("unknown key 'password' = (not shown):"))
                .allSatisfy(e -> assertThat(e).doesNotContain("hunter2"));
        assertThat(errorsOf(ConfigLoaderTest.VALID + "store: 'redis://user:hunter2@127.0.0.1:6379'\n"))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("unknown key 'store' = 'redis://***@127.0.0.1:6379': did you mean 'lease.store'?"));
    }
}
