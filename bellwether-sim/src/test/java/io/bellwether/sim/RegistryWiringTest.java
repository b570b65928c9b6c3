package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.elector.Setting;
import io.bellwether.elector.Trait;
import io.bellwether.elector.Variant;
import io.bellwether.testkit.toy.ToyMessage;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulator reads runs, traits, checks and keep-alives from the algorithm descriptors, not from names. */
class RegistryWiringTest {
    /** The toy elector under another descriptor: {@code run} is its one variant. */
    private static Algorithm toyWith(Variant run, boolean pingIsKeepAlive) {
        return new Algorithm() {
            @Override
            public String name() {
                return run.name();
            }

            @Override
            public String summary() {
                return "test";
            }

            @Override
            public List<Setting<?>> settings() {
                return List.of();
            }

            @Override
            public ElectorSpec configure(Map<String, Object> values, Environment environment) {
                return ToySimulationTest.SPEC;
            }

            @Override
            public List<Variant> variants() {
                return List.of(run);
            }

            @Override
            public boolean isKeepAlive(ElectorMessage message) {
                return pingIsKeepAlive && message instanceof ToyMessage.Ping;
            }
        };
    }

    private static SimulationConfig config(Algorithm algorithm, Set<FaultKind> faults) {
        return new SimulationConfig(
                algorithm.name(),
                ToySimulationTest.SPEC,
                3,
                faults,
                Duration.ofSeconds(2),
                Duration.ofSeconds(1),
                algorithm);
    }

    @Test
    void theRunsAreTheRegisteredVariants() {
        assertThat(SimulationConfig.ALGORITHMS)
                .containsExactlyElementsOf(
                        Algorithms.variants().stream().map(Variant::name).toList());
        assertThat(SimulationConfig.forAlgorithm("bully-strict", 3, Set.of())
                        .variant()
                        .checks())
                .containsExactly("strict-bully");
        assertThat(SimulationConfig.variantOf("invitation-gated").has(Trait.EXCLUSIVE))
                .isTrue();
    }

    @Test
    void aConfigMustNameARunOfItsDescriptor() {
        assertThatThrownBy(() -> new SimulationConfig(
                        "bully",
                        ToySimulationTest.SPEC,
                        3,
                        Set.of(),
                        Duration.ZERO,
                        Duration.ZERO,
                        toyWith(Variant.defaults("toy", Set.of(Trait.PEER_MESSAGES)), true)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("algorithm 'bully' is not a run of toy: allowed toy");
    }

    @Test
    void anUnknownCheckIsRefused() {
        Algorithm odd = toyWith(new Variant("odd", Map.of(), Set.of(Trait.PEER_MESSAGES), List.of("paxos")), true);
        assertThatThrownBy(() -> Simulator.run(config(odd, Set.of()), 1, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("check 'paxos' of odd is unknown to the simulator: allowed quorum, ring, strict-bully,"
                        + " invitation");
    }

    @Test
    void faultKindsFollowTheTraits() {
        Variant peers = Variant.defaults("p", Set.of(Trait.PEER_MESSAGES));
        Variant store = Variant.defaults("s", Set.of(Trait.USES_STORE));
        Variant neither = Variant.defaults("n", Set.of());
        Variant both = Variant.defaults("b", Set.of(Trait.PEER_MESSAGES, Trait.USES_STORE));
        assertThat(FaultKind.PARTITION.appliesTo(peers)).isTrue();
        assertThat(FaultKind.STORE_OUTAGE.appliesTo(peers)).isFalse();
        assertThat(FaultKind.PARTITION.appliesTo(store)).isFalse();
        assertThat(FaultKind.STORE_OUTAGE.appliesTo(store)).isTrue();
        assertThat(FaultKind.PARTITION.appliesTo(neither)).isFalse();
        assertThat(FaultKind.STORE_OUTAGE.appliesTo(neither)).isFalse();
        assertThat(FaultKind.CRASH.appliesTo(neither)).isTrue();
        assertThat(FaultKind.LOSS.appliesTo(both)).isTrue();
        assertThat(FaultKind.LOST_REPLY.appliesTo(both)).isTrue();
        assertThatThrownBy(() -> FaultKind.CRASH.appliesTo("paxos"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("algorithm 'paxos'");
    }

    @Test
    void electionTrafficIsEveryMessageButTheDescriptorsKeepAlives() {
        Variant toy = Variant.defaults("toy", Set.of(Trait.PEER_MESSAGES));
        RunResult keepAlive = Simulator.run(config(toyWith(toy, true), EnumSet.noneOf(FaultKind.class)), 1, false);
        RunResult counted = Simulator.run(config(toyWith(toy, false), EnumSet.noneOf(FaultKind.class)), 1, false);
        assertThat(keepAlive.totalMessages()).isPositive().isEqualTo(counted.totalMessages());
        assertThat(keepAlive.electionMessages()).isZero();
        assertThat(counted.electionMessages()).isEqualTo(counted.totalMessages());
    }

    @Test
    void exhaustiveExplorationRefusesRunsWithoutPeerMessages() {
        assertThatThrownBy(() -> ExhaustiveExplorer.explore("lease", SimulationConfig.leaseDefaults(), 3, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the lease elector exchanges no messages");
    }
}
