package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.StoredState;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.quorum.QuorumMessage;
import java.util.Set;
import java.util.function.Function;
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
    private static ElectorSpec mutant(Function<ElectorContext, Elector> wrap) {
        return new DelegatingSpec() {
            @Override
            public ElectorSpec delegate() {
                return CONFIG;
            }

            @Override
            public Elector create(ElectorContext context) {
                return wrap.apply(context);
            }
        };
    }

    private static Violation firstViolation(ElectorSpec spec, Set<String> expected) {
        SimulationConfig config = new SimulationConfig(
                "quorum",
                spec,
                5,
                FaultKind.all(),
                SimulationConfig.DEFAULT_FAULT_PHASE,
                SimulationConfig.DEFAULT_QUIET_PHASE);
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            RunResult r = Simulator.run(config, seed, false);
            if (!r.ok() && expected.contains(r.violations().get(0).invariant())) {
                Violation v = r.violations().get(0);
                assertThat(v.seed()).isEqualTo(seed);
                assertThat(v.replayCommand()).contains("--seed-start " + seed).startsWith("./bellwether simulate");
                assertThat(v.excerpt()).isNotEmpty().hasSizeLessThanOrEqualTo(40);
                assertThat(Simulator.run(config, seed, false).violations()).containsExactly(v);
                return v;
            }
        }
        throw new AssertionError("no run of " + MAX_SEEDS + " seeds reported any of " + expected);
    }

    @Test
    void forgettingTheTermIsCaught() {
        ElectorSpec forgetful = mutant(ctx -> CONFIG.create(new ForwardingContext(ctx) {
            @Override
            public StoredState storedState() {
                return StoredState.EMPTY;
            }

            @Override
            public void persist(StoredState state) {}
        }));
        Violation v = firstViolation(forgetful, Set.of("term-monotonic", "one-vote-per-term"));
        assertThat(v.message()).containsPattern("n\\d");
    }

    @Test
    void votingForEveryProposalIsCaught() {
        ElectorSpec doubleVoter = mutant(ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                inner.onMessage(from, message);
                if (message instanceof QuorumMessage.ElectionProposal p) {
                    ctx.send(from, new QuorumMessage.ElectionResponse(p.term()));
                }
            }
        });
        Violation v = firstViolation(doubleVoter, Set.of("one-vote-per-term"));
        assertThat(v.message()).contains("voted for").contains("in term");
    }

    @Test
    void aLeaderThatKeepsCountingDisconnectedFollowersIsCaught() {
        // Breaks the rule that makes fast failover safe: a leader whose connection to a follower closed stops
        // counting that follower's confirmations at once (the follower, told the same, may vote at once).
        ElectorSpec stubborn = mutant(ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onPeerDisconnected(NodeId peer) {
                if (inner.state().role() != Role.LEADER) {
                    inner.onPeerDisconnected(peer);
                }
            }
        });
        Violation v = firstViolation(stubborn, Set.of("no-overlapping-validity"));
        assertThat(v.message()).contains("both valid leaders");
    }

    @Test
    void scoutingThatActsLikeAProposalIsCaught() {
        ElectorSpec eager = mutant(ctx -> new ForwardingElector(CONFIG.create(ctx)) {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof QuorumMessage.ScoutingRequest s) {
                    inner.onMessage(from, new QuorumMessage.ElectionProposal(s.term()));
                } else {
                    inner.onMessage(from, message);
                }
            }
        });
        Violation v = firstViolation(eager, Set.of("scouting-changes-no-state"));
        assertThat(v.message()).contains("ScoutingRequest");
    }
}
