package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bellwether.elector.Algorithms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An algorithm's section, read through its descriptor by {@link AlgorithmSection}. */
class AlgorithmSectionTest {
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

    private static String withAlgorithm(String algorithm, String section) {
        return ConfigLoaderTest.VALID.replace("algorithm: quorum", "algorithm: " + algorithm) + section + "\n";
    }

    @Test
    void everyValueRefusedOnItsOwnIsReportedInKeyOrder() {
        assertThat(errorsOf(withAlgorithm(
                        "quorum", "quorum: {scouting-timeout: 0ms, missed-heartbeats: many, heartbeat-interval: 0ms}")))
                .containsExactly(
                        "quorum.heartbeat-interval = 0ms is out of range: allowed 1ms to 60000ms",
                        "quorum.missed-heartbeats = 'many' is invalid: allowed a whole number from 2 to 100",
                        "quorum.scouting-timeout = 0ms is out of range: allowed 1ms to 60000ms");
    }

    @Test
    void aRelationBetweenValuesIsReportedWhenItIsTheSectionsOnlyProblem() {
        assertThat(errorsOf(withAlgorithm("invitation", "invitation: {check-interval: 100ms, answer-timeout: 200ms}")))
                .containsExactly(
                        "invitation.answer-timeout = 200ms is invalid: it must be below check-interval" + " (100ms)");
    }

    @Test
    void aRelationIsNotReportedBesideAnotherProblemOfItsSection() {
        // With check-interval refused, answer-timeout would be checked against its default, not the file's value.
        assertThat(errorsOf(withAlgorithm("invitation", "invitation: {check-interval: soon, answer-timeout: 200ms}")))
                .singleElement()
                .asString()
                .startsWith("invitation.check-interval = 'soon' is not a duration");
        assertThat(errorsOf(withAlgorithm("invitation", "invitation: {check-interval: 0ms, answer-timeout: 200ms}")))
                .containsExactly("invitation.check-interval = 0ms is out of range: allowed 1ms to 60000ms");
    }

    @Test
    void theAlgorithmsAreTheRegistrysWithThoseElectingThroughAStoreLast() {
        assertThat(ConfigLoader.AVAILABLE_ALGORITHMS).containsExactlyInAnyOrderElementsOf(Algorithms.names());
        assertThat(ConfigLoader.AVAILABLE_ALGORITHMS).last().isEqualTo("lease");
        assertThat(errorsOf(withAlgorithm("paxos", ""))).anySatisfy(e -> assertThat(e)
                .contains("allowed " + String.join(", ", ConfigLoader.AVAILABLE_ALGORITHMS)));
    }
}
