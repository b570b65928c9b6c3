package io.bellwether.elector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.bully.BullyAlgorithm;
import io.bellwether.invitation.InvitationAlgorithm;
import io.bellwether.quorum.QuorumAlgorithm;
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
}
