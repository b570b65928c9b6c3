package io.bellwether.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.StoredState;
import io.bellwether.ring.RingConfig;
import io.bellwether.ring.RingMessage;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bully and ring checkers can fail: each test breaks the real elector in one way (its config, its
 * context or its outgoing messages) while the simulator still believes it runs the real one, and expects the
 * invariant that the breakage violates, with its seed and a replay that reproduces it.
 */
class ClassicMutationTest {
    private static final int MAX_SEEDS = 200;

    @Test
    void bullyThatNeverPreemptsIsCaught() {
        BullyConfig real = BullyConfig.defaults();
        BullyConfig meek = real.toBuilder().preemption(false).build();
        Violation v = Mutations.firstViolation(
                "bully", DelegatingSpec.wrapping(real, meek::create), Set.of("single-leader-after-quiet"), MAX_SEEDS);
        assertThat(v.message()).contains("highest live id");
    }

    @Test
    void bullyThatForgetsItsEpochIsCaught() {
        BullyConfig real = BullyConfig.defaults();
        ElectorSpec forgetful = DelegatingSpec.wrapping(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    @Override
                    public StoredState storedState() {
                        return StoredState.EMPTY;
                    }
                }));
        Violation v = Mutations.firstViolation(
                "bully",
                forgetful,
                Set.of("term-monotonic", "adopted-epochs-increase", "one-coordinator-per-epoch"),
                MAX_SEEDS);
        assertThat(v.message()).containsPattern("n\\d");
    }

    @Test
    void ringThatNamesTheFirstIdInsteadOfTheMaxIsCaught() {
        RingConfig real = RingConfig.defaults();
        ElectorSpec firstWins = DelegatingSpec.wrapping(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    @Override
                    public void send(NodeId to, ElectorMessage message) {
                        if (message instanceof RingMessage.Coordinator c) {
                            NodeId first = c.ids().get(0);
                            long epoch = RankedEpoch.of(
                                    RankedEpoch.counter(c.epoch()), members().indexOf(first));
                            message = new RingMessage.Coordinator(epoch, c.messageId(), c.election(), first, c.ids());
                        }
                        delegate.send(to, message);
                    }
                }));
        Violation v = Mutations.firstViolation("ring", firstWins, Set.of("ring-coordinator-names-max"), MAX_SEEDS);
        assertThat(v.message()).contains("not the greatest of its ids");
    }

    @Test
    void ringThatForwardsAnElectionTwiceIsCaught() {
        RingConfig real = RingConfig.defaults();
        ElectorSpec echo = DelegatingSpec.wrapping(
                real,
                ctx -> real.create(new ForwardingContext(ctx) {
                    @Override
                    public void send(NodeId to, ElectorMessage message) {
                        delegate.send(to, message);
                        if (message instanceof RingMessage.Election e) {
                            delegate.send(
                                    to,
                                    new RingMessage.Election(
                                            e.epoch(), e.messageId() ^ 1, e.election(), e.maxCounter(), e.ids()));
                        }
                    }
                }));
        Violation v = Mutations.firstViolation("ring", echo, Set.of("ring-forward-once"), MAX_SEEDS);
        assertThat(v.message()).contains("twice");
    }
}
