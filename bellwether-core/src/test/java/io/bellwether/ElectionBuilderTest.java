package io.bellwether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ElectionBuilderTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private ElectionBuilder complete(InProcessNetwork network) {
        return Election.builder()
                .group("jobs")
                .self(A)
                .member(A, NodeAddress.parse("localhost:7101"))
                .member(B, NodeAddress.parse("localhost:7102"))
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(A));
    }

    @Test
    void completeConfigurationBuildsADormantElection() {
        try (InProcessNetwork network = new InProcessNetwork()) {
            Election election = complete(network).build();
            assertThat(election.role()).isEqualTo(Role.DORMANT);
            assertThat(election.group()).isEqualTo("jobs");
            assertThat(election.self()).isEqualTo(A);
            election.close();
        }
    }

    @Test
    void missingStateStoreIsRefusedWithTheChoices() {
        try (InProcessNetwork network = new InProcessNetwork()) {
            ElectionBuilder builder = Election.builder()
                    .group("jobs")
                    .self(A)
                    .member(A, NodeAddress.parse("localhost:7101"))
                    .transport(network.transport(A));
            assertThatThrownBy(builder::build)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("state-store is required")
                    .hasMessageContaining("new FileStateStore(directory)")
                    .hasMessageContaining("new InMemoryStateStore()")
                    .hasMessageContaining("vote twice");
        }
    }

    @Test
    void missingTransportIsRefused() {
        assertThatThrownBy(() -> Election.builder()
                        .group("jobs")
                        .self(A)
                        .member(A, NodeAddress.parse("localhost:7101"))
                        .stateStore(new InMemoryStateStore())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transport is required");
    }

    @Test
    void selfMustBeAMember() {
        try (InProcessNetwork network = new InProcessNetwork()) {
            assertThatThrownBy(() -> complete(network).self(NodeId.of("z")).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("self = z is not one of the members [a, b]");
        }
    }

    @Test
    void invalidGroupNameIsRefusedNamingKeyAndValue() {
        assertThatThrownBy(() -> Election.builder().group("../etc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group = '../etc' is invalid")
                .hasMessageContaining("letters, digits");
    }

    @Test
    void revocationLeadMustBeBelowOneSecondAndNotNegative() {
        assertThatThrownBy(() -> Election.builder().revocationLead(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revocation-lead = 1000ms")
                .hasMessageContaining("less than 1000ms");
        assertThatThrownBy(() -> Election.builder().revocationLead(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revocation-lead = -1ms");
        Election.builder().revocationLead(Duration.ZERO).revocationLead(Duration.ofMillis(999));
    }

    @Test
    void memberWithTwoAddressesIsRefused() {
        assertThatThrownBy(() -> Election.builder()
                        .member(A, NodeAddress.parse("localhost:7101"))
                        .member(A, NodeAddress.parse("localhost:7102")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("member a is given two addresses");
    }
}
