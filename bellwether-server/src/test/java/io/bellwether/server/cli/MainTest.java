package io.bellwether.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.sim.SimulationConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

public class MainTest {
    /** One in-process run of the command with its output captured. */
    /** What a command run in this JVM returned and printed. */
    public record Outcome(int exitCode, String out, String err) {}

    /** Runs {@code bellwether args...} in this JVM, capturing what it prints. */
    public static Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.execute(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                args);
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anythingACommandThrowsEvenAnErrorBecomesExitStatusThreeSoThatMainAlwaysExits() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

        int status = Main.exitStatus(
                () -> {
                    throw new NoClassDefFoundError("io/bellwether/Gone");
                },
                errStream);

        assertThat(status).isEqualTo(Main.EXIT_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("bellwether: error:")
                .contains("io/bellwether/Gone");
        assertThat(Main.exitStatus(() -> Main.EXIT_VIOLATION, errStream)).isEqualTo(Main.EXIT_VIOLATION);
    }

    @Test
    void helpListsTheSimulateCommandAndExitsZero() {
        Outcome o = run("--help");

        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("bellwether", "simulate");
    }

    @Test
    void simulateHelpDocumentsItsOptions() {
        Outcome o = run("simulate", "--help");

        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("--nodes", "--seeds", "--faults", "--json", "--report", "--exhaustive-depth");
    }

    @Test
    void versionNamesTheProgram() {
        Outcome o = run("--version");

        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).startsWith("bellwether ");
    }

    @Test
    void noCommandIsAUsageError() {
        Outcome o = run();

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("missing command");
    }

    @Test
    void nodesOutOfRangeExitsTwoNamingTheArgumentAndTheRange() {
        Outcome o = run("simulate", "--nodes", "0");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("--nodes must be 1 to " + SimulationConfig.MAX_NODES + ", was 0")
                .contains("--help");
        assertThat(o.out()).isEmpty();
    }

    @Test
    void nodesAboveTheSimulatorLimitExitTwoNamingTheLimit() {
        Outcome o = run("simulate", "--nodes", "1025");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--nodes must be 1 to 1024, was 1025");
        assertThat(o.out()).isEmpty();
    }

    @Test
    void unknownFaultExitsTwoListingTheAllowedKinds() {
        Outcome o = run("simulate", "--faults", "crash,meteor");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--faults", "unknown fault 'meteor'", "partition", "all or none");
    }

    @Test
    void unknownAlgorithmExitsTwoListingTheAllowedOnes() {
        Outcome o = run("simulate", "--algorithm", "paxos");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("--algorithm must be one of " + String.join(", ", SimulationConfig.ALGORITHMS)
                        + ", was 'paxos'");
    }

    @Test
    void simulateRunsStrictBullyByName() throws Exception {
        Outcome o = run(
                "simulate",
                "--algorithm",
                "bully-strict",
                "--nodes",
                "3",
                "--seeds",
                "2",
                "--exhaustive-depth",
                "3",
                "--json");

        assertThat(o.exitCode()).as("stderr: %s", o.err()).isZero();
        com.fasterxml.jackson.databind.JsonNode json =
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(o.out());
        assertThat(json.get("algorithm").asText()).isEqualTo("bully-strict");
        assertThat(json.get("violations")).isEmpty();
    }

    @Test
    void nonNumericValueExitsTwoNamingTheOption() {
        Outcome o = run("simulate", "--seeds", "many");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--seeds", "many");
    }

    @Test
    void unknownOptionExitsTwo() {
        Outcome o = run("simulate", "--nodez", "3");

        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--nodez");
    }

    @Test
    void otherRangesAreCheckedBeforeAnythingRuns() {
        assertThat(run("simulate", "--seeds", "0").err()).contains("--seeds must be 1 to");
        assertThat(run("simulate", "--threads", "0").err()).contains("--threads must be 1 to 1024, was 0");
        assertThat(run("simulate", "--exhaustive-depth", "0").err()).contains("--exhaustive-depth must be 1 to");
        assertThat(run("simulate", "--seed-start", "-1").err()).contains("--seed-start must be 0 to");
        assertThat(run("simulate", "--report-seed", "3").err()).contains("--report-seed needs --report");
        assertThat(run("simulate", "--report", "/nonexistent-dir/x.html").exitCode())
                .isEqualTo(2);
        assertThat(run("simulate", "--report", "report.txt").err()).contains("--report must name an .html file");
    }

    @Test
    void progressLineEstimatesTheTimeLeft() {
        assertThat(ProgressLine.format(new io.bellwether.sim.RandomExplorer.Progress(50, 200, 1, 10_000_000_000L)))
                .isEqualTo("seeds 50/200, violations 1, about 30s left");
        assertThat(ProgressLine.format(new io.bellwether.sim.RandomExplorer.Progress(0, 200, 0, 0)))
                .contains("about ? left");
    }
}
