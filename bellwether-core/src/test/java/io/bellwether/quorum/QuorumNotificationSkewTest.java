package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two ends of a connection learn of its closing at different times. Three scripted quorum electors
 * ({@code standby: false}, 1 ms links, default timings): n1 leads; its link to n3 goes silent, so n3 loses its
 * leader and scouts while n1's validity rests on n2 alone; then the n1–n2 connection closes, n2 is told at once
 * and n1 after a skew. Whatever the skew, no two members may hold a valid leadership at the same time; the
 * replay of the elector as it was before (a closing taken as the peer's departure) must show the overlap.
 */
class QuorumNotificationSkewTest {
    private static final QuorumConfig CONFIG =
            QuorumConfig.builder().standby(false).build();
    private static final long MS = 1_000_000;
    private static final int N1 = 0;
    private static final int N2 = 1;
    private static final int N3 = 2;

    static Stream<Arguments> skews() {
        return Stream.of(0L, 1L, 5L, 15L, 100L, ScriptedGroup.AT_NEXT_WRITE)
                .map(s -> Arguments.of(s == ScriptedGroup.AT_NEXT_WRITE ? "until n1 next writes" : s + " ms", s));
    }

    /** n1 leads term 1, elected at start-up. */
    private static ScriptedGroup n1Leading(boolean closingIsDeparture) {
        ScriptedGroup g = new ScriptedGroup(CONFIG, 3, MS, closingIsDeparture);
        g.runUntil(1_000 * MS);
        assertThat(g.role(N1)).as("n1 leads at start-up").isEqualTo(Role.LEADER);
        assertThat(g.term(N1)).isEqualTo(1);
        return g;
    }

    /**
     * The scenario with the close at {@code closeAfterMs} after n1's link to n3 went silent (the sweep
     * covers where in n3's scouting cycle, and in n1's heartbeat cycle, the closing falls).
     */
    private static ScriptedGroup scenario(boolean closingIsDeparture, long skew, long closeAfterMs) {
        ScriptedGroup g = n1Leading(closingIsDeparture);
        g.silence(N1, N3);
        g.runUntil(g.now() + closeAfterMs * MS);
        g.close(N2, N1, 0, skew == ScriptedGroup.AT_NEXT_WRITE ? skew : skew * MS);
        g.runUntil(g.now() + 2_000 * MS);
        return g;
    }

    private static final long FIRST_CLOSE_MS = 500; // n3 has lost n1 and scouts
    private static final long LAST_CLOSE_MS = 700;

    @ParameterizedTest(name = "n1 told {0} after n2")
    @MethodSource("skews")
    void noTwoValidLeadershipsOverlapWhateverTheNotificationSkew(String name, long skew) {
        for (long at = FIRST_CLOSE_MS; at <= LAST_CLOSE_MS; at++) {
            ScriptedGroup g = scenario(false, skew, at);
            assertThat(g.overlapNanos())
                    .as("closing %d ms after the silence; trace:%n%s", at, String.join("\n", g.trace))
                    .isZero();
            // Not stuck either: once n2's fence for n1 has run out, n2 or n3 is elected.
            assertThat(List.of(g.role(N2), g.role(N3)))
                    .as("closing at %d ms: n2 or n3 leads in the end", at)
                    .contains(Role.LEADER);
        }
    }

    @ParameterizedTest(name = "n1 told {0} after n2")
    @MethodSource("skews")
    void theElectorThatTookAClosingAsADepartureOverlapsOnceTheSkewIsPastARoundTrip(String name, long skew) {
        long worst = 0;
        List<String> firstOverlap = new ArrayList<>();
        for (long at = FIRST_CLOSE_MS; at <= LAST_CLOSE_MS; at++) {
            ScriptedGroup g = scenario(true, skew, at);
            if (g.overlapNanos() > worst) {
                worst = g.overlapNanos();
                firstOverlap = g.trace;
            }
        }
        if (skew == 0 || skew == 1) {
            // n3's scout and vote take two round trips (4 ms) after n2 lifts its fence: n1 has stepped down by then.
            assertThat(worst).as("skew %d ms", skew).isZero();
        } else {
            assertThat(worst)
                    .as("the pre-fix elector must overlap with skew %s", name)
                    .isPositive();
        }
        if (skew == 15) {
            // As reported: with a 15 ms skew the overlap reaches about 11 ms, far past the 20 ms margin's reach.
            assertThat(worst).as("%s", String.join("\n", firstOverlap)).isGreaterThanOrEqualTo(10 * MS);
        }
    }

    @Test
    void killedLeaderIsReplacedWithinTheFastPathAndNeverOverlaps() {
        // The fast path where the old leader's process is really gone: its peers see the connection close and
        // find its address refused (1 ms to dial), so n2 or n3 leads within backoff plus two round trips.
        for (long at = 0; at < 200; at += 7) {
            ScriptedGroup g = n1Leading(false);
            g.runUntil(g.now() + at * MS);
            long killedAt = g.now();
            g.kill(N1, MS);
            long electedAt = -1;
            for (long t = killedAt; t < killedAt + 400 * MS && electedAt < 0; t += MS) {
                g.runUntil(t);
                if (g.role(N2) == Role.LEADER || g.role(N3) == Role.LEADER) {
                    electedAt = g.now();
                }
            }
            assertThat(electedAt)
                    .as("a successor within 400 ms of the kill at +%d ms", at)
                    .isPositive();
            assertThat(electedAt - killedAt)
                    .as("kill at +%d ms: not the 400 ms timeout path; trace:%n%s", at, String.join("\n", g.trace))
                    .isLessThan(120 * MS);
            g.runUntil(g.now() + 1_000 * MS);
            assertThat(g.overlapNanos()).isZero();
        }
    }

    @Test
    void aClosedConnectionReplacedAtOnceStartsNoElection() {
        // A dial tie (discovered peers): both ends dialed at once, the transport keeps the lower id's connection
        // and reports the other's closing; the peer never left and answers on the connection that stays.
        ScriptedGroup g = n1Leading(false);
        g.trace.clear();
        g.reopenAfterClose(N1, N2, 0, 0);
        g.reopenAfterClose(N1, N3, 0, 0);
        g.runUntil(g.now() + 3_000 * MS);

        assertThat(g.role(N1)).isEqualTo(Role.LEADER);
        assertThat(g.role(N2)).isEqualTo(Role.FOLLOWER);
        assertThat(g.role(N3)).isEqualTo(Role.FOLLOWER);
        assertThat(new long[] {g.term(N1), g.term(N2), g.term(N3)}).containsOnly(1);
        assertThat(g.trace).as("no member changed role or term").noneMatch(line -> line.contains(" -> "));
    }

    @Test
    void theElectorThatTookAClosingAsADepartureLostItsLeaderOnADialTie() {
        ScriptedGroup g = n1Leading(true);
        g.trace.clear();
        g.reopenAfterClose(N1, N2, 0, 0);
        g.runUntil(g.now() + 3_000 * MS);

        assertThat(g.trace)
                .as("n2 forgot its leader")
                .anyMatch(line -> line.contains("n2 FOLLOWER -> FOLLOWER") && line.contains("leader none"));
    }
}
