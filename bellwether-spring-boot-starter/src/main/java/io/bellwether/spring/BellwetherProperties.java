package io.bellwether.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code bellwether.*} properties: what the {@code bellwether node} daemon's YAML keys mean, under the prefix
 * {@code bellwether} (see {@code docs/spring-boot.md} for the table and {@code docs/configuration.md} for each key).
 * Durations take Spring's forms ({@code 500ms}, {@code 3s}, ISO-8601 {@code PT3S}; a bare number is milliseconds).
 * Timing keys left unset keep the algorithm's documented defaults. Values are checked when the election is set up:
 * a bad one fails the application context with a {@link BellwetherConfigurationException} naming the key, the value
 * and what is allowed.
 */
@ConfigurationProperties(prefix = "bellwether")
public class BellwetherProperties {
    /** Whether the starter sets up an election at all. */
    private boolean enabled = true;

    /**
     * The election group's name, shared by every instance that elects together. Default: spring.application.name,
     * or "default" when that is not set either. 1-64 letters, digits, '.', '_' and '-', starting with a letter or
     * digit.
     */
    private String group;

    /**
     * This instance's member id. Default: the host name and the process id, {@code host-pid} (cut to 64
     * characters), the same for the whole life of the process. Required with peers: one of the peers' ids.
     */
    private String node;

    /**
     * The election algorithm: lease, quorum, bully, ring or invitation. Default: lease when no peers are set,
     * quorum when bellwether.peers is set.
     */
    private String algorithm;

    /** The cluster name carried in every peer frame (peer algorithms only). Default: the group. */
    private String cluster;

    /**
     * Every member of a peer algorithm, this instance included: member id to host:port. Setting it selects quorum
     * unless bellwether.algorithm says otherwise.
     */
    private Map<String, String> peers = new LinkedHashMap<>();

    /** Where this instance accepts peer connections, host:port. Default: its own entry under peers. */
    private String listen;

    /** The shared cluster secret, at least 16 bytes: the HMAC key of every peer frame. One of secret or insecure. */
    private String secret;

    /** Runs peer traffic with no authentication; must be asked for explicitly and excludes a secret. */
    private boolean insecure;

    /**
     * Where a peer algorithm persists its term or counters: a directory this process can write. Required with
     * peers (a member that forgets its term after a restart can vote twice in one term); unused in lease mode.
     */
    private Path stateDir;

    /**
     * How long shutdown waits for running @LeaderOnly methods to return after they were interrupted, before the
     * election resigns anyway.
     */
    private Duration stopTimeout = Duration.ofSeconds(10);

    /** Lease mode: the store and the lease elector's timings. */
    private final Lease lease = new Lease();

    /** Timings of the quorum elector. */
    private final Quorum quorum = new Quorum();

    /** Timings of the bully elector, as in the daemon's bully: section (key to value). */
    private Map<String, String> bully = new LinkedHashMap<>();

    /** Timings of the ring elector, as in the daemon's ring: section (key to value). */
    private Map<String, String> ring = new LinkedHashMap<>();

    /** Timings of the invitation elector, as in the daemon's invitation: section (key to value). */
    private Map<String, String> invitation = new LinkedHashMap<>();

    /** Where the lease lives in lease mode. */
    public enum StoreKind {
        /** The application's DataSource if it has one, else its Lettuce Redis client. */
        AUTO,
        /** A table in the application's DataSource. */
        JDBC,
        /** A hash in Redis, through the application's Lettuce client. */
        REDIS
    }

    /** {@code bellwether.lease.*}. */
    public static class Lease {
        /** Where the lease lives: auto (the DataSource if there is one, else Redis), jdbc or redis. */
        private StoreKind store = StoreKind.AUTO;

        /**
         * The lease table in the DataSource (jdbc): an SQL identifier, optionally schema.table, at most 63
         * characters. One row per group; many groups share a table.
         */
        private String table = "bellwether_lease";

        /** The prefix of the lease hashes and release channels in Redis (redis): 1-100 characters, no whitespace. */
        private String keyPrefix = "bellwether:lease:";

        /**
         * Whether to create the lease table (CREATE TABLE IF NOT EXISTS) when the database is first reached. Unlike
         * the daemon's key, true by default: the application's own database is at hand.
         */
        private boolean createSchema = true;

        /**
         * This instance's priority as holder, higher preferred: -1000 to 1000. Default 0. A holder of lower priority
         * hands the lease over, at a renewal, to a waiting instance of higher priority.
         */
        private Integer priority;

        /** How long the store keeps a lease that is not renewed: 10ms to 1h. Default 3s. */
        private Duration duration;

        /** How often the holder renews: 1ms to 1h, below renew-deadline. Default duration / 3. */
        private Duration renewInterval;

