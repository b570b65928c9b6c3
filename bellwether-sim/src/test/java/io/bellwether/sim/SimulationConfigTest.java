package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.quorum.QuorumConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulationConfigTest {
    @Test
    void quorumDefaultsToItsDefaultConfigAndPhases() {
        SimulationConfig c = SimulationConfig.forAlgorithm("quorum", 5, FaultKind.all());
        assertThat(c.spec()).isInstanceOf(QuorumConfig.class);
        assertThat(c.faultPhase()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.quietPhase()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.nodes()).isEqualTo(5);
    }

    @Test
    void groupsUpTo1024NodesAreAcceptedAndLargerOnesRejectedWithTheLimit() {
        assertThat(SimulationConfig.MAX_NODES).isEqualTo(1024);
        assertThat(SimulationConfig.forAlgorithm("bully", 65, FaultKind.all()).nodes())
                .isEqualTo(65);
        assertThat(SimulationConfig.forAlgorithm("bully", 1024, FaultKind.all()).nodes())
                .isEqualTo(1024);
        assertThatThrownBy(() -> SimulationConfig.forAlgorithm("bully", 1025, FaultKind.all()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodes = 1025")
                .hasMessageContaining("allowed 1 to 1024");
        assertThatThrownBy(() -> SimulationConfig.forAlgorithm("bully", 0, FaultKind.all()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodes = 0");
    }

    @Test
    void unknownAlgorithmsAreRejectedWithTheAllowedOnes() {
        assertThatThrownBy(() -> SimulationConfig.forAlgorithm("paxos", 3, FaultKind.all()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paxos")
                .hasMessageContaining("quorum");
    }

    @Test
    void replayCommandNamesEverythingNeededToReplayOneSeed() {
        SimulationConfig c = SimulationConfig.forAlgorithm("quorum", 5, FaultKind.parseList("partition,crash"));
        assertThat(c.replayCommand(1234))
                .isEqualTo("./bellwether simulate --algorithm quorum --nodes 5 --seeds 1 --seed-start 1234"
                        + " --faults crash,partition");
        assertThat(SimulationConfig.forAlgorithm("quorum", 3, FaultKind.all()).replayCommand(7))
                .endsWith("--faults all");
    }

    @Test
    void leaseDefaultsToItsDefaultConfigOverTheSimulatedStore() {
        SimulationConfig c = SimulationConfig.forAlgorithm("lease", 5, FaultKind.all());
        assertThat(c.spec()).isInstanceOf(io.bellwether.lease.LeaseConfig.class);
        assertThat(c.spec().algorithm()).isEqualTo("lease");
        assertThat(SimulationConfig.ALGORITHMS).contains("quorum", "lease");
        assertThat(c.replayCommand(3)).startsWith("./bellwether simulate --algorithm lease --nodes 5");
    }

    @Test
    void bullyAndRingDefaultToTheirDefaultConfigsAndTakeTheNetworkFaults() {
        SimulationConfig bully = SimulationConfig.forAlgorithm("bully", 5, FaultKind.all());
        SimulationConfig ring = SimulationConfig.forAlgorithm("ring", 7, FaultKind.all());
        assertThat(bully.spec()).isInstanceOf(io.bellwether.bully.BullyConfig.class);
        assertThat(ring.spec()).isInstanceOf(io.bellwether.ring.RingConfig.class);
        assertThat(SimulationConfig.ALGORITHMS)
                .containsExactly("quorum", "lease", "bully", "bully-strict", "ring", "invitation", "invitation-gated");
        assertThat(FaultKind.PARTITION.appliesTo("bully")).isTrue();
        assertThat(FaultKind.STORE_OUTAGE.appliesTo("ring")).isFalse();
        assertThat(ring.replayCommand(9)).startsWith("./bellwether simulate --algorithm ring --nodes 7");
        assertThatThrownBy(() -> SimulationConfig.forAlgorithm("paxos", 3, FaultKind.all()))
                .hasMessageContaining("algorithm 'paxos'")
                .hasMessageContaining("allowed quorum,lease,bully,bully-strict,ring,invitation,invitation-gated");
    }

    @Test
    void bullyStrictRunsTheBullyElectorInStrictModeCheckedAsSplitBrain() {
        SimulationConfig strict = SimulationConfig.forAlgorithm("bully-strict", 5, FaultKind.all());
        assertThat(strict.spec()).isInstanceOfSatisfying(io.bellwether.bully.BullyConfig.class, c -> {
            assertThat(c.strict()).isTrue();
            assertThat(c.toBuilder().strict(false).build().toString())
                    .isEqualTo(io.bellwether.bully.BullyConfig.defaults().toString());
        });
        assertThat(FaultKind.PARTITION.appliesTo("bully-strict")).isTrue();
        assertThat(strict.replayCommand(4)).startsWith("./bellwether simulate --algorithm bully-strict --nodes 5");
        assertThat(Invariants.SPLIT_BRAIN_ALGORITHMS).contains("bully", "bully-strict");
        assertThat(Invariants.highestWins(strict.spec())).isTrue();
    }

    @Test
    void invitationRunsTheClassicElectorAndTheGatedRunTurnsTheMajorityGateOn() {
        SimulationConfig classic = SimulationConfig.forAlgorithm("invitation", 5, FaultKind.all());
        SimulationConfig gated = SimulationConfig.forAlgorithm("invitation-gated", 5, FaultKind.all());
        assertThat(classic.spec())
                .isInstanceOfSatisfying(
                        io.bellwether.invitation.InvitationConfig.class,
                        c -> assertThat(c.majorityGate()).isFalse());
        assertThat(gated.spec())
                .isInstanceOfSatisfying(
                        io.bellwether.invitation.InvitationConfig.class,
                        c -> assertThat(c.majorityGate()).isTrue());
        assertThat(FaultKind.PARTITION.appliesTo("invitation-gated")).isTrue();
        assertThat(gated.replayCommand(4)).startsWith("./bellwether simulate --algorithm invitation-gated --nodes 5");
        assertThat(Invariants.SPLIT_BRAIN_ALGORITHMS).contains("invitation").doesNotContain("invitation-gated");
    }

    @Test
    void theHighestIdMustWinOnlyWhenTheSpecPromisesIt() {
        assertThat(Invariants.highestWins(io.bellwether.bully.BullyConfig.defaults()))
                .isTrue();
        assertThat(Invariants.highestWins(io.bellwether.bully.BullyConfig.builder()
                        .preemption(false)
                        .build()))
                .isFalse();
        assertThat(Invariants.highestWins(io.bellwether.ring.RingConfig.defaults()))
                .isTrue();
        assertThat(Invariants.highestWins(QuorumConfig.defaults())).isFalse();
    }

    @Test
    void storeFaultsApplyOnlyToLeaseRunsAndNetworkFaultsOnlyToTheOthers() {
        assertThat(FaultKind.parseList("store-outage,store-slow,lost-reply"))
                .containsExactly(FaultKind.STORE_OUTAGE, FaultKind.STORE_SLOW, FaultKind.LOST_REPLY);
        assertThat(FaultKind.STORE_OUTAGE.appliesTo("lease")).isTrue();
        assertThat(FaultKind.STORE_OUTAGE.appliesTo("quorum")).isFalse();
        assertThat(FaultKind.PARTITION.appliesTo("lease")).isFalse();
        assertThat(FaultKind.PAUSE.appliesTo("lease")).isTrue();
        assertThat(FaultKind.CRASH.appliesTo("quorum")).isTrue();
    }

    @Test
    void exhaustiveExplorationRefusesTheLeaseElector() {
        assertThatThrownBy(() -> ExhaustiveExplorer.explore("lease", SimulationConfig.leaseDefaults(), 3, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("random seeds");
    }
}
