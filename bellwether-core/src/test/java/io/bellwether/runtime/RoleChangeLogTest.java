package io.bellwether.runtime;

import static io.bellwether.Role.CANDIDATE;
import static io.bellwether.Role.DORMANT;
import static io.bellwether.Role.FOLLOWER;
import static io.bellwether.Role.LEADER;
import static io.bellwether.elector.ChangeReason.CAMPAIGNING;
import static io.bellwether.elector.ChangeReason.ELECTED;
import static io.bellwether.elector.ChangeReason.HIGHER_EPOCH;
import static io.bellwether.elector.ChangeReason.LEADER_TIMEOUT;
import static io.bellwether.elector.ChangeReason.LOST_QUORUM;
import static io.bellwether.elector.ChangeReason.ROUND_FAILED;
import static io.bellwether.elector.ChangeReason.STOPPED;
import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which role changes get a line: the limiter alone, on a clock the test moves. */
class RoleChangeLogTest {
    private final List<String> lines = new ArrayList<>();
    private final RoleChangeLog log = new RoleChangeLog(summary -> lines.add("summary: " + summary));

    /** Offers a change at {@code millis}; what the election would log is added to {@link #lines}. */
    private void change(long millis, Role from, Role to, long epoch, ChangeReason reason) {
        if (log.admit(from, to, epoch, reason, TimeUnit.MILLISECONDS.toNanos(millis))) {
            lines.add(from + " -> " + to + " at epoch " + epoch + " (" + reason + ")");
        }
    }

    @Test
    void repeatsWithinTenSecondsAreCountedAndSummarisedWhenTheWindowHasEnded() {
        change(0, FOLLOWER, CANDIDATE, 3, CAMPAIGNING);
        for (int i = 1; i <= 63; i++) {
            change(i * 150L, FOLLOWER, CANDIDATE, 3, CAMPAIGNING);
        }
        assertThat(lines).containsExactly("FOLLOWER -> CANDIDATE at epoch 3 (CAMPAIGNING)");

        change(10_000, FOLLOWER, CANDIDATE, 4, CAMPAIGNING);

        assertThat(lines)
                .containsExactly(
                        "FOLLOWER -> CANDIDATE at epoch 3 (CAMPAIGNING)",
                        "summary: FOLLOWER -> CANDIDATE (CAMPAIGNING) repeated 63 times in the last 10 s, the last at epoch 3",
                        "FOLLOWER -> CANDIDATE at epoch 4 (CAMPAIGNING)");
    }

    @Test
    void anIsolatedMemberFlappingSevenTimesASecondLogsEachKindOfChangeOncePerWindow() {
        long t = 0;
        int offered = 0;
        // Ten seconds of scouting and giving up, 7 changes a second.
        while (t < 9_900) {
            change(t, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);
            change(t + 70, CANDIDATE, FOLLOWER, 5, ROUND_FAILED);
            t += 285;
            offered += 2;
        }
        assertThat(offered).isGreaterThanOrEqualTo(68);
        assertThat(lines)
                .containsExactly(
                        "FOLLOWER -> CANDIDATE at epoch 5 (CAMPAIGNING)",
                        "CANDIDATE -> FOLLOWER at epoch 5 (ROUND_FAILED)");

        change(10_000, FOLLOWER, CANDIDATE, 5, CAMPAIGNING); // 10 s after the first: a new window
        assertThat(lines.subList(2, lines.size()))
                .containsExactly(
                        "summary: FOLLOWER -> CANDIDATE (CAMPAIGNING) repeated 34 times in the last 10 s, the last at epoch 5",
                        "FOLLOWER -> CANDIDATE at epoch 5 (CAMPAIGNING)");

        change(10_070, CANDIDATE, FOLLOWER, 5, ROUND_FAILED);
        assertThat(lines.subList(4, lines.size()))
                .containsExactly(
                        "summary: CANDIDATE -> FOLLOWER (ROUND_FAILED) repeated 34 times in the last 10 s, the last at"
                                + " epoch 5",
                        "CANDIDATE -> FOLLOWER at epoch 5 (ROUND_FAILED)");
    }

