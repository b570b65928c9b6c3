package io.bellwether.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.server.cli.MainTest;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code demo --algorithm bully|ring|invitation} starts node processes that elect a coordinator all of them know. */
@Tag("processes")
@Timeout(900)
class DemoClassicAlgorithmsTest {
    private static final Pattern KNOWN_BY_ALL =
            Pattern.compile("n\\d leads at epoch \\d+, (now )?known by all 3 live nodes");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bully", "ring", "invitation"})
    void theDemoRunsTheAlgorithmAndShowsACoordinatorKnownByAll(String algorithm) throws Exception {
        MainTest.Outcome o = DemoRun.until(KNOWN_BY_ALL, "--algorithm", algorithm, "--nodes", "3");

        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out())
                .contains("Started 3 " + algorithm + " nodes")
                .containsPattern(KNOWN_BY_ALL)
                .contains("Stopped every node");
    }
}
