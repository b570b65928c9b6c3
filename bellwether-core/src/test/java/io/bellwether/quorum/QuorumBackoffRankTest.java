package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ScriptedContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The backoff ranking (rule 3 of {@code docs/quorum.md}): members take their turns to campaign in id order, or, when
 * the configuration knows every member's priority ({@link QuorumConfig#withPriorities}), highest priority first.
 */
class QuorumBackoffRankTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final List<NodeId> MEMBERS = List.of(N1, N2, N3, N4);

    /** The slot (0 = first turn) n3's backoff falls in, over many draws; fails if draws fall in different slots. */
    private static long slotOfN3(QuorumConfig config) {
        long min = config.backoffMin().toNanos();
        long slot = (config.backoffMax().toNanos() - min) / MEMBERS.size();
        long seen = -1;
        for (long seed = 0; seed < 200; seed++) {
            QuorumElector elector = (QuorumElector) config.create(new ScriptedContext(N3, MEMBERS, seed));
            long wait = elector.backoff() - min;
            assertThat(wait % slot).as("within the first half of its slot").isBetween(0L, slot / 2);
            long s = wait / slot;
            assertThat(seen == -1 || seen == s).as("always the same slot").isTrue();
            seen = s;
        }
        return seen;
    }

    @Test
    void withoutTheMembersPrioritiesTheTurnsGoByIdEvenForAMemberWithAPriorityOfItsOwn() {
        assertThat(slotOfN3(QuorumConfig.defaults())).isEqualTo(2);
        assertThat(slotOfN3(QuorumConfig.builder().priority(7).build())).isEqualTo(2);
    }

    @Test
    void withEveryMembersPriorityTheHighestGoesFirstThenTheLowerIds() {
        QuorumConfig first = QuorumConfig.defaults().withPriorities(Map.of(N3, 3, N1, 2, N2, 1, N4, 0), N3);
        assertThat(first.priority()).isEqualTo(3);
        assertThat(slotOfN3(first)).isZero();

        QuorumConfig last = QuorumConfig.defaults().withPriorities(Map.of(N1, 3, N2, 2, N4, 1), N3);
        assertThat(last.priority()).isZero();
        assertThat(slotOfN3(last)).isEqualTo(3);

        // Equal priorities: the lower ids first, as without priorities (n1 above; n2 equal to n3 and before it).
        QuorumConfig tied = QuorumConfig.defaults().withPriorities(Map.of(N1, 2, N2, 1, N3, 1), N3);
        assertThat(slotOfN3(tied)).isEqualTo(2);
    }
}
