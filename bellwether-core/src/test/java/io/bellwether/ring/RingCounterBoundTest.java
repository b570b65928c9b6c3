package io.bellwether.ring;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.Counters;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.ring.RingMessage.Coordinator;
import io.bellwether.ring.RingMessage.Election;
import io.bellwether.ring.RingMessage.ElectionId;
import io.bellwether.ring.RingMessage.Heartbeat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ring elector and {@link Counters#LIMIT}: epoch counters and maxCounter out of range never reach its state. */
class RingCounterBoundTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3);

    /** n3 (rank 2) coordinating a counter, packed by hand: {@link RankedEpoch#of} refuses counters out of range. */
    private static long byN3(long counter) {
        return (counter << Counters.EPOCH_RANK_BITS) | 2;
    }

    @Test
    void messagesWithACounterOutOfRangeAreIgnoredAndNothingIsPersisted() {
        ScriptedContext ctx = new ScriptedContext(N2, MEMBERS, 11);
        RingElector elector = (RingElector) RingConfig.defaults().create(ctx);
        elector.start();
        ctx.takeSent();
        long id = 1;
        ElectionId eid = new ElectionId(N1, 5);
        for (long epoch : new long[] {byN3(Counters.LIMIT), Long.MAX_VALUE, Long.MAX_VALUE - 1}) {
            elector.onMessage(N3, new Coordinator(epoch, id++, eid, N3, MEMBERS));
            elector.onMessage(N3, new Heartbeat(epoch, id++));
        }
        elector.onMessage(N1, new Election(0, id++, eid, Counters.LIMIT, List.of(N1)));
        elector.onMessage(N1, new Election(0, id++, eid, Long.MAX_VALUE, List.of(N1)));

        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent()).as("not even acknowledged").isEmpty();
        assertThat(elector.state().epoch()).isZero();
    }
}
