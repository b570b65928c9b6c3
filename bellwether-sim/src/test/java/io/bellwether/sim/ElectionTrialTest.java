package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.quorum.QuorumConfig;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One election measured alone ({@link ElectionTrial}) and the samples random runs take ({@link
 * ElectionSample}). The bully and ring counts are exact: every survivor notices the crash at once, which is
 * Garcia-Molina's worst case and, on a ring ordered by id, Chang–Roberts' best arrangement (docs/algorithms.md
 * derives both formulas). A miscounted message kind (a heartbeat counted, an acknowledgement or the
 * announcement's last lap missed) breaks them.
 */
class ElectionTrialTest {
    private static final Set<FaultKind> NONE = Set.of();

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {3, 5, 9, 65})
    void bullyElectionAfterTheTopNodeCrashesCostsGarciaMolinasWorstCaseWithAcks(int n) {
        for (FaultKind trigger : List.of(FaultKind.CRASH, FaultKind.SILENT_CRASH)) {
            ElectionSample s = sample("bully", n, 3, trigger);

            assertThat(s.messages()).as("%s, n = %d", trigger, n).isEqualTo((long) (n - 1) * (n - 1) + 2L * n - 3);
            assertThat(s.leaderships()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {3, 5, 9, 65})
    void ringElectionAfterTheTopNodeCrashesCostsChangRobertsWithEveryoneInitiatingAndAcks(int n) {
        ElectionSample s = sample("ring", n, 3, FaultKind.CRASH);

        assertThat(s.messages()).as("n = %d", n).isEqualTo(6L * n - 4);
        assertThat(s.leaderships()).isEqualTo(1);
    }

    @Test
    void heartbeatsAreCountedApartAndOnlyUntilConvergence() {
        // Quorum followers learn the new leader from its heartbeats; a silent crash lets the old leader's
        // heartbeats stop, so the election window holds the new leader's first round and its answers.
        ElectionSample s = sample("quorum", 5, 1, FaultKind.SILENT_CRASH);

        assertThat(s.heartbeats()).isPositive();
        // Scouting and proposal rounds: a request to each of the 4 others (the crashed one included) and an
        // answer from each of the 3 survivors, twice.
        assertThat(s.messages()).isEqualTo(14);
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {3, 5, 9})
    void stoppingTheQuorumLeaderCedesToItsStandbyWithOneMessage(int n) {
        ElectionSample s = sample("quorum", n, 2, FaultKind.STOP);

        // Rule 10: the standby gathered its pledges while the leader led; the cession to it is all (its first
        // heartbeats tell the others).
        assertThat(s.messages()).isEqualTo(1);
        assertThat(s.leaderships()).isEqualTo(1);
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {3, 5, 9})
    void withoutAStandbyStoppingTheQuorumLeaderPreparesItsSuccessorAndCedesOnce(int n) {
        SimulationConfig c = SimulationConfig.forAlgorithm("quorum", n, NONE);
        SimulationConfig config = new SimulationConfig(
                "quorum", QuorumConfig.builder().standby(false).build(), n, NONE, c.faultPhase(), c.quietPhase());
        ElectionTrial.Result r = ElectionTrial.run(config, 2, FaultKind.STOP);
        assertThat(r.violation()).isEmpty();
        ElectionSample s = r.sample().orElseThrow();

        // The request to the successor, its proposal to the n - 1 others, the votes of the n - 2 followers (the
        // leader does not vote), its readiness, and the cession to the n - 1 others: no scouting, no second round.
        assertThat(s.messages()).isEqualTo(1 + (n - 1) + (n - 2) + 1 + (n - 1));
        assertThat(s.leaderships()).isEqualTo(1);
    }

    static List<String> algorithms() {
        return SimulationConfig.ALGORITHMS;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("algorithms")
    void everyAlgorithmElectsAgainAfterThe65NodeGroupLosesItsLeader(String algorithm) {
        ElectionTrial.Result r =
                ElectionTrial.run(SimulationConfig.forAlgorithm(algorithm, 65, NONE), 1, FaultKind.CRASH);

        assertThat(r.violation()).isEmpty();
        assertThat(r.sample()).isPresent();
        ElectionSample s = r.sample().get();
        assertThat(s.complete()).isTrue();
        assertThat(s.leaderships()).isPositive();
        assertThat(s.nanos()).isPositive();
        if ("lease".equals(algorithm)) {
            assertThat(s.storeRequests()).isPositive();
        } else {
            assertThat(s.messages()).isPositive();
        }
    }

    @Test
    void sameSeedGivesTheSameSample() {
        SimulationConfig config = SimulationConfig.forAlgorithm("invitation", 9, NONE);

        assertThat(ElectionTrial.run(config, 7, FaultKind.SILENT_CRASH))
                .isEqualTo(ElectionTrial.run(config, 7, FaultKind.SILENT_CRASH));
        assertThat(ElectionTrial.run(config, 1, 4, FaultKind.STOP, 2))
                .isEqualTo(ElectionTrial.run(config, 1, 4, FaultKind.STOP, 1));
    }

    @Test
    void onlyFaultsThatTakeTheLeaderAwayForGoodCanTrigger() {
        SimulationConfig config = SimulationConfig.forAlgorithm("bully", 3, NONE);

        assertThatThrownBy(() -> ElectionTrial.run(config, 1, FaultKind.PARTITION))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trigger = partition")
                .hasMessageContaining("crash,silent-crash,stop");
    }

    @Test
    void randomRunsSampleElectionsThatNoOtherFaultInterrupted() {
        SimulationConfig config = SimulationConfig.forAlgorithm("bully", 5, Set.of(FaultKind.CRASH));
        int samples = 0;
        for (long seed = 1; seed <= 5; seed++) {
            RunResult r = Simulator.run(config, seed, false);
            assertThat(r.ok()).as("seed %d", seed).isTrue();
            for (ElectionSample s : r.electionSamples()) {
                samples++;
                assertThat(s.cause()).isEqualTo(FaultKind.CRASH);
                // Between one member's ELECTION and, for every ordered pair of members, an ELECTION or an OK
                // plus a COORDINATOR and its acknowledgement (a coordinator answers a late ELECTION with both).
                assertThat(s.messages()).isBetween(1L, 2L * 5 * 5);
                assertThat(s.nanos()).isPositive();
            }
        }
        assertThat(samples).isPositive();
    }

    private static ElectionSample sample(String algorithm, int n, long seed, FaultKind trigger) {
        ElectionTrial.Result r = ElectionTrial.run(SimulationConfig.forAlgorithm(algorithm, n, NONE), seed, trigger);
        assertThat(r.violation())
                .as("%s n=%d seed %d %s", algorithm, n, seed, trigger)
                .isEmpty();
        assertThat(r.sample())
                .as("%s n=%d seed %d %s: an election", algorithm, n, seed, trigger)
                .isPresent();
        ElectionSample s = r.sample().get();
        assertThat(s.complete()).isTrue();
        return s;
    }
}
