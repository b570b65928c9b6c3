package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.LeaderView;
import io.bellwether.Role;
import io.bellwether.elector.Quorums;
import io.bellwether.transport.tcp.TcpTransport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/**
 * The election's health, as the {@code bellwether} component of {@code /actuator/health}:
 *
 * <ul>
 *   <li>{@code UP}: the member takes part in the election, whether it leads or follows. Details: {@code group},
 *       {@code node}, {@code algorithm}, {@code role}, {@code epoch}, {@code leader} (the id, or {@code null} while
 *       no leader is known), and in lease mode {@code store} ({@code reachable} or {@code unknown} before the first
 *       call has ended).
 *   <li>{@code DOWN} (lease mode): the last call to the lease store failed; {@code store} is {@code unreachable},
 *       with {@code problem} ({@code UNREACHABLE}, {@code TIMEOUT}, {@code CREDENTIALS}, {@code SCHEMA}, {@code
 *       FAILED}) and {@code error}. Such a member never takes the lease, and a holder steps down at its renew
 *       deadline.
 *   <li>{@code OUT_OF_SERVICE}: the member cannot take part: the election is not started or is closed ({@code
 *       state}), or (quorum over TCP) fewer than a majority of the members, this one included, are connected
 *       ({@code connected}, {@code members}), so no leader can be elected or kept on its side.
 * </ul>
 *
 * <p>A store outage makes every instance {@code DOWN} at once: keep this indicator out of a liveness probe's group
 * (restarting the application does not bring the database back); it belongs in readiness or in monitoring.
 */
public class BellwetherHealthIndicator extends AbstractHealthIndicator {
    private final Election election;
    private final ElectionFactory factory;

    BellwetherHealthIndicator(Election election, ElectionFactory factory) {
        super("Bellwether health check failed");
        this.election = election;
        this.factory = factory;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("group", election.group());
        details.put("node", election.self().value());
        details.put("algorithm", factory.settings().algorithm().name());
        Role role = election.role();
        details.put("role", role.name());
        details.put("epoch", election.epoch());
        Optional<LeaderView> leader = election.leader();
        details.put("leader", leader.map(l -> l.leader().value()).orElse(null));
        builder.withDetails(details);
        if (election.closed().toCompletableFuture().isDone()) {
            builder.status(Status.OUT_OF_SERVICE).withDetail("state", "closed");
            return;
        }
        if (role == Role.DORMANT) {
            builder.status(Status.OUT_OF_SERVICE).withDetail("state", "not started");
            return;
        }
        Optional<StoreHealth> store = factory.store();
        if (store.isPresent()) {
            StoreHealth.State state = store.get().state();
            if (state.reachable().isEmpty()) {
                builder.up().withDetail("store", "unknown");
            } else if (state.reachable().get()) {
                builder.up().withDetail("store", "reachable");
            } else {
                builder.down()
                        .withDetail("store", "unreachable")
                        .withDetail("problem", state.problem().orElse("FAILED"))
                        .withDetail("error", state.lastError().orElse(""));
            }
            return;
        }
        if (factory.settings().algorithm().name().equals("quorum")
                && factory.transport().orElse(null) instanceof TcpTransport tcp) {
            int members = factory.settings().peers().size();
            long connected = 1
                    + tcp.peers().values().stream()
                            .filter(p -> p.state() == TcpTransport.PeerStatus.State.CONNECTED)
                            .count();
            if (connected < Quorums.majority(members)) {
                builder.status(Status.OUT_OF_SERVICE)
                        .withDetail("state", "no quorum reachable")
                        .withDetail("connected", connected)
                        .withDetail("members", members);
                return;
            }
        }
        builder.up();
    }
}
