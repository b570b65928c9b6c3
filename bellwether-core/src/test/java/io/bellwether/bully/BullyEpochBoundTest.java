package io.bellwether.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.NodeId;
import io.bellwether.bully.BullyMessage.Coordinator;
import io.bellwether.bully.BullyMessage.Election;
import io.bellwether.bully.BullyMessage.Heartbeat;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.RankedEpoch;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.StoredState;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Both bully electors and {@link Counters#LIMIT}: epoch counters out of range never reach their state. */
class BullyEpochBoundTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");

    /** n3 (rank 2) leading a counter: packed by hand, as {@link RankedEpoch#of} refuses counters out of range. */
    private static long byN3(long counter) {
        return (counter << Counters.EPOCH_RANK_BITS) | 2;
    }

    private static BullyConfig config(boolean strict) {
        return BullyConfig.defaults().toBuilder().strict(strict).build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void epochsWhoseCounterIsOutOfRangeAreIgnoredAndNothingIsPersisted(boolean strict) {
        ScriptedContext ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 7);
        Elector elector = config(strict).create(ctx);
        elector.start();
        ctx.takeSent();
        long id = 1;
        for (long epoch : new long[] {byN3(Counters.LIMIT), byN3(Counters.LIMIT + 1), Long.MAX_VALUE, -1}) {
            elector.onMessage(N3, new Coordinator(epoch, id++));
            elector.onMessage(N3, new Heartbeat(epoch, id++));
            elector.onMessage(N1, new Election(epoch, id++));
        }
        assertThat(ctx.persisted()).isEmpty();
        assertThat(ctx.sent()).as("not even answered").isEmpty();
        assertThat(elector.state().epoch()).isZero();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void startRefusesAStoredEpochOrCounterOutOfRange(boolean strict) {
        ScriptedContext ctx = new ScriptedContext(N2, List.of(N1, N2, N3), 7);
        ctx.storeState(StoredState.EMPTY.with(BullyElector.EPOCH_KEY, byN3(Counters.LIMIT)));
        Elector e = config(strict).create(ctx);
        assertThatThrownBy(e::start).hasMessageContaining("stored epoch").hasMessageContaining("out of range");

        ScriptedContext ctx2 = new ScriptedContext(N2, List.of(N1, N2, N3), 7);
        ctx2.storeState(StoredState.EMPTY.with(BullyElector.COUNTER_KEY, Long.MAX_VALUE));
        Elector f = config(strict).create(ctx2);
        assertThatThrownBy(f::start).hasMessageContaining("stored counter " + Long.MAX_VALUE);
    }
}
