package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.MainTest.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeCommandTest {
    @TempDir
    Path dir;

    @Test
    void invalidConfigurationExitsTwoListingEveryError() throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(
                config,
                """
                cluster: demo
                node: n9
                listen: 127.0.0.1:7101
                peers:
                  n1: 127.0.0.1:7101
                  n2: 127.0.0.1:7101
                secret: short
                state-dir: ./data
                quorum: {heartbeat-interval: fast}
                colour: blue
                """);

        Outcome o = MainTest.run("node", "--config", config.toString());

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("bad.yaml")
                .contains("unknown key 'colour'")
                .contains("peers.n2 = '127.0.0.1:7101' duplicates the address of peers.n1")
                .contains("secret = (5 bytes, not shown) is too short")
                .contains("quorum.heartbeat-interval = 'fast' is not a duration")
                .contains("docs/configuration.md");
        assertThat(o.out()).isEmpty();
    }

    @Test
    void missingFileExitsTwoNamingIt() {
        Outcome o = MainTest.run("node", "--config", dir.resolve("absent.yaml").toString());

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("absent.yaml").contains("cannot read the configuration file");
    }

    @Test
    void missingConfigOptionIsAUsageError() {
        Outcome o = MainTest.run("node");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--config");
    }
}
