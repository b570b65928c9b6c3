package io.bellwether.server.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.TaskEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one {@link Election} for the status page, the metrics and the event stream.
 *
 * <p>Role, epoch and leader changes come from the election's listener, in order, so that no step of an
 * election and no leaderless gap is missed (failover durations are measured from it). The epoch shown is the
 * node's own (a candidate's new term included), never lower than the highest leader epoch it learned.
 *
 * <p>Thread-safe.
 */
public final class ElectionMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ElectionMonitor.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What the node knows, at one moment.
     *
     * @param role this node's role
     * @param epoch the highest epoch it learned
     * @param leader the leader it knows, if any
     * @param leaderSinceEpochMillis wall-clock time it learned of that leader
     */
    public record Snapshot(Role role, long epoch, Optional<NodeId> leader, Optional<Long> leaderSinceEpochMillis) {}

    /**
     * A change, as sent on the event stream.
     *
     * @param kind {@code role}, {@code leader} or {@code revoked} (a leadership of this node ended)
     * @param snapshot the state after the change
     * @param revocation for {@code revoked}, the leadership that ended; empty for the other kinds
     * @param at when the change was seen, wall clock, to the microsecond or better (on Linux): events of nodes on
     *     one machine can be ordered and subtracted, as the failover benchmark does
     * @param seq the change's number on this node since it started: 1 for the first change the monitor recorded, one
     *     more for each next one; 0 for a change not recorded (yet). A client that reads both {@link #history()}
     *     and the event stream drops what it has seen by this number, and sees a gap as a missing number; each group
     *     of a node numbers its own changes
     * @param group the election group the change is of; null for a change not recorded (yet)
     */
    public record Change(
            String kind, Snapshot snapshot, Instant at, Optional<Revocation> revocation, long seq, String group) {
        public Change {
            Objects.requireNonNull(revocation, "revocation");
        }

        /** A change not recorded yet. */
        public Change(String kind, Snapshot snapshot, Instant at, Optional<Revocation> revocation) {
            this(kind, snapshot, at, revocation, 0, null);
        }

        /** A {@code role} or {@code leader} change, not recorded yet. */
        public Change(String kind, Snapshot snapshot, Instant at) {
            this(kind, snapshot, at, Optional.empty());
        }

        Change numbered(long n, String group) {
            return new Change(kind, snapshot, at, revocation, n, group);
        }
    }

    /**
     * What a {@code revoked} change adds: the end of a leadership this node held.
     *
     * @param epoch the revoked leadership's epoch
     * @param validUntil that leadership's {@link Leadership#validUntilNanos()} converted to wall-clock time when the
     *     revocation was heard: the latest moment it could have been valid, whenever the revocation itself happened
     * @param reason why it was revoked
     */
    public record Revocation(long epoch, Instant validUntil, RevocationReason reason) {}

    private final Election election;
    private final String cluster;
    private final String algorithm;
    private final List<NodeId> members;
    private final Supplier<Map<NodeId, PeerState>> peers;
    private final NodeMetrics.GroupMeters metrics;
    private final long startedNanos = System.nanoTime();
    private final List<Consumer<Change>> subscribers = new CopyOnWriteArrayList<>();
    private final ElectionListener listener = new Listener();
    private final Map<String, Supplier<? extends JsonNode>> sections =
            new java.util.concurrent.ConcurrentSkipListMap<>();

    /**
     * How many of the latest changes {@link #history()} keeps. Each change is a handful of fixed-size objects (a few
     * hundred bytes, under 200 bytes as JSON), so the history holds well under 100 KiB whatever happens and however
     * often {@code /history} is read.
     */
    public static final int HISTORY = 256;

    /**
     * The fewest changes {@link #history()} keeps for each group of a node with many groups, whose monitors share
     * {@link #HISTORY_BUDGET}.
     */
    public static final int MIN_GROUP_HISTORY = 8;

    /** How many changes the monitors of one node's groups keep in all, at most, unless each keeps its minimum. */
    public static final int HISTORY_BUDGET = 32_768;

    /** How many changes each of {@code groups} monitors keeps: {@link #HISTORY} for one group, less for many. */
    public static int historyLimit(int groups) {
        return Math.max(MIN_GROUP_HISTORY, Math.min(HISTORY, HISTORY_BUDGET / Math.max(1, groups)));
    }

    private final int historyLimit;

    // Guarded by this.
    private Snapshot current = new Snapshot(Role.DORMANT, 0, Optional.empty(), Optional.empty());
    private long leaderlessSinceNanos = -1;
    private final java.util.ArrayDeque<Change> history = new java.util.ArrayDeque<>();
    private long recorded;

    /**
     * @param peers the connection state of each peer (this node excluded), read for each status request
     */
    public ElectionMonitor(
            Election election,
            String cluster,
            String algorithm,
            List<NodeId> members,
            Supplier<Map<NodeId, PeerState>> peers,
            NodeMetrics metrics) {
        this(election, cluster, algorithm, members, peers, metrics.group(election.group()), HISTORY);
    }

    /**
     * @param peers the connection state of each peer (this node excluded), read for each status request
     * @param meters the group's meters
     * @param historyLimit how many changes {@link #history()} keeps (see {@link #historyLimit(int)})
     */
    public ElectionMonitor(
            Election election,
            String cluster,
            String algorithm,
            List<NodeId> members,
            Supplier<Map<NodeId, PeerState>> peers,
            NodeMetrics.GroupMeters meters,
            int historyLimit) {
        if (historyLimit < 1) {
            throw new IllegalArgumentException("historyLimit must be at least 1, was " + historyLimit);
        }
        this.historyLimit = historyLimit;
        this.election = Objects.requireNonNull(election, "election");
        this.cluster = cluster;
        this.algorithm = algorithm;
        this.members = List.copyOf(members);
        this.peers = peers;
        this.metrics = Objects.requireNonNull(meters, "meters");
    }

    /** Starts watching; call before or after the election starts. */
    public void start() {
        election.addListener(listener);
        update(null, 0, Optional.empty());
    }

    /**
     * Adds a subscriber told of every change, in order, on the monitor's threads with the monitor's lock held:
     * it must return quickly and must not call back into the monitor.
     */
    public void subscribe(Consumer<Change> subscriber) {
        subscribers.add(subscriber);
    }

    public void unsubscribe(Consumer<Change> subscriber) {
        subscribers.remove(subscriber);
    }

    /** What the node knows now. */
    public synchronized Snapshot snapshot() {
        return current;
    }

    /** How many changes {@link #history()} keeps at most. */
    public int historyLimit() {
        return historyLimit;
    }

    /** This monitor's group. */
    public String group() {
        return election.group();
    }

    /**
     * The latest changes (up to {@value #HISTORY}, fewer on a node of many groups), oldest first, as the event stream sent them (with the stamps and
     * numbers they were sent with): read after the fact, they show when each change reached this node without
     * anyone having to listen while it happened. Older changes are dropped, oldest first.
     */
    public synchronized List<Change> history() {
        return List.copyOf(history);
    }

    /**
     * Adds {@code key} to the status document, its value read from {@code section} for each status request
     * (for example the lease store's health as {@code store}). Sections come after the common fields, in key
     * order.
     */
    public void statusSection(String key, Supplier<? extends JsonNode> section) {
        sections.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(section, "section"));
    }

    /** A liveness probe of the election's event loop (see {@link Election#probeLoop()}). */
    public java.util.concurrent.CompletionStage<Void> probeLoop() {
        return election.probeLoop();
    }

    /** Whether this node holds a valid leadership now. */
    public boolean holdsLeadership() {
        return election.isLeader();
    }

    /** The connection state of each peer now, as on the status page (empty without peer connections). */
    public Map<NodeId, PeerState> peerStates() {
        return peers.get();
    }

    /** This node's id. */
    public NodeId node() {
        return election.self();
    }

    /** The status document served at {@code GET /status}. */
    public ObjectNode status() {
        Snapshot s;
        synchronized (this) {
            s = current;
        }
        ObjectNode json = JSON.createObjectNode();
        json.put("node", election.self().value());
        json.put("cluster", cluster);
        json.put("group", election.group());
        json.put("algorithm", algorithm);
        json.put("role", s.role().name());
        json.put("epoch", s.epoch());
        json.put("leader", s.leader().map(NodeId::value).orElse(null));
        json.put(
                "leaderSince",
                s.leaderSinceEpochMillis()
                        .map(ms -> Instant.ofEpochMilli(ms).toString())
                        .orElse(null));
        members.forEach(m -> json.withArray("members").add(m.value()));
        putPeers(json, peers.get());
        Optional<Leadership> leadership = election.leadership();
        if (s.role() == Role.LEADER && leadership.isPresent()) {
            long validNanos = leadership.get().validUntilNanos() - System.nanoTime();
            json.put("validForMs", Math.max(0, TimeUnit.NANOSECONDS.toMillis(validNanos)));
            // Who would lead at once if this leader stopped now (a quorum standby), or null: then a stop hands
            // over through an election.
            json.put("successor", election.successor().map(NodeId::value).orElse(null));
        }
        json.put("uptimeMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
        sections.forEach((key, section) -> json.set(key, section.get()));
        return json;
    }

    /**
     * Adds {@code "peers": {id: {"address", "state", "since", "lastError"?}}} to {@code json}, as every status
     * document of the node has it.
     */
    static void putPeers(ObjectNode json, Map<NodeId, PeerState> peers) {
        ObjectNode peerJson = json.putObject("peers");
        peers.forEach((id, p) -> {
            ObjectNode one = peerJson.putObject(id.value());
            one.put("address", p.address());
            one.put("state", p.state());
            one.put(
                    "since",
                    p.sinceEpochMillis()
                            .map(ms -> Instant.ofEpochMilli(ms).toString())
                            .orElse(null));
            p.lastError().ifPresent(e -> one.put("lastError", e));
        });
    }

    /** A change as one JSON object, for the event stream. */
    public static ObjectNode toJson(Change change) {
        ObjectNode json = JSON.createObjectNode();
        Snapshot s = change.snapshot();
        json.put("kind", change.kind());
        if (change.group() != null) {
            json.put("group", change.group());
        }
        json.put("role", s.role().name());
        json.put("epoch", s.epoch());
        json.put("leader", s.leader().map(NodeId::value).orElse(null));
        json.put("at", change.at().toString());
        json.put("seq", change.seq());
        change.revocation().ifPresent(r -> {
            json.put("revokedEpoch", r.epoch());
            json.put("validUntil", r.validUntil().toString());
            json.put("reason", r.reason().name());
        });
        return json;
    }

    /**
     * Folds a role event ({@code roleEvent} and {@code epochEvent}; null for none: the election's current role
     * is used) and a leader event, if given, into the snapshot.
     */
    private void update(Role roleEvent, long epochEvent, Optional<Optional<LeaderView>> leaderEvent) {
        synchronized (this) {
            Change roleChange = null;
            Change leaderChange = null;
            Snapshot before = current;
            Role role = roleEvent != null ? roleEvent : election.role();
            long epoch = before.epoch();
            Optional<NodeId> leader = before.leader();
            Optional<Long> leaderSince = before.leaderSinceEpochMillis();
            Instant at = Instant.now();
            long now = at.toEpochMilli();
            Optional<NodeId> newLeader = leader;
            long newEpoch = Math.max(epoch, epochEvent);
            Optional<Long> learnedAt = Optional.of(now);
            if (leaderEvent.isPresent()) {
                Optional<LeaderView> view = leaderEvent.get();
                newLeader = view.map(LeaderView::leader);
                newEpoch = view.map(LeaderView::epoch).orElse(epoch);
                learnedAt = view.map(v -> now - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - v.learnedAtNanos()));
            }
            // The leadership can be seen (sampled, or through elected) before the listener's leader change for it
            // arrives; this node is its own leader from then on, so the snapshot never says LEADER with no leader.
            Optional<Leadership> held = election.leadership();
            if (held.isPresent() && role == Role.LEADER && held.get().epoch() >= newEpoch) {
                newLeader = Optional.of(election.self());
                newEpoch = held.get().epoch();
            }
            if (leader.isPresent() && newLeader.isEmpty() && leaderlessSinceNanos < 0) {
                leaderlessSinceNanos = System.nanoTime();
            }
            boolean newLeadership = newLeader.isPresent() && (newEpoch != epoch || !newLeader.equals(leader));
            if (newLeadership) {
                metrics.newLeadership();
                if (leaderlessSinceNanos >= 0) {
                    metrics.failover(Duration.ofNanos(System.nanoTime() - leaderlessSinceNanos));
                    leaderlessSinceNanos = -1;
                } else if (leader.isPresent()) {
                    // Handed over with no gap this node could see (a quorum standby taking over, or the new
                    // leader's first heartbeat arriving before the old leader's cession): still a failover.
                    metrics.failover(Duration.ZERO);
                }
            }
            if (!newLeader.equals(leader) || newEpoch != epoch) {
                leaderSince = newLeader.isPresent() ? learnedAt : Optional.empty();
            }
            epoch = Math.max(epoch, newEpoch);
            leader = newLeader;
            Snapshot after = new Snapshot(role, epoch, leader, leaderSince);
            if (after.equals(before)) {
                return;
            }
            current = after;
            boolean roleChanged = role != before.role();
            metrics.role(role, roleChanged);
            metrics.epoch(epoch);
            if (roleChanged) {
                roleChange = new Change("role", after, at);
            }
            if (!leader.equals(before.leader()) || epoch != before.epoch()) {
                leaderChange = new Change("leader", after, at);
            }
            // Recorded and published under the lock so that the history and subscribers have changes in the order
            // they happened.
            record(roleChange);
            record(leaderChange);
        }
    }

    /** Records a {@code revoked} change with the snapshot as it is now. */
    private synchronized void revokedChange(Revocation revocation, Instant at) {
        record(new Change("revoked", current, at, Optional.of(revocation)));
    }

    /** Keeps {@code change} in the history and tells the subscribers; nothing for null. */
    private void record(Change unnumbered) {
        if (unnumbered == null) {
            return;
        }
        Change change = unnumbered.numbered(++recorded, election.group());
        if (history.size() >= historyLimit) {
            history.removeFirst();
        }
        history.addLast(change);
        for (Consumer<Change> subscriber : subscribers) {
            try {
                subscriber.accept(change);
            } catch (RuntimeException e) {
                log.warn("monitor of {}: a subscriber threw", election.self(), e);
            }
        }
    }

    @Override
    public void close() {
        election.removeListener(listener);
    }

    private final class Listener implements ElectionListener {
        @Override
        public void roleChanged(Role previous, Role current, long epoch) {
            update(current, epoch, Optional.empty());
        }

        @Override
        public void elected(Leadership leadership) {
            // The event itself says that this node leads, and at which epoch: the stamp is the moment the listeners
            // heard it, whatever the election's role() read then (a new leader's listeners are woken early).
            LeaderView self = new LeaderView(election.self(), Optional.empty(), leadership.epoch(), System.nanoTime());
            update(Role.LEADER, leadership.epoch(), Optional.of(Optional.of(self)));
        }

        @Override
        public void revoked(Leadership leadership, RevocationReason reason) {
            // Both readings at once: the monotonic validUntil becomes a wall-clock stamp comparable with other
            // nodes' stamps on this machine (one clock) or within the hosts' clock offset.
            Instant at = Instant.now();
            Instant validUntil = at.plusNanos(leadership.validUntilNanos() - System.nanoTime());
            update(null, 0, Optional.empty());
            revokedChange(new Revocation(leadership.epoch(), validUntil, reason), at);
        }

        @Override
        public void leaderChanged(Optional<LeaderView> leader) {
            update(null, 0, Optional.of(leader));
        }

        @Override
        public void taskEvent(TaskEvent event) {
            metrics.taskEvent(event);
        }
    }
}
