package io.bellwether.elector;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ElectorStateTest {
    private final ElectorState state = new ElectorState(Role.FOLLOWER, 7, Optional.of(NodeId.of("n2")));

    @Test
    void statesWithTheSameRoleEpochAndLeaderAreEqual() {
        ElectorState same = new ElectorState(Role.FOLLOWER, 7, Optional.of(NodeId.of("n2")));

        assertThat(state).isEqualTo(same).hasSameHashCodeAs(same);
    }

    @Test
    void anyDifferentPartMakesADifferentState() {
        assertThat(state)
                .isNotEqualTo(new ElectorState(Role.CANDIDATE, 7, Optional.of(NodeId.of("n2"))))
                .isNotEqualTo(new ElectorState(Role.FOLLOWER, 8, Optional.of(NodeId.of("n2"))))
                .isNotEqualTo(new ElectorState(Role.FOLLOWER, 7, Optional.of(NodeId.of("n3"))))
                .isNotEqualTo(new ElectorState(Role.FOLLOWER, 7, Optional.empty()))
                .isNotEqualTo(null)
                .isNotEqualTo("FOLLOWER@7");
    }
}
