package io.bellwether.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Times one failover by the nodes' own stamps, read after the fact, so that nothing watches while it happens.
 *
 * <p>Every node stamps each change of its role or leader with the wall clock as the change reaches its
 * listeners ({@code at}, to the microsecond on Linux; one clock for every process of the machine) and keeps
 * its latest changes ({@code GET /history}). The watch notes the wall clock at the signal and stays away from
 * the nodes while the failover runs ({@link #QUIET}). Then it reads a resigning leader's history first (it
 * exits {@code handover-linger}, 200 ms by default, after its cession): its stamp on leaving LEADER starts the
 * time without a leader. Then it polls the survivors' {@code /status} until they agree on a leader above the
 * old epoch, and reads that leader's history: its stamp on becoming LEADER ends both figures.
 *
 * <p>An earlier version listened to every node's {@code /events} while the failover ran: the streams' writer
 * threads, this process's reader threads and the events' JSON (then built on the nodes' notifier threads) all
 * ran in the measured window, and the time from the signal also counted the delay of the stream itself (3–4
 * ms on 2 cores); see docs/benchmarks.md.
 */
final class LeaderWatch {
    /** How long after the signal the watch leaves the nodes alone before it first asks them anything. */
    static final Duration QUIET = Duration.ofMillis(150);

    private static final Duration POLL = Duration.ofMillis(20);
    private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(500);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalCluster cluster;
    private final String oldLeader;
    private final List<String> survivors;
    private final long epoch;
    private final boolean resigning;
    private long signalledAtNanos = -1;

    /**
     * How one failover went, by the nodes' stamps.
     *
     * @param fromSignalNanos from the signal to the new leader's stamp on its election
     * @param leaderlessNanos from the old leader's stamp on leaving LEADER to the new leader's stamp; present only
     *     for a resigning leader
     * @param leader the new leader
     * @param departureSeenNanos from the signal to each other survivor's stamp on losing its leader, in order (a
     *     survivor that went straight from the old leader to the new one has none)
     */
    record Result(long fromSignalNanos, Optional<Long> leaderlessNanos, String leader, List<Long> departureSeenNanos) {}

    /**
     * Prepares to time a failover of {@code oldLeader}, which leads at {@code epoch}. A {@code resigning} leader
     * (SIGTERM) reports its own revocation, which gives the time without a leader.
     */
    LeaderWatch(LocalCluster cluster, String oldLeader, List<String> survivors, long epoch, boolean resigning) {
        this.cluster = cluster;
        this.oldLeader = oldLeader;
        this.survivors = List.copyOf(survivors);
        this.epoch = epoch;
        this.resigning = resigning;
    }

    /** Notes the signal's time: call immediately before signalling the leader. */
    void signalling() {
        signalledAtNanos = nanosOf(Instant.now());
    }

    /**
     * Waits (quietly at first) until the survivors agree on a leader above the old epoch, then reads the stamps.
     *
     * @throws IllegalStateException if they do not agree within {@code ceiling}, or a resigning leader's history
     *     could not be read
     */
    Result await(Duration ceiling) throws Exception {
        if (signalledAtNanos < 0) {
            throw new IllegalStateException("signalling() was not called");
        }
        long deadline = System.nanoTime() + ceiling.toNanos();
        Thread.sleep(QUIET.toMillis());
        // First the resigning leader: it lingers for handover-linger (200 ms by default) after its cession, then exits.
        Optional<Long> revokedAt = resigning ? Optional.of(revokedAt(deadline)) : Optional.empty();
        String leader = null;
        while (leader == null) {
            Map<String, NodeStatus> statuses = new LinkedHashMap<>(cluster.liveStatuses(REQUEST_TIMEOUT));
            statuses.keySet().retainAll(survivors);
            Optional<NodeStatus> agreed = LocalCluster.agreedLeader(statuses);
            if (agreed.isPresent() && agreed.get().epoch() > epoch) {
                leader = agreed.get().node();
            } else if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the survivors did not agree on a new leader within " + ceiling);
            } else {
                Thread.sleep(POLL.toMillis());
            }
        }
        long electedAt = firstStamp(
                        leader,
                        c -> c.path("role").asText().equals("LEADER")
                                && c.path("epoch").asLong() > epoch)
                .orElseThrow(() -> new IOException("the history of the new leader has no election above " + epoch));
        // Where the time went: when each other survivor stamped the loss of its leader (a departure it was told of,
        // or the silence), from the signal; read after the fact like the rest.
        List<Long> departureSeen = new ArrayList<>();
        for (String s : survivors) {
            if (!s.equals(leader)) {
                firstStamp(
                                s,
                                c -> c.path("kind").asText().equals("leader")
                                        && c.path("leader").isNull())
                        .ifPresent(at -> departureSeen.add(at - signalledAtNanos));
            }
        }
        Collections.sort(departureSeen);
        return new Result(electedAt - signalledAtNanos, revokedAt.map(r -> electedAt - r), leader, departureSeen);
    }

    /** The resigning leader's stamp on the change in which it left LEADER, from its history, asked until it has one. */
    private long revokedAt(long deadline) throws Exception {
        while (true) {
            Optional<Long> at = firstStamp(
                    oldLeader,
                    c -> c.path("kind").asText().equals("role")
                            && !c.path("role").asText().equals("LEADER"));
            if (at.isPresent()) {
                return at.get();
            }
            if (!cluster.isRunning(oldLeader) || System.nanoTime() > deadline) {
                throw new IllegalStateException("the resigning leader " + oldLeader
                        + " exited or stayed silent before its history showed it leaving LEADER");
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The stamp of the first change in {@code node}'s history since the signal that {@code matches}, if any. */
    private Optional<Long> firstStamp(String node, java.util.function.Predicate<JsonNode> matches) throws IOException {
        Optional<String> body = cluster.get(node, "/history", REQUEST_TIMEOUT);
        if (body.isEmpty()) {
            return Optional.empty();
        }
        for (JsonNode change : JSON.readTree(body.get()).path("changes")) {
            long at = nanosOf(Instant.parse(change.path("at").asText()));
            if (at >= signalledAtNanos && matches.test(change)) {
                return Optional.of(at);
            }
        }
        return Optional.empty();
    }

    private static long nanosOf(Instant at) {
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }
}