        /**
         * How long after the send time of its last successful renewal the holder steps down if none has succeeded
         * since: 1ms to 1h. Default duration x 2/3.
         */
        private Duration renewDeadline;

        /** How often contenders poll the store, jittered +-20%: 1ms to 1h. Default duration / 6. */
        private Duration retry;

        /** How long any store request may take: 1ms up to duration. Default duration / 3. */
        private Duration requestTimeout;

        /** The largest rate error assumed between the holder's clock and the store's: 0 to 0.1. Default 0.01. */
        private Double maxClockDrift;

        /** Subtracted from the holder's validity: 0 to 1h. Default duration / 30. */
        private Duration validityMargin;

        public StoreKind getStore() {
            return store;
        }

        public void setStore(StoreKind store) {
            this.store = store;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public boolean isCreateSchema() {
            return createSchema;
        }

        public void setCreateSchema(boolean createSchema) {
            this.createSchema = createSchema;
        }

        public Duration getDuration() {
            return duration;
        }

        public void setDuration(Duration duration) {
            this.duration = duration;
        }

        public Duration getRenewInterval() {
            return renewInterval;
        }

        public void setRenewInterval(Duration renewInterval) {
            this.renewInterval = renewInterval;
        }

        public Duration getRenewDeadline() {
            return renewDeadline;
        }

        public void setRenewDeadline(Duration renewDeadline) {
            this.renewDeadline = renewDeadline;
        }

        public Duration getRetry() {
            return retry;
        }

        public void setRetry(Duration retry) {
            this.retry = retry;
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        public Double getMaxClockDrift() {
            return maxClockDrift;
        }

        public void setMaxClockDrift(Double maxClockDrift) {
            this.maxClockDrift = maxClockDrift;
        }

        public Duration getValidityMargin() {
            return validityMargin;
        }

        public void setValidityMargin(Duration validityMargin) {
            this.validityMargin = validityMargin;
        }

        public Integer getPriority() {
            return priority;
        }

        public void setPriority(Integer priority) {
            this.priority = priority;
        }

        /** The timing keys that are set, by their names in the daemon's lease: section. */
        Map<String, Object> timings() {
            Map<String, Object> values = new LinkedHashMap<>();
            putIfSet(values, "duration", duration);
            putIfSet(values, "renew-interval", renewInterval);
            putIfSet(values, "renew-deadline", renewDeadline);
            putIfSet(values, "retry", retry);
            putIfSet(values, "request-timeout", requestTimeout);
            putIfSet(values, "max-clock-drift", maxClockDrift);
            putIfSet(values, "validity-margin", validityMargin);
            putIfSet(values, "priority", priority);
            return values;
        }
    }

    /** {@code bellwether.quorum.*}: the daemon's quorum: section. */
    public static class Quorum {
        /** How often the leader sends heartbeats: 1ms to 60s. Default 100ms. */
        private Duration heartbeatInterval;

        /**
         * How many heartbeat intervals a follower waits before declaring the leader lost: 2 to 100. Default 4; the
         * election timeout is heartbeat-interval x missed-heartbeats.
         */
        private Integer missedHeartbeats;

        /** Shortest random wait before a follower starts scouting: 0 to 60s, at most backoff-max. Default 10ms. */
        private Duration backoffMin;

        /** Longest random wait before scouting: 0 to 60s, at least backoff-min. Default 100ms. */
        private Duration backoffMax;

        /** How long a scouting (pre-vote) round waits for a majority: 1ms to 60s. Default 100ms. */
        private Duration scoutingTimeout;

        /** How long an election round waits for a majority: 1ms to 60s. Default 200ms. */
        private Duration proposalTimeout;

        /** The largest rate error assumed between members' monotonic clocks: 0 to 0.1. Default 0.01. */
        private Double maxClockDrift;

        /** Subtracted from a leader's validity; see docs/configuration.md for its range. Default 20ms. */
        private Duration validityMargin;

        /** How long a leader that lost its quorum waits before campaigning again: 0 to 10m. Default 400ms. */
        private Duration stepDownHoldDown;

        /** Whether the leader keeps a standby successor that takes over with one message. Default true. */
        private Boolean standby;

        /**
         * This member's priority as leader, higher preferred: -1000 to 1000. Default 0. The leader hands over to the
         * connected member of the highest priority above its own; equal priorities never move a leadership.
         */
        private Integer priority;

        /**
         * How long a member of higher priority than the leader must have confirmed every heartbeat before the leader
         * hands over to it: 0 to 10m. Default 1s.
         */
        private Duration priorityHoldDown;

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public Integer getMissedHeartbeats() {
            return missedHeartbeats;
        }

        public void setMissedHeartbeats(Integer missedHeartbeats) {
            this.missedHeartbeats = missedHeartbeats;
        }

        public Duration getBackoffMin() {
            return backoffMin;
        }

        public void setBackoffMin(Duration backoffMin) {
            this.backoffMin = backoffMin;
        }

        public Duration getBackoffMax() {
            return backoffMax;
        }

        public void setBackoffMax(Duration backoffMax) {
            this.backoffMax = backoffMax;
        }

        public Duration getScoutingTimeout() {
            return scoutingTimeout;
        }

        public void setScoutingTimeout(Duration scoutingTimeout) {
            this.scoutingTimeout = scoutingTimeout;
        }

        public Duration getProposalTimeout() {
            return proposalTimeout;
        }

        public void setProposalTimeout(Duration proposalTimeout) {
            this.proposalTimeout = proposalTimeout;
        }

        public Double getMaxClockDrift() {
            return maxClockDrift;
        }

        public void setMaxClockDrift(Double maxClockDrift) {
            this.maxClockDrift = maxClockDrift;
        }

        public Duration getValidityMargin() {
            return validityMargin;
        }

        public void setValidityMargin(Duration validityMargin) {
            this.validityMargin = validityMargin;
        }

        public Duration getStepDownHoldDown() {
            return stepDownHoldDown;
        }

        public void setStepDownHoldDown(Duration stepDownHoldDown) {
            this.stepDownHoldDown = stepDownHoldDown;
        }

        public Boolean getStandby() {
            return standby;
        }

        public void setStandby(Boolean standby) {
            this.standby = standby;
        }

        public Integer getPriority() {
            return priority;
        }

        public void setPriority(Integer priority) {
            this.priority = priority;
        }

        public Duration getPriorityHoldDown() {
            return priorityHoldDown;
        }

        public void setPriorityHoldDown(Duration priorityHoldDown) {
            this.priorityHoldDown = priorityHoldDown;
        }

        /** The keys that are set, by their names in the daemon's quorum: section. */
        Map<String, Object> timings() {
            Map<String, Object> values = new LinkedHashMap<>();
            putIfSet(values, "heartbeat-interval", heartbeatInterval);
            putIfSet(values, "missed-heartbeats", missedHeartbeats);
            putIfSet(values, "backoff-min", backoffMin);
            putIfSet(values, "backoff-max", backoffMax);
            putIfSet(values, "scouting-timeout", scoutingTimeout);
            putIfSet(values, "proposal-timeout", proposalTimeout);
            putIfSet(values, "max-clock-drift", maxClockDrift);
            putIfSet(values, "validity-margin", validityMargin);
            putIfSet(values, "step-down-hold-down", stepDownHoldDown);
            putIfSet(values, "standby", standby);
            putIfSet(values, "priority", priority);
            putIfSet(values, "priority-hold-down", priorityHoldDown);
            return values;
        }
    }

    private static void putIfSet(Map<String, Object> values, String key, Object value) {
        if (value != null) {
            values.put(key, value);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getGroup() {
        return group;
    }

    public void setGroup(String group) {
        this.group = group;
    }

    public String getNode() {
        return node;
    }

    public void setNode(String node) {
        this.node = node;
    }

    public String getAlgorithm() {
        return algorithm;
    }

    public void setAlgorithm(String algorithm) {
        this.algorithm = algorithm;
    }

    public String getCluster() {
        return cluster;
    }

    public void setCluster(String cluster) {
        this.cluster = cluster;
    }

    public Map<String, String> getPeers() {
        return peers;
    }

    public void setPeers(Map<String, String> peers) {
        this.peers = peers;
    }

    public String getListen() {
        return listen;
    }

    public void setListen(String listen) {
        this.listen = listen;
    }

    public String getSecret() {
        return secret;
    }

    public void setSecret(String secret) {
        this.secret = secret;
    }

    public boolean isInsecure() {
        return insecure;
    }

    public void setInsecure(boolean insecure) {
        this.insecure = insecure;
    }

    public Path getStateDir() {
        return stateDir;
    }

    public void setStateDir(Path stateDir) {
        this.stateDir = stateDir;
    }

    public Duration getStopTimeout() {
        return stopTimeout;
    }

    public void setStopTimeout(Duration stopTimeout) {
        this.stopTimeout = stopTimeout;
    }

    public Lease getLease() {
        return lease;
    }

    public Quorum getQuorum() {
        return quorum;
    }

    public Map<String, String> getBully() {
        return bully;
    }

    public void setBully(Map<String, String> bully) {
        this.bully = bully;
    }

    public Map<String, String> getRing() {
        return ring;
    }

    public void setRing(Map<String, String> ring) {
        this.ring = ring;
    }

    public Map<String, String> getInvitation() {
        return invitation;
    }

    public void setInvitation(Map<String, String> invitation) {
        this.invitation = invitation;
    }
}
