package io.bellwether.elector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.bully.BullyAlgorithm;
import io.bellwether.invitation.InvitationAlgorithm;
import io.bellwether.quorum.QuorumAlgorithm;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry: the built-in algorithms in order, lookup, and a plug-in found on the class path after them. */
class AlgorithmsTest {
    @Test
    void theBuiltInAlgorithmsComeFirstInOrderThenThePlugIn() {
        assertThat(Algorithms.names()).containsExactly("quorum", "lease", "bully", "ring", "invitation", "test-toy");
        assertThat(Algorithms.all().get(0)).isSameAs(QuorumAlgorithm.INSTANCE);
        assertThat(Algorithms.all().get(5)).isInstanceOf(TestToyAlgorithm.class);
    }

    @Test
    void theVariantsAreTheSimulatorsRunsInOrderThenThePlugIns() {
        assertThat(Algorithms.variants().stream().map(Variant::name))
                .containsExactly(
                        "quorum",
                        "lease",
                        "bully",
                        "bully-strict",
                        "ring",
                        "invitation",
                        "invitation-gated",
                        "test-toy");
    }

    @Test
    void lookupByNameAndByVariant() {
        assertThat(Algorithms.require("bully")).isSameAs(BullyAlgorithm.INSTANCE);
        assertThat(Algorithms.byName("bully-strict")).isEmpty();
        assertThat(Algorithms.byVariant("bully-strict")).containsSame(BullyAlgorithm.INSTANCE);
        assertThat(Algorithms.byVariant("invitation-gated")).containsSame(InvitationAlgorithm.INSTANCE);
        assertThat(Algorithms.byVariant("test-toy").orElseThrow()).isInstanceOf(TestToyAlgorithm.class);
        assertThat(Algorithms.byVariant("paxos")).isEmpty();
    }

    @Test
    void anUnknownNameIsRefusedListingTheAllowedOnes() {
        assertThatThrownBy(() -> Algorithms.require("paxos"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("algorithm 'paxos' is unknown: allowed quorum, lease, bully, ring, invitation, test-toy");
    }

    @Test
    void aPlugInIsConfiguredThroughItsDescriptorLikeABuiltIn() {
        Algorithm toy = Algorithms.require("test-toy");
        assertThat(toy.traits()).containsExactly(Trait.PEER_MESSAGES);
        assertThat(toy.defaults(Environment.of("g")).algorithm()).isEqualTo("test-toy");
    }

    @Test
    void anAlgorithmsFirstVariantMustBeItsPlainRun() {
        Variant plain = Variant.defaults("x", Set.of());
        Variant changed = new Variant("x", Map.of("k", true), Set.of(), List.of());
        Variant other = Variant.defaults("y", Set.of());
        assertThat(described(List.of(plain, other)).variants()).containsExactly(plain, other);
        for (List<Variant> bad : List.of(List.<Variant>of(), List.of(other, plain), List.of(changed))) {
            assertThatThrownBy(() -> described(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("x: the first variant must be named like the algorithm and change nothing");
        }
    }

    private static Algorithm described(List<Variant> variants) {
        return new AbstractAlgorithm<Object, ElectorSpec>(
                "x", "test", List.of(), variants, environment -> new Object(), builder -> null) {
            @Override
            public boolean isKeepAlive(ElectorMessage message) {
                return false;
            }
        };
    }
}
