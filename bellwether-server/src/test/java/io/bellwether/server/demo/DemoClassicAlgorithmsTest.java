package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code demo --algorithm bully|ring|invitation} starts node processes that elect a coordinator all of them know. */
@Tag("processes")
@Timeout(420)
class DemoClassicAlgorithmsTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bully", "ring", "invitation"})
    void theDemoRunsTheAlgorithmAndShowsACoordinatorKnownByAll(String algorithm) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        // Runs for a fixed time by design (--duration); the election itself takes a second or two.
        int code = Main.execute(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                new String[] {"demo", "--algorithm", algorithm, "--nodes", "3", "--duration", "10s"});

        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(text)
                .contains("Started 3 " + algorithm + " nodes")
                .containsPattern("n\\d leads at epoch \\d+, (now )?known by all 3 live nodes");
    }
}
