package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.MainTest.Outcome;
import io.bellwether.testkit.Ports;
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

    /** A node of one, insecure, on free ports, keeping its term in {@code state}. */
    private Path soloConfig(String name, String extra) throws Exception {
        int peer = Ports.free();
        Path config = dir.resolve(name);
        Files.writeString(
                config,
                "cluster: demo\nnode: n1\nlisten: 127.0.0.1:" + peer + "\nhttp: 127.0.0.1:" + Ports.free()
                        + "\npeers: {n1: 127.0.0.1:" + peer + "}\ninsecure: true\n" + extra);
        return config;
    }

    @Test
    void httpOnTheListenAddressExitsTwoNamingBothKeysNotThree() throws Exception {
        Path config = dir.resolve("clash.yaml");
        int port = Ports.free();
        Files.writeString(
                config,
                "cluster: demo\nnode: n1\nlisten: 127.0.0.1:" + port + "\nhttp: 127.0.0.1:" + port
                        + "\npeers: {n1: 127.0.0.1:" + port + "}\ninsecure: true\nstate-dir: ./data\n");

        Outcome o = MainTest.run("node", "--config", config.toString());

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("http = '127.0.0.1:" + port + "' is the same address as listen = '127.0.0.1:" + port + "'")
                .contains("allowed a host:port of its own")
                .doesNotContain("Address already in use");
    }

    @Test
    void aStateDirThatCannotBeCreatedExitsTwoNamingTheKey() throws Exception {
        Files.writeString(dir.resolve("blocker"), "a file, not a directory\n");
        Path config = soloConfig("uncreatable.yaml", "state-dir: ./blocker/data\n");

        Outcome o = MainTest.run("node", "--config", config.toString());

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("state-dir = './blocker/data' cannot be created: " + dir.resolve("blocker")
                        + " is not a directory")
                .contains("allowed a directory this process can write");
    }

    @Test
    void aCorruptStateFileExitsTwoNamingTheFile() throws Exception {
        Path state = Files.createDirectories(dir.resolve("data"));
        Path file = state.resolve("default.state");
        Files.write(file, new byte[] {'n', 'o', 't', ' ', 'a', ' ', 's', 't', 'a', 't', 'e'});
        Path config = soloConfig("corrupt.yaml", "state-dir: ./data\n");

        Outcome o = MainTest.run("node", "--config", config.toString());

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("state-dir = '" + state + "' cannot be used")
                .contains("state file " + file + " is unusable")
                .contains("allowed a directory this process can write");
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
