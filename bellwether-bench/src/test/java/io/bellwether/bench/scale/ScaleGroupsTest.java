package io.bellwether.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The driver's core on real member processes: 5 groups in each of 3 members on loopback. */
class ScaleGroupsTest {
    @Test
    @Timeout(60)
    void fiveGroupsOnThreeMembersAllAgreeAndTheKilledMembersGroupsAreReled() throws Exception {
        ScaleOptions options =
                new ScaleOptions(List.of(5), 3, Duration.ofSeconds(1), Duration.ofSeconds(20), 1, "128m");
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        AtomicReference<ScaleTrial> current = new AtomicReference<>();

        List<ScaleResult> results = ScaleGroups.run(
                options,
                "ScaleGroups --groups 5",
                current,
                new PrintStream(table, true, StandardCharsets.UTF_8),
                System.err);

        assertThat(current).hasNullValue();
        assertThat(results).hasSize(1);
        ScaleResult r = results.get(0);
        assertThat(r.agreedGroups()).isEqualTo(5);
        assertThat(r.agreedNanos()).isPresent();
        assertThat(r.agreedNanos().getAsLong())
                .isBetween(1L, Duration.ofSeconds(20).toNanos());
        assertThat(r.members()).hasSize(3).allSatisfy(m -> {
            assertThat(m.threads()).isPositive();
            assertThat(m.residentMiB()).isPositive();
            assertThat(m.idleCpuPercent()).isGreaterThanOrEqualTo(0);
        });
        ScaleResult.Failover f = r.failover().orElseThrow();
        assertThat(f.notReled()).isZero();
        assertThat(f.reledNanos()).isNotEmpty().allSatisfy(n -> assertThat(n)
                .isBetween(0L, Duration.ofSeconds(20).toNanos()));

        List<String> lines = table.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).startsWith("`ScaleGroups --groups 5` — ").contains("cores", "Java");
        assertThat(lines.get(2))
                .isEqualTo(ScaleTable.header().lines().findFirst().orElseThrow());
        assertThat(lines.get(2))
                .contains(
                        "| groups per process |",
                        "| time until all led and agreed |",
                        "| threads per process |",
                        "| RSS MiB |",
                        "| idle CPU % of a core |",
                        "| kill -9 of the busiest member: its groups re-led p50 / p99 / max |");
        String row = lines.get(4);
        assertThat(row.split("\\|", -1)).hasSize(ScaleTable.COLUMNS.size() + 2);
        assertThat(row)
                .startsWith("| 5 | ")
                .contains(" s | ", " ms (" + f.reledNanos().size() + " groups)");
    }
}
