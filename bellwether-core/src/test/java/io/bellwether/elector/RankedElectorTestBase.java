package io.bellwether.elector;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import java.util.List;
import java.util.Optional;

/**
 * The one harness of the ranked peer electors' unit tests (bully, strict bully, ring): a {@link ScriptedContext},
 * the elector under test, and the steps every transition test takes: start from a stored epoch, deliver a
 * message, fire a timer, and check role, epoch, leader and reason after the event.
 *
 * @param <E> the elector under test
 */
public abstract class RankedElectorTestBase<E extends RankedPeerElector<?>> {
    private final Class<E> type;
    /** The context of the elector under test; replaced by every start. */
    protected ScriptedContext ctx;
    /** The elector under test; replaced by every start. */
    protected E elector;

    private long nextId = 1_000;

    protected RankedElectorTestBase(Class<E> type) {
        this.type = type;
    }

    /** The packed epoch of {@code counter} led by the member of rank {@code rank}. */
    protected static long e(long counter, int rank) {
        return RankedEpoch.of(counter, rank);
    }

    /** Starts {@code self} among {@code members} with {@code spec}, from {@code storedEpoch} (0: nothing stored). */
    protected E startElector(NodeId self, List<NodeId> members, long seed, long storedEpoch, ElectorSpec spec) {
        ctx = new ScriptedContext(self, members, seed);
        if (storedEpoch > 0) {
            ctx.storeState(StoredState.EMPTY
                    .with(RankedPeerElector.EPOCH_KEY, storedEpoch)
                    .with(RankedPeerElector.COUNTER_KEY, RankedEpoch.counter(storedEpoch)));
        }
        elector = type.cast(spec.create(ctx));
        elector.start();
        return elector;
    }

    /** Delivers {@code message} from {@code from}. */
    protected void deliver(NodeId from, ElectorMessage message) {
        elector.onMessage(from, message);
    }

    /** A fresh message id for a message the test sends. */
    protected long id() {
        return nextId++;
    }

    /** Fires the armed timer named {@code timer} (the clock moves to its deadline). */
    protected void fire(String timer) {
        elector.onTimer(ctx.fire(timer));
    }

    /** Checks the announced role, epoch and leader, the adopted epoch, and that the last announcement says so. */
    protected void assertState(Role role, long epoch, NodeId leader) {
        assertThat(elector.state().role()).as("role").isEqualTo(role);
        assertThat(elector.state().epoch()).as("announced epoch").isEqualTo(epoch);
        assertThat(elector.epoch()).as("epoch").isEqualTo(epoch);
        assertThat(elector.state().leader()).as("leader").isEqualTo(Optional.ofNullable(leader));
        assertThat(ctx.lastAnnouncement().state()).as("last announcement").isEqualTo(elector.state());
    }

    /** Checks the reason of the last announcement. */
    protected void assertReason(ChangeReason reason) {
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(reason);
    }
}
