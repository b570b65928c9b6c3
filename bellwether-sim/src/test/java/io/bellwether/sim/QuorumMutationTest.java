package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.StoredState;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.quorum.QuorumMessage;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The checkers can fail: each test breaks the real quorum elector in one way, by wrapping it or its
 * context, and expects the simulator to report the invariant that the breakage violates, with the seed and a
 * replay command that reproduces it.
 */
@Tag("quorum")
class QuorumMutationTest {
    private static final int MAX_SEEDS = 300;
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();

    /** Wraps the real spec: {@code wrap} turns (context, create) into an elector. */
    @Test
    void forgettingTheTermIsCaught() {
        ElectorSpec forgetful = DelegatingSpec.wrapping(
                CONFIG,
                ctx -> CONFIG.create(new ForwardingContext(ctx) {
                    @Override
                    public StoredState storedState() {
                        return StoredState.EMPTY;
                    }

                    @Override
                    public void persist(StoredState state) {}
                }));
        Violation v =
                Mutations.firstViolation("quorum", forgetful, Set.of("term-monotonic", "one-vote-per-term"), MAX_SEEDS);
        assertThat(v.message()).containsPattern("n\\d");
    }

    @Test
    void aSuccessorThatLeadsBeforeTheOldLeaderCedesIsCaught() {
        // Breaks the prepared handover (rule 9): the successor takes the leader's request for the cession itself,
        // so it leads once its votes are in while the old leader, which has not revoked, still leads.
        ElectorSpec impatient = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof QuorumMessage.HandoverRequest r) {
                    inner.onMessage(from, new QuorumMessage.LeadershipCession(r.term(), Optional.of(ctx.self())));
                    return;
                }
                inner.onMessage(from, message);
            }
        });
        Violation v = Mutations.firstViolation("quorum", impatient, Set.of("no-overlapping-validity"), MAX_SEEDS);
        assertThat(v.message()).contains("both valid leaders");
    }

    @Test
    void aStandbyThatLeadsOnceItsPledgesAreInWithoutWaitingForTheCessionIsCaught() {
        // Breaks rule 10: the standby takes each confirmation as its leader's cession, so it leads in its pledged
        // term while the leader that named it, which has not revoked, still leads.
        ElectorSpec impatient = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            private NodeId namedBy;
            private long namedIn;

            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof QuorumMessage.StandbyRequest r && r.pledgeTerm() > 0) {
                    namedBy = from;
                    namedIn = r.term();
                }
                inner.onMessage(from, message);
                if (message instanceof QuorumMessage.StandbyConfirm && namedBy != null) {
                    inner.onMessage(namedBy, new QuorumMessage.LeadershipCession(namedIn, Optional.of(ctx.self())));
                }
            }
        });
        Violation v = Mutations.firstViolation("quorum", impatient, Set.of("no-overlapping-validity"), MAX_SEEDS);
        assertThat(v.message()).contains("both valid leaders");
    }

    @Test
    void aFollowerThatConfirmsEveryStandbyRoundWithoutAPledgeIsCaught() {
        // Breaks rule 10's pledge: a member confirms rounds it must refuse (another standby's term, or one it has
        // since voted in), so two members can hold its vote in one term.
        ElectorSpec promiscuous = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                inner.onMessage(from, message);
                if (message instanceof QuorumMessage.StandbyRound r) {
                    ctx.send(from, new QuorumMessage.StandbyConfirm(r.term(), r.pledgeTerm(), r.sequence()));
                }
            }
        });
        Violation v = Mutations.firstViolation("quorum", promiscuous, Set.of("one-vote-per-term"), MAX_SEEDS);
        assertThat(v.message()).contains("voted for").contains("in term");
    }

    @Test
    void votingForEveryProposalIsCaught() {
        ElectorSpec doubleVoter = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                inner.onMessage(from, message);
                if (message instanceof QuorumMessage.ElectionProposal p) {
                    ctx.send(from, new QuorumMessage.ElectionResponse(p.term()));
                }
            }
        });
        Violation v = Mutations.firstViolation("quorum", doubleVoter, Set.of("one-vote-per-term"), MAX_SEEDS);
        assertThat(v.message()).contains("voted for").contains("in term");
    }

    /**
     * Runs {@code hasty}, a quorum elector that takes a mere closing for a departure, until two valid leaderships
     * overlap. The scenario needs a reset on the leader's last confirming link while another member, cut off,
     * scouts: three nodes with the network faults that make it find one in a few hundred seeds.
     */
    private static void assertOverlapFoundUnderConnectionFaults(ElectorSpec hasty) {
        Violation v = Mutations.firstViolation(
                "quorum",
                hasty,
                3,
                Set.of(FaultKind.RESET, FaultKind.ONE_WAY, FaultKind.PARTITION, FaultKind.ISOLATE),
                Set.of("no-overlapping-validity"),
                3000);
        assertThat(v.message()).contains("both valid leaders");
    }

    @Test
    void takingAClosedConnectionAsThePeersDepartureIsCaught() {
        // The elector as it was before closings and departures were told apart: a member that is told its
        // connection closed lifts the fence its leader set, and supports a successor, while that leader, not yet
        // told (the two ends of a connection learn of its end separately), still counts its confirmation.
        ElectorSpec hasty = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onPeerDisconnected(NodeId peer) {
                inner.onPeerDisconnected(peer);
                inner.onPeerGone(peer);
            }
        });
        assertOverlapFoundUnderConnectionFaults(hasty);
    }

    @Test
    void aStandbyThatTakesAMereClosingOfItsLeadersConnectionForItsDepartureIsCaught() {
        // Breaks rule 10.6: the standby leads in its pledged term when told that its leader's connection closed,
        // without the refused redial that proves the leader's process gone. The leader, not yet told (the two
        // ends of a connection learn of its end separately), still leads on the other followers' confirmations.
        ElectorSpec hasty = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            private NodeId namedBy;

            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof QuorumMessage.StandbyRequest r) {
                    namedBy = r.pledgeTerm() > 0 ? from : null;
                }
                inner.onMessage(from, message);
            }

            @Override
            public void onPeerDisconnected(NodeId peer) {
                inner.onPeerDisconnected(peer);
                if (peer.equals(namedBy)) {
                    inner.onPeerGone(peer);
                }
            }
        });
        assertOverlapFoundUnderConnectionFaults(hasty);
    }

    @Test
    void scoutingThatActsLikeAProposalIsCaught() {
        ElectorSpec eager = DelegatingSpec.wrapping(CONFIG, ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof QuorumMessage.ScoutingRequest s) {
                    inner.onMessage(from, new QuorumMessage.ElectionProposal(s.term()));
                } else {
                    inner.onMessage(from, message);
                }
            }
        });
        Violation v = Mutations.firstViolation("quorum", eager, Set.of("scouting-changes-no-state"), MAX_SEEDS);
        assertThat(v.message()).contains("ScoutingRequest");
    }
}
