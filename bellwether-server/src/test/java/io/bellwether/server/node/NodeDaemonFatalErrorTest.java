package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Ports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose election thread meets an Error ends: a crashed member is safe (its peers elect another), a zombie
 * that keeps its connections up is not. Runs a real node process with the daemon's handler.
 */
@Tag("processes")
class NodeDaemonFatalErrorTest {
    /** Generous: a cold JVM on a CI machine that can be ten times slower than a workstation. */
    private static final long CEILING_SECONDS = 120;

    @Test
    void anErrorOnAnElectionThreadHaltsTheNodeProcessWithExitStatus70(@TempDir Path dir) throws Exception {
        int peer = Ports.free();
        int http = Ports.free();
        Path config = dir.resolve("n1.yaml");
        Files.writeString(
                config,
                "cluster: fatal\nnode: n1\nalgorithm: quorum\n"
                        + "listen: 127.0.0.1:" + peer + "\nhttp: 127.0.0.1:" + http + "\n"
                        + "peers:\n  n1: 127.0.0.1:" + peer + "\n"
                        + "insecure: true\nstate-dir: " + dir.resolve("state") + "\n",
                StandardCharsets.UTF_8);
        Path log = dir.resolve("n1.log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(LocalCluster.NODE_JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(FatalErrorNode.class.getName());
        command.add(config.toString());
        Process node = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            boolean ended = node.waitFor(CEILING_SECONDS, TimeUnit.SECONDS);
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(ended).as("the node ended; its output:\n" + output).isTrue();
            assertThat(node.exitValue()).as("exit status; output:\n" + output).isEqualTo(NodeDaemon.EXIT_FATAL_ERROR);
            assertThat(output)
                    .contains("injected by the test at epoch")
                    .contains("halting with exit status " + NodeDaemon.EXIT_FATAL_ERROR);
        } finally {
            node.destroyForcibly();
        }
    }
}
