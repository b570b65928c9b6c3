package io.bellwether.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bench.chaos.ChaosChecker.Write;
import io.bellwether.bench.chaos.ChaosRecord.Attempt;
import io.bellwether.bench.chaos.ChaosRecord.Fault;
import io.bellwether.bench.chaos.ChaosRecord.Observation;
import io.bellwether.bench.chaos.ChaosRecord.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checker on small made-up histories: a clean one passes, and each broken rule (a stale write accepted, an
 * acknowledged write lost, two leaders acting at once, no agreement after a heal, agreement too late) is found, so
 * that a checker that missed any of them would fail here.
 */
class ChaosCheckerTest {
    private static final long MS = 1_000_000;
    private static final long T0 = 1_700_000_000_000L * MS;
    private static final List<String> NODES = List.of("n1", "n2", "n3");
    private static final long BOUND = 1000 * MS;

    /** n1 leads epoch 1 until a kill at 1 s; n2 leads epoch 2 from 1.5 s; n1 restarts at 1.2 s. */
    private final List<Fault> faults =
            new ArrayList<>(List.of(new Fault("kill", "kill -9 n1", List.of("n1"), at(1000), at(1200))));

    private final List<Observation> observations = new ArrayList<>();
    private final List<Attempt> attempts = new ArrayList<>();
    private final List<Write> writes = new ArrayList<>();

    ChaosCheckerTest() {
        for (long t = 0; t < 3000; t += 50) {
            boolean first = t < 1000;
            boolean settled = t >= 1500;
            for (String n : NODES) {
                String role;
                String leader = null;
                long epoch = 0;
                if (first) {
                    role = n.equals("n1") ? "LEADER" : "FOLLOWER";
                    leader = "n1";
                    epoch = 1;
                } else if (n.equals("n1") && t < 1200) {
                    role = "DOWN";
                } else if (settled) {
                    role = n.equals("n2") ? "LEADER" : "FOLLOWER";
                    leader = "n2";
                    epoch = 2;
                } else {
                    role = "FOLLOWER";
                }
                observations.add(new Observation(n, at(t) + NODES.indexOf(n), role, leader, epoch));
            }
        }
        long seq = 1;
        for (long t = 100, c = 1; t < 1000; t += 100, c++) {
            attempts.add(new Attempt(1, "n1", c, at(t), at(t + 5), "accepted"));
            writes.add(new Write(seq++, 1, "n1", c));
        }
        for (long t = 1600, c = 1; t < 3000; t += 100, c++) {
            attempts.add(new Attempt(2, "n2", c, at(t), at(t + 5), "accepted"));
            writes.add(new Write(seq++, 2, "n2", c));
        }
    }

    private static long at(long millis) {
        return T0 + millis * MS;
    }

    private Verdict check() {
        return ChaosChecker.check(NODES, faults, observations, attempts, writes, at(3000), BOUND, true);
    }

    @Test
    void aCleanHistoryHasNoViolationAndMeasuresTheRecovery() {
        Verdict v = check();
        assertThat(v.violations()).isEmpty();
        assertThat(v.accepted()).isEqualTo(writes.size());
        assertThat(v.recoveries()).hasSize(1);
        // Agreement on n2 at epoch 2 from the first poll round at 1.5 s: 300 ms after the restart at 1.2 s.
        long after = v.recoveries().get(0).convergedNs() - at(1200);
        assertThat(after).isBetween(300 * MS, 303 * MS);
    }

    @Test
    void theFailoverOfAFaultOnTheLeaderIsTimedFromTheFaultToAMajorityNamingTheNewLeader() {
        // Killed at 1 s; from the poll round at 1.5 s n1 (restarted) names n2 at epoch 2, and n2, polled 1 ns later,
        // says it leads: a majority of two, without waiting for n3.
        assertThat(ChaosChecker.failovers(NODES, faults, observations)).containsExactly(Map.entry(0, 500 * MS + 1));
        // A fault on a follower is no failover.
        faults.set(0, new Fault("kill", "kill -9 n3", List.of("n3"), at(1000), at(1200)));
        assertThat(ChaosChecker.failovers(NODES, faults, observations)).isEmpty();
    }

    @Test
    void aStaleWriteAcceptedAfterANewerOneIsAViolation() {
        writes.add(new Write(1000, 1, "n1", 99));
        assertThat(check().violations()).anySatisfy(s -> assertThat(s).startsWith("stale write accepted: epoch 1"));
    }

    @Test
    void anAcknowledgedWriteMissingFromTheDataIsAViolation() {
        writes.remove(3);
        assertThat(check().violations()).anySatisfy(s -> assertThat(s).startsWith("acknowledged write lost"));
    }

