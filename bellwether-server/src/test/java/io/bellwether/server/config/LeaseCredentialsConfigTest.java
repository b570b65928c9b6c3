package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lease.username} and {@code lease.password-file}: the store's credentials apart from its address. */
class LeaseCredentialsConfigTest {
    private static final String PASSWORD = "correct horse battery";

    @TempDir
    Path dir;

    private NodeConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, dir, "test.yaml");
    }

    private List<String> errorsOf(String yaml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(yaml));
        assertThat(e).as("expected a configuration error").isNotNull();
        assertThat(e.getMessage()).doesNotContain(PASSWORD);
        return e.errors();
    }

    private static String lease(String store, String lines) {
        return LeaseConfigLoaderTest.withLease("store: '" + store + "'\n" + lines);
    }

    private void passwordFile(String content) throws Exception {
        Files.writeString(dir.resolve("pw"), content, StandardCharsets.UTF_8);
    }

    @Test
    void theUserAndThePasswordFromItsFileAreReadWithTheTrailingNewlineTrimmed() throws Exception {
        for (String ending : List.of("", "\n", "\r\n", "\n\n")) {
            passwordFile(PASSWORD + ending);

            LeaseSettings s = parse(
                            lease("jdbc:postgresql://127.0.0.1:5432/app", "username: app\npassword-file: ./pw\n"))
                    .lease()
                    .orElseThrow();

            assertThat(s.username()).contains("app");
            assertThat(s.password().orElseThrow().value())
                    .as("ending %s", ending.length())
                    .isEqualTo(PASSWORD);
        }
        passwordFile(" spaces are kept \n");
        assertThat(parse(lease("redis://127.0.0.1:6379", "password-file: ./pw\n"))
                        .lease()
                        .orElseThrow()
                        .password()
                        .orElseThrow()
                        .value())
                .isEqualTo(" spaces are kept ");
    }

    @Test
    void thePasswordIsNeverShownByTheSettingsOrTheNodesConfiguration() throws Exception {
        passwordFile(PASSWORD + "\n");
        NodeConfig node = parse(lease("redis://127.0.0.1:6379", "username: app\npassword-file: ./pw\n"));
        LeaseSettings s = node.lease().orElseThrow();

        assertThat(s.toString())
                .contains("username=app", "password=(from lease.password-file, not shown)")
                .doesNotContain(PASSWORD);
        assertThat(s.password().orElseThrow().toString()).doesNotContain(PASSWORD);
        assertThat(s.password().toString()).doesNotContain(PASSWORD);
        assertThat(node.toString()).doesNotContain(PASSWORD);
    }

    @Test
    void aMissingEmptyOrUnsuitablePasswordFileIsNamed() throws Exception {
        String allowed = "allowed the path of a readable file holding the store's password";
        assertThat(errorsOf(lease("jdbc:h2:mem:x", "password-file: ./absent\n")))
                .singleElement()
                .satisfies(
                        e -> assertThat(e).startsWith("lease.password-file = './absent' does not exist: " + allowed));
        passwordFile("");
        assertThat(errorsOf(lease("jdbc:h2:mem:x", "password-file: ./pw\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease.password-file = './pw' is empty: " + allowed));
        passwordFile("\n");
        assertThat(errorsOf(lease("jdbc:h2:mem:x", "password-file: ./pw\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease.password-file = './pw' is empty (but for newlines)"));
        Files.createDirectories(dir.resolve("adir"));
        assertThat(errorsOf(lease("jdbc:h2:mem:x", "password-file: ./adir\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease.password-file = './adir' is not a regular file"));
        passwordFile("x".repeat(4097));
        assertThat(errorsOf(lease("jdbc:h2:mem:x", "password-file: ./pw\n")))
                .singleElement()
                .satisfies(e -> assertThat(e).startsWith("lease.password-file = './pw' holds more than 4096 bytes"));
    }

    @Test
    void aPasswordOrUserInTheStoresAddressTooIsRefusedWithoutShowingIt() throws Exception {
        passwordFile(PASSWORD);
        assertThat(errorsOf(lease(
                        "jdbc:postgresql://127.0.0.1:5432/app?user=app&password=" + PASSWORD, "password-file: ./pw\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .isEqualTo("lease.password-file = './pw' is given but lease.store ="
                                + " 'jdbc:postgresql://127.0.0.1:5432/app?user=app&password=***' carries a password"
                                + " too: allowed one of them (remove the password from the store's address)"));
        assertThat(errorsOf(lease("redis://" + PASSWORD + "@127.0.0.1:6379", "password-file: ./pw\n")))
                .singleElement()
                .satisfies(
                        e -> assertThat(e).contains("lease.store = 'redis://***@127.0.0.1:6379' carries a password"));
        assertThat(errorsOf(lease("jdbc:mariadb://127.0.0.1:3306/app?user=root", "username: app\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("lease.username = 'app' is given but lease.store ="
                                + " 'jdbc:mariadb://127.0.0.1:3306/app?user=root' names a user too: allowed one of"
                                + " them"));
    }

    @Test
    void aRedisUserNeedsAPasswordAndAUserNameHasNoBlanks() {
        assertThat(errorsOf(lease("redis://127.0.0.1:6379", "username: app\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .startsWith("lease.username = 'app' is given without lease.password-file: for Redis, allowed"
                                + " only with a password"));
        assertThat(errorsOf(lease("jdbc:h2:mem:x", "username: 'two words'\n")))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .isEqualTo("lease.username = 'two words' is invalid: allowed the store's user name, 1 to 128"
                                + " characters without whitespace"));
    }
}
