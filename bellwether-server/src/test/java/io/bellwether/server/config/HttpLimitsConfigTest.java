package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bellwether.server.http.HttpLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code http-limits} section. */
class HttpLimitsConfigTest {
    @TempDir
    Path dir;

    @BeforeEach
    void writeSecret() throws IOException {
        Files.writeString(dir.resolve("secret"), "0123456789abcdef0123\n", StandardCharsets.UTF_8);
    }

    private NodeConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(ConfigLoaderTest.VALID + yaml, dir, "test.yaml");
    }

    private List<String> errorsOf(String yaml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(yaml));
        assertThat(e).as("expected a configuration error").isNotNull();
        return e.errors();
    }

    @Test
    void withoutTheSectionEveryLimitHasItsDefault() throws Exception {
        assertThat(parse("").httpLimits()).isEqualTo(HttpLimits.DEFAULTS);
        assertThat(HttpLimits.DEFAULTS.maxConnections()).isEqualTo(64);
        assertThat(HttpLimits.DEFAULTS.maxEventClients()).isEqualTo(16);
        assertThat(HttpLimits.DEFAULTS.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(HttpLimits.DEFAULTS.maxRequestBytes()).isEqualTo(8192);
        assertThat(HttpLimits.DEFAULTS.eventBacklogBytes()).isEqualTo(65536);
    }

    @Test
    void everyLimitCanBeSet() throws Exception {
        HttpLimits limits = parse(
                        """
                        http-limits:
                          max-connections: 200
                          max-event-clients: 50
                          request-timeout: 5s
                          max-request-bytes: 16384
                          event-backlog-bytes: 131072
                        """)
                .httpLimits();

        assertThat(limits).isEqualTo(new HttpLimits(200, 50, Duration.ofSeconds(5), 16384, 131072));
    }

    @Test
    void badValuesAreRefusedNamingTheKeyTheValueAndWhatIsAllowed() {
        assertThat(errorsOf("http-limits: {max-connections: 0}\n"))
                .containsExactly(
                        "http-limits.max-connections = 0 is out of range: allowed a whole number from 1 to 10000");
        assertThat(errorsOf("http-limits: {max-connections: many}\n"))
                .singleElement()
                .asString()
                .startsWith("http-limits.max-connections = 'many' is invalid: allowed a whole number");
        assertThat(errorsOf("http-limits: {max-connections: 8, max-event-clients: 9}\n"))
                .singleElement()
                .asString()
                .startsWith("http-limits.max-event-clients = 9 exceeds http-limits.max-connections = 8");
        assertThat(errorsOf("http-limits: {request-timeout: 10}\n"))
                .singleElement()
                .asString()
                .startsWith("http-limits.request-timeout = '10' is not a duration: allowed");
        assertThat(errorsOf("http-limits: {request-timeout: 10ms}\n"))
                .containsExactly("http-limits.request-timeout = 10ms is out of range: allowed a duration from 100ms to"
                        + " 5m, e.g. 10s");
        assertThat(errorsOf("http-limits: {max-request-bytes: 100}\n"))
                .containsExactly("http-limits.max-request-bytes = 100 is out of range: allowed a whole number from 1024"
                        + " to 1048576");
        assertThat(errorsOf("http-limits: {event-backlog-bytes: 99999999}\n"))
                .singleElement()
                .asString()
                .startsWith("http-limits.event-backlog-bytes = 99999999 is out of range");
        assertThat(errorsOf("http-limits: {max-conections: 5}\n"))
                .singleElement()
                .asString()
                .startsWith("unknown key 'http-limits.max-conections': did you mean 'http-limits.max-connections'?");
        assertThat(errorsOf("http-limits: 5\n"))
                .singleElement()
                .asString()
                .startsWith("http-limits = '5' is invalid: allowed a mapping of max-connections");
    }
}