    @Test
    void twoEpochsActingAtOnceIsAViolation() {
        attempts.add(new Attempt(1, "n1", 50, at(1700), at(1705), "stale"));
        assertThat(check().violations()).anySatisfy(s -> assertThat(s).startsWith("two leaders acted at once"));
    }

    @Test
    void forAnAlgorithmWithoutOneLeaderUnderPartitionsAnOverlapIsCountedNotFailed() {
        attempts.add(new Attempt(1, "n1", 50, at(1700), at(1705), "stale"));
        Verdict v = ChaosChecker.check(NODES, faults, observations, attempts, writes, at(3000), BOUND, false);
        assertThat(v.violations()).isEmpty();
        assertThat(v.overlapsCaughtByFence()).isEqualTo(1);
        // The fence must still hold for it.
        writes.add(new Write(1000, 1, "n1", 50));
        attempts.set(attempts.size() - 1, new Attempt(1, "n1", 50, at(1700), at(1705), "accepted"));
        assertThat(ChaosChecker.check(NODES, faults, observations, attempts, writes, at(3000), BOUND, false)
                        .violations())
                .anySatisfy(s -> assertThat(s).startsWith("stale write accepted"));
    }

    @Test
    void aPauseOfTheOlderLeaderThatDoesNotExplainTheOverlapExcusesNothing() {
        // n1 was paused once early in its epoch (and resumed long before n2 began); its attempt at 1.7 s, after n2
        // began at 1.6 s, is no resumed process's: two leaders.
        faults.add(new Fault("pause", "SIGSTOP n1", List.of("n1"), at(200), at(300)));
        attempts.add(new Attempt(1, "n1", 50, at(1700), at(1705), "stale"));
        assertThat(check().violations()).anySatisfy(s -> assertThat(s).startsWith("two leaders acted at once"));
        // Nor does a pause of the newer leader.
        faults.set(1, new Fault("pause", "SIGSTOP n2", List.of("n2"), at(1500), at(1690)));
        assertThat(check().violations()).anySatisfy(s -> assertThat(s).startsWith("two leaders acted at once"));
    }

    @Test
    void anOverlapOfAPausedLeaderIsCountedAsCaughtByTheFence() {
        faults.add(new Fault("pause", "SIGSTOP n1", List.of("n1"), at(1550), at(2500)));
        attempts.add(new Attempt(1, "n1", 50, at(2500), at(2505), "stale"));
        Verdict v = check();
        assertThat(v.violations()).noneSatisfy(s -> assertThat(s).startsWith("two leaders"));
        assertThat(v.overlapsCaughtByFence()).isEqualTo(1);
        assertThat(v.stale()).isEqualTo(1);
    }

    @Test
    void membersThatNeverAgreeAfterAHealAreAViolation() {
        observations.removeIf(o -> o.node().equals("n3") && o.atNs() >= at(1200));
        for (long t = 1200; t < 3000; t += 50) {
            observations.add(new Observation("n3", at(t) + 2, "FOLLOWER", "n1", 1));
        }
        observations.sort((a, b) -> Long.compare(a.atNs(), b.atNs()));
        Verdict v = check();
        assertThat(v.violations()).anySatisfy(s -> assertThat(s).contains("never agreed on a leader"));
        assertThat(v.recoveries().get(0).convergedNs()).isZero();
    }

    @Test
    void agreementLaterThanTheBoundIsAViolation() {
        Verdict v = ChaosChecker.check(NODES, faults, observations, attempts, writes, at(3000), 200 * MS, true);
        assertThat(v.violations()).anySatisfy(s -> assertThat(s).contains("over the bound of 200 ms"));
    }

    @Test
    void observationsFromBeforeTheHealDoNotCountAsAgreement() {
        // Everyone agreed before the fault; a heal with no later observation must not converge on the old view.
        faults.set(0, new Fault("partition", "partition [n3]", List.of("n3"), at(100), at(900)));
        observations.removeIf(o -> o.atNs() >= at(900));
        Verdict v = ChaosChecker.check(NODES, faults, observations, attempts, writes, at(3000), BOUND, true);
        assertThat(v.recoveries().get(0).convergedNs()).isZero();
    }

    @Test
    void aMinorityThatAgreesIsNoAgreement() {
        observations.removeIf(o -> o.atNs() >= at(1200));
        for (long t = 1200; t < 3000; t += 50) {
            observations.add(new Observation("n1", at(t), "LEADER", "n1", 3));
            observations.add(new Observation("n2", at(t) + 1, "UNREACHABLE", null, 0));
            observations.add(new Observation("n3", at(t) + 2, "PAUSED", null, 0));
        }
        assertThat(check().recoveries().get(0).convergedNs()).isZero();
    }
}
