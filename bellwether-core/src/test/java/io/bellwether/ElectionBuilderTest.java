package io.bellwether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.MessageCodec;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.ring.RingConfig;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    void revocationLeadMustBeBelowTenMinutesAndNotNegative() {
        assertThatThrownBy(() -> Election.builder().revocationLead(Duration.ofMinutes(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revocation-lead = 600000ms")
                .hasMessageContaining("less than 600000ms");
        assertThatThrownBy(() -> Election.builder().revocationLead(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revocation-lead = -1ms");
        Election.builder().revocationLead(Duration.ZERO).revocationLead(Duration.ofMillis(599_999));
    }

    @Test
    void memberWithTwoAddressesIsRefused() {
        assertThatThrownBy(() -> Election.builder()
                        .member(A, NodeAddress.parse("localhost:7101"))
                        .member(A, NodeAddress.parse("localhost:7102")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("member a is given two addresses");
    }

    @Test
    void everyAlgorithmWhoseMembersExchangeMessagesIsRefusedWithoutATransport() {
        for (ElectorSpec spec : List.<ElectorSpec>of(
                QuorumConfig.defaults(), BullyConfig.defaults(), RingConfig.defaults(), InvitationConfig.defaults())) {
            assertThatThrownBy(() -> Election.builder()
                            .group("jobs")
                            .self(A)
                            .member(A, NodeAddress.parse("localhost:7101"))
                            .algorithm(spec)
                            .stateStore(new InMemoryStateStore())
                            .build())
                    .as(spec.algorithm())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("transport is required: algorithm '" + spec.algorithm()
                            + "' exchanges messages between members")
                    .hasMessageContaining("lease");
        }
    }

    @Test
    void membersWithoutTheirListAreTakenFromTheTransport() {
        try (InProcessNetwork network = new InProcessNetwork()) {
            Transport known = new KnownMembers(
                    network.transport(A), Map.of(A, NodeAddress.parse("localhost:7101"), B, NodeAddress.parse("b:1")));
            assertThatThrownBy(() -> Election.builder()
                            .group("jobs")
                            .self(NodeId.of("z"))
                            .stateStore(new InMemoryStateStore())
                            .transport(known)
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("self = z is not one of the members [a, b]");
        }
    }

    @Test
    void aTransportThatKnowsNoMembersLeavesThemRequired() {
        try (InProcessNetwork network = new InProcessNetwork()) {
            assertThatThrownBy(() -> Election.builder()
                            .group("jobs")
                            .self(A)
                            .stateStore(new InMemoryStateStore())
                            .transport(network.transport(A))
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("members is required");
        }
    }

    @Test
    void aMemberWithoutAnAddressTakesTheTransportsOne() throws Exception {
        NodeAddress address = NodeAddress.parse("10.1.2.3:7101");
        try (InProcessNetwork network = new InProcessNetwork()) {
            Transport known = new KnownMembers(network.transport(A), Map.of(A, address));
            for (ElectionBuilder builder : List.of(
                    Election.builder().transport(known),
                    Election.builder().transport(known).member(A))) {
                Election election = builder.group("jobs")
                        .self(A)
                        .stateStore(new InMemoryStateStore())
                        .build();
                CompletableFuture<LeaderView> led = new CompletableFuture<>();
                election.addListener(new ElectionListener() {
                    @Override
                    public void leaderChanged(Optional<LeaderView> leader) {
                        leader.ifPresent(led::complete);
                    }
                });
                election.start();
                try {
                    LeaderView view = led.get(10, TimeUnit.SECONDS);
                    assertThat(view.leader()).isEqualTo(A);
                    assertThat(view.address()).contains(address);
                } finally {
                    election.close();
                }
            }
        }
    }

    /** A transport configured with its members, as a TCP transport is. */
    private record KnownMembers(Transport delegate, Map<NodeId, NodeAddress> known) implements Transport {
        @Override
        public void register(String group, NodeId self, TransportListener listener) {
            delegate.register(group, self, listener);
        }

        @Override
        public void register(String group, NodeId self, MessageCodec codec, TransportListener listener) {
            delegate.register(group, self, codec, listener);
        }

        @Override
        public void send(String group, NodeId to, ElectorMessage message) {
            delegate.send(group, to, message);
        }

        @Override
        public void unregister(String group, NodeId self) {
            delegate.unregister(group, self);
        }

        @Override
        public Set<NodeId> members() {
            return known.keySet();
        }

        @Override
        public Optional<NodeAddress> address(NodeId member) {
            return Optional.ofNullable(known.get(member));
        }
    }
}
