package io.bellwether.server.node;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.TaskEvent;
import io.bellwether.micrometer.ElectionMeters;
import io.bellwether.micrometer.MeteredLeaseStore;
import io.bellwether.micrometer.TransportMetrics;
import io.bellwether.transport.tcp.TcpTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node's metrics, in Prometheus form (names as scraped):
 *
 * <ul>
 *   <li>{@code bellwether_role{role}}: 1 for the current role, 0 for the others;
 *   <li>{@code bellwether_epoch}: the epoch this node knows (its leader's, or its own as leader);
 *   <li>{@code bellwether_elections_total}: leaderships this node learned of (each new leader epoch);
 *   <li>{@code bellwether_role_changes_total}: changes of this node's role;
 *   <li>{@code bellwether_failover_seconds}: histogram of the time from losing a leader to knowing a new one;
 *       a change of leader this node learns of without a leaderless moment between counts as zero;
 *   <li>{@code bellwether_task_events_total{task,kind}}: leader task events by task and kind, once a task runs
 *       with {@code Election.runWhileLeader} (neither {@code node} nor {@code run} does);
 *   <li>{@code bellwether_store_round_trip_seconds{operation}} and {@code bellwether_store_errors_total{operation,
 *       problem}}: the lease store's calls and their failures, in lease mode (see {@link MeteredLeaseStore});
 *   <li>{@code bellwether_messages_total{direction,type}}: peer messages sent ({@code out}) and received
 *       ({@code in}), by message type;
 *   <li>{@code bellwether_rejected_frames_total{reason}}: every refusal by the transport, by reason: frames
 *       dropped, and connections refused as a whole ({@code connection-limit}, {@code handshake-timeout},
 *       {@code duplicate-id}, {@code tls-member-id}; see {@link TcpTransport.Observer#frameRejected}).
 *   <li>{@code bellwether_http_refused_total{reason}}: HTTP connections and requests the status server refused or
 *       cut off to stay within its limits, by reason ({@link #HTTP_REFUSAL_REASONS}).
 * </ul>
 *
 * The election's meters (role to task events) are {@link ElectionMeters}, which an embedded election publishes
 * through {@code io.bellwether.micrometer.BellwetherMetrics} under the same names; the transport's (messages and
 * rejected frames) are {@link TransportMetrics}, which an embedded user gives to its own transport. Every meter carries the tags
 * {@code cluster}, {@code node} and {@code group}. Thread-safe; the transport
 * callbacks are quick (a map lookup and an increment).
 *
 * <p>A node of several groups ({@code groups}) tags the election's meters with their group instead, and the
 * node's own meters (the transport's, the HTTP server's) carry {@code cluster} and {@code node} only. Its failover
 * histogram is one for all its groups, tagged {@code group="*"} (one per group would be some seventy series each),
 * and it adds {@code bellwether_groups{state}}: how many of its groups it leads ({@code leading}), follows a leader in
 * ({@code following}), or knows no leader in ({@code leaderless}).
 */
public final class NodeMetrics implements TcpTransport.Observer {
    private final PrometheusMeterRegistry registry;
    private final List<String> groups;
    private final Map<String, GroupMeters> byGroup;
    private final TransportMetrics traffic = new TransportMetrics(Tags.empty());
    private final Map<String, Counter> httpRefused = new ConcurrentHashMap<>();

    /**
     * Why the HTTP server refused or cut off a client: {@code connections} (over {@code max-connections}), {@code
     * event-clients} (over {@code max-event-clients}), {@code slow-event-client} (an event stream reader dropped
     * for its backlog), {@code request-timeout} (a request or response not done within {@code request-timeout}),
     * {@code request-too-large} (over {@code max-request-bytes}), {@code busy} (every worker busy and its queue
     * full).
     */
    public static final java.util.List<String> HTTP_REFUSAL_REASONS = java.util.List.of(
            "connections", "event-clients", "slow-event-client", "request-timeout", "request-too-large", "busy");

    /** The {@code group} tag of what a node of several groups measures for all of them: its failover histogram. */
    public static final String ALL_GROUPS = "*";

    /** The metrics of a node of one group. */
    public NodeMetrics(String cluster, NodeId node, String group) {
        this(cluster, node, List.of(group));
    }

    /**
     * The metrics of a node of {@code groups} (one or more, distinct); each group's meters are registered here.
     */
    public NodeMetrics(String cluster, NodeId node, List<String> groups) {
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("groups must name at least one group");
        }
        this.groups = List.copyOf(groups);
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Map<String, GroupMeters> meters = new java.util.HashMap<>();
        if (groups.size() == 1) {
            registry.config().commonTags("cluster", cluster, "node", node.value(), "group", groups.get(0));
            // The common tags carry cluster, node and group: the election's meters need none of their own.
            meters.put(groups.get(0), new GroupMeters(new ElectionMeters(registry, Tags.empty())));
        } else {
            registry.config().commonTags("cluster", cluster, "node", node.value());
            io.micrometer.core.instrument.Timer failover =
                    ElectionMeters.failoverTimer(registry, Tags.of("group", ALL_GROUPS));
            for (String group : groups) {
                GroupMeters previous = meters.put(
                        group, new GroupMeters(new ElectionMeters(registry, Tags.of("group", group), failover)));
                if (previous != null) {
                    throw new IllegalArgumentException("group '" + group + "' is given twice");
                }
            }
        }
        byGroup = java.util.Collections.unmodifiableMap(meters);
        traffic.bindTo(registry);
        for (String reason : HTTP_REFUSAL_REASONS) {
            httpRefused.put(
                    reason,
                    Counter.builder("bellwether.http.refused")
                            .description("HTTP connections and requests refused or cut off at a limit, by reason")
                            .tag("reason", reason)
                            .register(registry));
        }
    }

    /** Counts one HTTP refusal; {@code reason} is one of {@link #HTTP_REFUSAL_REASONS}. */
    public void httpRefused(String reason) {
        Counter counter = httpRefused.get(reason);
        if (counter == null) {
            throw new IllegalArgumentException(
                    "unknown HTTP refusal reason '" + reason + "': allowed one of " + HTTP_REFUSAL_REASONS);
        }
        counter.increment();
    }

    /** How many HTTP refusals were counted for {@code reason}. */
    public long httpRefusals(String reason) {
        Counter counter = httpRefused.get(reason);
        return counter == null ? 0 : (long) counter.count();
    }

    /**
     * Registers the sent and received counters of these message types now rather than at each type's first
     * message: a registration takes a lock, builds the series and its Prometheus form, and for a message kind sent
     * only on a failover (a cession, a proposal) that first message is on the failover's critical path. The series
     * also show a zero from the start instead of appearing later.
     */
    public void messageTypes(Collection<String> types) {
        traffic.messageTypes(types);
    }

    /** The registry, for adding meters of the process (JVM, …) or scraping. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    /** The groups these metrics were built for, in the order given. */
    public List<String> groups() {
        return groups;
    }

    /**
     * The meters of {@code group}, one of {@link #groups()}.
     *
     * @throws IllegalArgumentException for a group not among them
     */
    public GroupMeters group(String group) {
        GroupMeters meters = byGroup.get(group);
        if (meters == null) {
            throw new IllegalArgumentException("group '" + group + "' has no meters here: allowed one of " + groups);
        }
        return meters;
    }

    /**
     * Registers {@code bellwether_groups{state}} on a node of several groups: {@code counts} is read at each scrape
     * and gives how many groups are in each of the states {@code leading}, {@code following} and {@code
     * leaderless}.
     */
    public void groupStates(java.util.function.Supplier<Map<String, Long>> counts) {
        for (String state : GROUP_STATES) {
            io.micrometer.core.instrument.Gauge.builder(
                            "bellwether.groups", counts, c -> c.get().getOrDefault(state, 0L))
                    .description("This node's election groups by state: leading, following (a leader is known) or"
                            + " leaderless")
                    .tag("state", state)
                    // The supplier is often a method reference nobody else holds: a weak one would read NaN.
                    .strongReference(true)
                    .register(registry);
        }
    }

    /** The states {@link #groupStates} counts. */
    public static final List<String> GROUP_STATES = List.of("leading", "following", "leaderless");

    /** One group's meters. */
    public static final class GroupMeters {
        private final ElectionMeters election;

        GroupMeters(ElectionMeters election) {
            this.election = election;
        }

        void role(Role current, boolean changed) {
            election.role(current, changed);
        }

        void epoch(long current) {
            election.epoch(current);
        }

        void newLeadership() {
            election.newLeadership();
        }

        void failover(Duration leaderless) {
            election.failover(leaderless);
        }

        void taskEvent(TaskEvent event) {
            election.taskEvent(event);
        }
    }

    @Override
    public void messageSent(String type) {
        traffic.messageSent(type);
    }

    @Override
    public void messageReceived(String type) {
        traffic.messageReceived(type);
    }

    @Override
    public void frameRejected(String reason) {
        traffic.frameRejected(reason);
    }
}