    @Test
    void aChangeThatIsNotBeingCountedSummarisesTheRepeatsFirst() {
        change(0, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);
        change(100, CANDIDATE, FOLLOWER, 5, ROUND_FAILED);
        change(200, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);
        change(300, CANDIDATE, FOLLOWER, 5, ROUND_FAILED);
        change(400, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);

        change(500, CANDIDATE, LEADER, 6, ELECTED);

        assertThat(lines)
                .containsExactly(
                        "FOLLOWER -> CANDIDATE at epoch 5 (CAMPAIGNING)",
                        "CANDIDATE -> FOLLOWER at epoch 5 (ROUND_FAILED)",
                        "summary: FOLLOWER -> CANDIDATE (CAMPAIGNING) repeated 2 times in the last 1 s, the last at epoch 5",
                        "summary: CANDIDATE -> FOLLOWER (ROUND_FAILED) repeated 1 time in the last 1 s, the last at epoch 5",
                        "CANDIDATE -> LEADER at epoch 6 (ELECTED)");
    }

    @Test
    void winningAndLosingLeadershipAndStoppingAreAlwaysLogged() {
        change(0, FOLLOWER, CANDIDATE, 1, LEADER_TIMEOUT);
        change(10, CANDIDATE, LEADER, 1, ELECTED);
        change(20, LEADER, FOLLOWER, 2, HIGHER_EPOCH);
        change(30, FOLLOWER, CANDIDATE, 2, LEADER_TIMEOUT); // repeat: counted
        change(40, CANDIDATE, LEADER, 2, ELECTED);
        change(50, LEADER, FOLLOWER, 3, LOST_QUORUM);
        change(60, FOLLOWER, CANDIDATE, 3, LEADER_TIMEOUT); // repeat: counted
        change(70, CANDIDATE, LEADER, 3, ELECTED);
        change(80, LEADER, DORMANT, 3, STOPPED);

        assertThat(lines)
                .containsExactly(
                        "FOLLOWER -> CANDIDATE at epoch 1 (LEADER_TIMEOUT)",
                        "CANDIDATE -> LEADER at epoch 1 (ELECTED)",
                        "LEADER -> FOLLOWER at epoch 2 (HIGHER_EPOCH)",
                        "summary: FOLLOWER -> CANDIDATE (LEADER_TIMEOUT) repeated 1 time in the last 1 s, the last at"
                                + " epoch 2",
                        "CANDIDATE -> LEADER at epoch 2 (ELECTED)",
                        "LEADER -> FOLLOWER at epoch 3 (LOST_QUORUM)",
                        "summary: FOLLOWER -> CANDIDATE (LEADER_TIMEOUT) repeated 1 time in the last 1 s, the last at"
                                + " epoch 3",
                        "CANDIDATE -> LEADER at epoch 3 (ELECTED)",
                        "LEADER -> DORMANT at epoch 3 (STOPPED)");
    }

    @Test
    void stoppingSummarisesWhatWasStillBeingCounted() {
        change(0, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);
        change(100, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);
        change(2_500, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);

        change(3_000, FOLLOWER, DORMANT, 5, STOPPED);

        assertThat(lines)
                .containsExactly(
                        "FOLLOWER -> CANDIDATE at epoch 5 (CAMPAIGNING)",
                        "summary: FOLLOWER -> CANDIDATE (CAMPAIGNING) repeated 2 times in the last 3 s, the last at epoch 5",
                        "FOLLOWER -> DORMANT at epoch 5 (STOPPED)");
    }

    @Test
    void aChangeAfterAQuietWindowIsLoggedWithoutASummary() {
        change(0, FOLLOWER, CANDIDATE, 5, CAMPAIGNING);
        change(60_000, FOLLOWER, CANDIDATE, 6, CAMPAIGNING);

        assertThat(lines)
                .containsExactly(
                        "FOLLOWER -> CANDIDATE at epoch 5 (CAMPAIGNING)",
                        "FOLLOWER -> CANDIDATE at epoch 6 (CAMPAIGNING)");
    }
}
