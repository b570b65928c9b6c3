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

/**
 * The driver's core on real member processes: 100 groups in each of 3 members on loopback. Also a guard on the
 * runtime's shape: the members' threads do not grow with their groups (two threads per group would be 200 more).
 */
class ScaleGroupsTest {
    private static final int GROUPS = 100;

    @Test
    @Timeout(120)
    void aHundredGroupsOnThreeMembersAllAgreeOnAFewThreadsAndTheKilledMembersGroupsAreReled() throws Exception {
        ScaleOptions options = new ScaleOptions(
                List.of(GROUPS),
                3,
                Duration.ofSeconds(3), // idle: long enough for spread hand-overs (hold-down 1–2 s) to settle
                Duration.ofSeconds(30),
                1,
                "128m",
                Duration.ofSeconds(1),
                true);
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        AtomicReference<ScaleTrial> current = new AtomicReference<>();

        List<ScaleResult> results = ScaleGroups.run(
                options,
                "ScaleGroups --groups " + GROUPS,
                current,
                new PrintStream(table, true, StandardCharsets.UTF_8),
                System.err);

        assertThat(current).hasNullValue();
        assertThat(results).hasSize(1);
        ScaleResult r = results.get(0);
        assertThat(r.agreedGroups()).isEqualTo(GROUPS);
        assertThat(r.agreedNanos()).isPresent();
        assertThat(r.agreedNanos().getAsLong())
                .isBetween(1L, Duration.ofSeconds(30).toNanos());
        assertThat(r.members()).hasSize(3).allSatisfy(m -> {
            assertThat(m.threads()).isPositive().isLessThan(GROUPS); // 25 on a 2-core machine
            assertThat(m.residentMiB()).isPositive();
            assertThat(m.idleCpuPercent()).isGreaterThanOrEqualTo(0);
        });
        // Built with spreadLeaders: every member leads about a third (without it the first member led nearly all).
        assertThat(r.ledPerMember()).hasSize(3).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(GROUPS / 10));
        assertThat(r.ledPerMember().stream().mapToInt(Integer::intValue).sum()).isLessThanOrEqualTo(GROUPS);
        ScaleResult.Pause p = r.pause().orElseThrow();
        assertThat(p.pause()).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.notReagreed()).isZero();
        assertThat(p.reagreedNanos()).allSatisfy(n -> assertThat(n)
                .isBetween(0L, Duration.ofSeconds(30).toNanos()));
        ScaleResult.Failover f = r.failover().orElseThrow();
        assertThat(f.notReled()).isZero();
        assertThat(f.reledNanos()).isNotEmpty().allSatisfy(n -> assertThat(n)
                .isBetween(0L, Duration.ofSeconds(30).toNanos()));

        List<String> lines = table.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0))
                .startsWith("`ScaleGroups --groups " + GROUPS + "` — ")
                .contains("cores", "Java");
        assertThat(lines.get(2))
                .isEqualTo(ScaleTable.header().lines().findFirst().orElseThrow());
        assertThat(lines.get(2))
                .contains(
                        "| groups per process |",
                        "| time until all led and agreed |",
                        "| threads per process |",
                        "| RSS MiB |",
                        "| idle CPU % of a core |",
                        "| groups led per member, fewest – most |",
                        "| every member paused at once: groups re-agreed after the resume p50 / p99 / max |",
                        "| kill -9 of the busiest member: its groups re-led p50 / p99 / max |");
        String row = lines.get(4);
        assertThat(row.split("\\|", -1)).hasSize(ScaleTable.COLUMNS.size() + 2);
        assertThat(row)
                .startsWith("| " + GROUPS + " | ")
                .contains(" s | ", "1.0 s pause: ", " ms (" + f.reledNanos().size() + " groups)");
    }
}
