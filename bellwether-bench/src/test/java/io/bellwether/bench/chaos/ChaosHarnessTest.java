package io.bellwether.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.testkit.Services;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short chaos runs CI makes: three node processes under a seeded schedule of faults for a minute each (quorum
 * over fault-injecting proxies; lease on the real PostgreSQL through them), the leaders' work writing through the
 * fence; the whole history must hold ({@link ChaosChecker}) and the HTML report must say so.
 *
 * <p>CI machines are shared and slow: these runs give quorum a 1 s election timeout and a 100 ms validity margin
 * (the node's defaults are 400 ms and 20 ms; {@code bellwether chaos} runs them, see docs/reliability.md).
 * {@code -Dbellwether.chaos.seconds=N} for a longer run, {@code -Dbellwether.chaos.seed=S} to replay a schedule.
 */
@Tag("processes")
@Timeout(900)
class ChaosHarnessTest {
    private static final String CI_QUORUM =
            "quorum: {heartbeat-interval: 100ms, missed-heartbeats: 10, validity-margin: 100ms}\n";

    @Test
    void quorumHoldsUnderChaos(TestInfo test, @TempDir Path dir) throws Exception {
        chaos(test, "quorum", "postgres", CI_QUORUM, Duration.ofSeconds(1), dir);
    }

    @Test
    void leaseOnPostgresHoldsUnderChaos(TestInfo test, @TempDir Path dir) throws Exception {
        chaos(test, "lease", "postgres", "", null, dir);
    }

    private static void chaos(TestInfo test, String algorithm, String store, String section, Duration timeout, Path dir)
            throws Exception {
        Services.require("PostgreSQL", "127.0.0.1", 5432);
        long seed = Long.getLong("bellwether.chaos.seed", System.nanoTime());
        long seconds = Long.getLong("bellwether.chaos.seconds", 60);
        String replay = "mvn -B -q -o -pl bellwether-bench -am test -Dtest='ChaosHarnessTest#"
                + test.getTestMethod().orElseThrow().getName() + "' -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dbellwether.chaos.seed=" + seed + " -Dbellwether.chaos.seconds=" + seconds;
        ChaosHarness.Options options = new ChaosHarness.Options(
                algorithm, store, "task", 3, Duration.ofSeconds(seconds), seed, section, timeout, replay);
        ChaosRecord record = ChaosHarness.run(options, System.out);
        ChaosHarness.summarize(record, System.out);
        Path report = dir.resolve("chaos.html");
        ChaosHarness.report(record, report);

        assertThat(record.verdict().violations())
                .as("violations; replay: %s", replay)
                .isEmpty();
        assertThat(record.faults()).as("faults injected").hasSizeGreaterThanOrEqualTo(3);
        assertThat(record.verdict().accepted()).as("accepted writes").isPositive();
        assertThat(record.verdict().recoveries()).hasSameSizeAs(record.faults());
        assertThat(record.observations()).as("status polls").isNotEmpty();
        assertThat(Files.readString(report)).contains("no violation");
    }
}
