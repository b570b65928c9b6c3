package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.quorum.QuorumConfig;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watchdog revokes a leadership whose validity was not extended in time, without the elector's loop. If the
 * elector then extends its validity after all (late confirmations arrive in the revocation lead, before its own
 * timer would have made it step down), it still leads at that epoch: the member must not be left announcing LEADER
 * with no valid leadership (no task running, every follower following it), but step down so that the group
 * elects a leader that holds a valid leadership.
 */
class WatchdogRevocationTest {
    private final InProcessNetwork network = new InProcessNetwork();
    private final List<Election> elections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(Election::close);
        network.close();
    }

    @Test
    void aLeaderRevokedByTheWatchdogWhoseElectorLeadsOnStepsDownSoThatTheGroupHasAValidLeaderAgain() throws Exception {
        List<NodeId> ids = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            members.put(ids.get(i), NodeAddress.parse("127.0.0.1:" + (7101 + i)));
        }
        // Election timeout 1 s, validity 590 ms after a confirmed round, the watchdog 300 ms before that: late
        // confirmations have a wide window after the watchdog's revocation and before the elector's own timer.
        QuorumConfig config = QuorumConfig.builder()
                .heartbeatInterval(Duration.ofMillis(100))
                .missedHeartbeats(10)
                .validityMargin(Duration.ofMillis(400))
                .build();
        Map<NodeId, GatedTransport> gates = new LinkedHashMap<>();
        Map<NodeId, Election> byId = new LinkedHashMap<>();
        for (NodeId id : ids) {
            GatedTransport gate = new GatedTransport(network.transport(id), false);
            gates.put(id, gate);
            Election e = Election.builder()
                    .group("watchdog")
                    .self(id)
                    .members(members)
                    .algorithm(config)
                    .revocationLead(Duration.ofMillis(300))
                    .stateStore(new InMemoryStateStore())
                    .transport(gate)
                    .build();
            elections.add(e);
            byId.put(id, e);
        }
        elections.forEach(Election::start);
        Leadership first = within(() -> elections.stream()
                        .map(Election::leadership)
                        .flatMap(Optional::stream)
                        .filter(Leadership::isValid)
                        .findFirst())
                .orElseThrow(() -> new AssertionError("no leader within " + CEILING));
        NodeId leader = byId.entrySet().stream()
                .filter(e -> e.getValue().leadership().filter(l -> l == first).isPresent())
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow();

        // The followers hear nothing for a while (their inbound messages wait), so the leader's confirmations stop...
        ids.stream().filter(id -> !id.equals(leader)).forEach(id -> gates.get(id)
                .hold());
        assertThat(first.revoked().toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isEqualTo(RevocationReason.VALIDITY_EXPIRED);
        // ...then arrive late, within the revocation lead: the leader's elector gets its confirmations back.
        gates.values().forEach(GatedTransport::release);

        Optional<Election> valid = within(() -> {
            Optional<Election> v = elections.stream().filter(Election::isLeader).findFirst();
            return v.filter(l -> elections.stream().allMatch(e -> e.leader()
                    .filter(view -> view.leader().equals(l.self()))
                    .isPresent()));
        });
        assertThat(valid)
                .as(
                        "a member holds a valid leadership again, and the others follow it (roles: %s)",
                        elections.stream()
                                .map(e -> e.self() + "=" + e.role() + "@" + e.epoch())
                                .toList())
                .isPresent();
    }

    private static final Duration CEILING = Duration.ofSeconds(10);

    /** Polls {@code probe} until it finds something, at most {@link #CEILING}; empty if it never does. */
    private static <T> Optional<T> within(java.util.function.Supplier<Optional<T>> probe) throws InterruptedException {
        long deadline = System.nanoTime() + CEILING.toNanos();
        while (true) {
            Optional<T> found = probe.get();
            if (found.isPresent() || System.nanoTime() > deadline) {
                return found;
            }
            TimeUnit.MILLISECONDS.sleep(5); // a bounded poll of the members' state, which has no event of its own
        }
    }
}
