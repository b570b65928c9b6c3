package io.bellwether;

import io.bellwether.elector.Algorithm;
import io.bellwether.elector.Algorithms;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.Environment;
import io.bellwether.elector.MessageCodec;
import io.bellwether.elector.Trait;
import io.bellwether.runtime.ElectionSettings;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.Transport;
import io.bellwether.state.FileStateStore;
import io.bellwether.state.GroupNames;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;

/**
 * Builds an {@link Election}. Required: {@link #group}, {@link #self} and a {@link #stateStore}; for algorithms
 * whose members exchange messages (every one but lease) also a {@link #transport} and the {@linkplain #member
 * members} (self among them), which the transport may supply. Everything else has a documented default.
 *
 * <pre>{@code
 * Election election = Election.builder()
 *         .group("billing-jobs")
 *         .self(NodeId.of("node-a"))
 *         .member(NodeId.of("node-a"), NodeAddress.parse("10.0.0.1:7101"))
 *         .member(NodeId.of("node-b"), NodeAddress.parse("10.0.0.2:7101"))
 *         .member(NodeId.of("node-c"), NodeAddress.parse("10.0.0.3:7101"))
 *         .stateStore(new FileStateStore(Path.of("/var/lib/billing/bellwether")))
 *         .transport(transport)
 *         .build();
 * election.start();
 * }</pre>
 *
 * <p>In lease mode the members elect through the store alone: no transport, and no member list (the election
 * knows only itself; {@link #member(NodeId, NodeAddress)} adds addresses that {@link Election#leader()} then
 * reports):
 *
 * <pre>{@code
 * Election election = Election.builder()
 *         .group("billing-jobs")
 *         .self(NodeId.of("node-a"))
 *         .algorithm(LeaseConfig.builder().store(JdbcLeaseStore.builder().dataSource(dataSource).build()).build())
 *         .stateStore(new InMemoryStateStore())
 *         .build();
 * }</pre>
 *
 * <p>Every setter validates its argument at once and throws {@link IllegalArgumentException} naming the key,
 * the value and what is allowed; {@link #build()} checks what is missing. Not thread-safe; the built election
 * is.
 */
public final class ElectionBuilder {
    /** The default {@link #revocationLead(Duration)}: 20 ms. */
    public static final Duration DEFAULT_REVOCATION_LEAD = Duration.ofMillis(20);

    private static final Duration MAX_REVOCATION_LEAD = Duration.ofMinutes(10);

    private String group;
    private NodeId self;
    private final Set<NodeId> members = new TreeSet<>();
    private final Map<NodeId, NodeAddress> addresses = new TreeMap<>();
    private ElectorSpec algorithm;
    private StateStore stateStore;
    private Transport transport;
    private Duration revocationLead = DEFAULT_REVOCATION_LEAD;
    private OptionalLong seed = OptionalLong.empty();
    private Optional<Executor> listenerExecutor = Optional.empty();
    private boolean spreadLeaders;

    ElectionBuilder() {}

    /**
     * {@code group}: the election group's name, shared by all its members. Required. 1–64 characters of
     * letters, digits, {@code .}, {@code _} and {@code -}, starting with a letter or digit (it names the state
     * file of a {@link FileStateStore}).
     */
    public ElectionBuilder group(String group) {
        this.group = GroupNames.check("group", group);
        return this;
    }

    /** {@code self}: this member's id. Required; must be one of the {@linkplain #member members}. */
    public ElectionBuilder self(NodeId self) {
        this.self = Objects.requireNonNull(self, "self");
        return this;
    }

    /**
     * Adds one member of the group and the address its peers reach it at. Every member must be configured
     * with the same member list.
     *
     * <p>The members default to the {@linkplain Transport#members() transport's}, when it was configured with
     * them; for an algorithm that sends no peer messages (lease), to this member alone. Members given here replace
     * that default; a member given without an address here takes the transport's address for it, if any.
     *
     * @throws IllegalArgumentException if {@code id} was already added with a different address
     */
    public ElectionBuilder member(NodeId id, NodeAddress address) {
        Objects.requireNonNull(id, "member id");
        Objects.requireNonNull(address, "member address");
        NodeAddress known = addresses.putIfAbsent(id, address);
        if (known != null && !known.equals(address)) {
            throw new IllegalArgumentException("members: member " + id + " is given two addresses, " + known + " and "
                    + address + ": allowed one address per member");
        }
        members.add(id);
        return this;
    }

    /**
     * Adds one member of the group without an address: for algorithms that send no peer messages (lease), or
     * when the {@link #transport} knows where the member listens. See {@link #member(NodeId, NodeAddress)}.
     */
    public ElectionBuilder member(NodeId id) {
        members.add(Objects.requireNonNull(id, "member id"));
        return this;
    }

    /** Adds every entry of {@code members}, as {@link #member(NodeId, NodeAddress)} does. */
    public ElectionBuilder members(Map<NodeId, NodeAddress> members) {
        Objects.requireNonNull(members, "members").forEach(this::member);
        return this;
    }

    /** Adds every one of {@code members} without an address, as {@link #member(NodeId)} does. */
    public ElectionBuilder members(NodeId... members) {
        for (NodeId id : Objects.requireNonNull(members, "members")) {
            member(id);
        }
        return this;
    }

    /**
     * {@code algorithm}: the elector and its configuration, as an algorithm's {@link Algorithm#configure} makes it.
     * Default: the default algorithm (the first of {@link Algorithms#all()}, quorum) with its documented timings.
     */
    public ElectionBuilder algorithm(ElectorSpec algorithm) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        return this;
    }

    /**
     * {@code state-store}: where this member keeps what it must remember across restarts (the quorum
     * elector's term). Required, with no default on purpose: pass {@code new FileStateStore(dir)} in
     * production; pass {@code new InMemoryStateStore()} only knowingly, since a member that forgets its term
     * after a restart can vote twice in one term. The election does not close the store (several elections may
     * share one); a {@link FileStateStore} keeps one file open per group until its {@code close()}.
     */
    public ElectionBuilder stateStore(StateStore stateStore) {
        this.stateStore = Objects.requireNonNull(stateStore, "stateStore");
        return this;
    }

    /**
     * {@code transport}: carries messages between members. Required for every algorithm whose members exchange
     * messages ({@link io.bellwether.elector.Trait#PEER_MESSAGES}); an algorithm that sends none (lease, which
     * talks only to its store) runs without one. One transport can serve every election of a process.
     */
    public ElectionBuilder transport(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /**
     * {@code revocation-lead}: how long before a leadership's validity ends the runtime revokes it for users
     * (completes {@link Leadership#revoked()} and interrupts tasks), whether or not the elector's event loop
     * is running. Default 20 ms; allowed 0 ≤ lead &lt; 10 min. Raise it if your leader tasks need longer to stop
     * their side effects, but keep it below the algorithm's validity after a renewal minus its renewal period
     * (for quorum: {@code election-timeout × (1 − max-clock-drift) − validity-margin − heartbeat-interval}): a
     * longer lead revokes a healthy leadership before its next renewal can extend it.
     */
    public ElectionBuilder revocationLead(Duration lead) {
        Objects.requireNonNull(lead, "revocation-lead");
        if (lead.isNegative() || lead.compareTo(MAX_REVOCATION_LEAD) >= 0) {
            throw new IllegalArgumentException("revocation-lead = " + lead.toMillis()
                    + "ms is out of range: allowed 0ms or more and less than " + MAX_REVOCATION_LEAD.toMillis() + "ms");
        }
        this.revocationLead = lead;
        return this;
    }

    /**
     * {@code seed}: the seed of the elector's random source (backoffs), to reproduce a run. Default: a seed
     * drawn from {@link java.security.SecureRandom}.
     */
    public ElectionBuilder seed(long seed) {
        this.seed = OptionalLong.of(seed);
        return this;
    }

    /**
     * {@code listener-executor}: where {@link ElectionListener} callbacks run. Default: none, every listener is
     * called on the election's notifier, one event at a time, so a listener that blocks delays the others. The
     * notifier is a queue of the election's own on a small pool of threads every election of the process shares
     * (4 per core, from 8 to 32), so that thousands of groups need no thread each: a listener that blocks for long
     * also holds one of those threads. With an executor, each listener gets a queue of its own drained on {@code
     * executor}: one listener's callbacks still run one at a time and in the order of the events, different
     * listeners run concurrently, and a listener that blocks delays only its own events. The application owns the
     * executor (the election does not shut it down); an executor that rejects a task has that listener's events
     * delivered on the notifier instead. A resigning leader's hand-over waits until every listener's {@link
     * ElectionListener#revoked} has returned, on the executor too. Tasks of {@link Election#runWhileLeader} are
     * started from the notifier, not the executor.
     */
    public ElectionBuilder listenerExecutor(Executor executor) {
        this.listenerExecutor = Optional.of(Objects.requireNonNull(executor, "listener-executor"));
        return this;
    }

    /**
     * {@code spread-leaders}: gives each member of this group a priority from the group's name ({@link
     * LeaderSpread}), so that the groups of a process that hosts many are led about evenly by all members rather
     * than mostly by one. Default false. The member the group prefers campaigns first and so usually wins the first
     * election; while it is away the group's next choice leads; once it is back and has kept up for the algorithm's
     * priority hold-down (quorum: stretched by the group's own share of one more, {@link LeaderSpread#stagger}, so
     * that a returning member's groups move back over a second or so, not at once), the leader hands leadership to
     * it by the graceful hand-over path (quorum rule 11 in {@code docs/quorum.md}; bully elects by priority). Every
     * member of the group must set it alike. For algorithms with priorities (quorum, bully), whose {@code priority} is
     * then left at 0.
     */
    public ElectionBuilder spreadLeaders(boolean spread) {
        this.spreadLeaders = spread;
        return this;
    }

    /**
     * Checks that everything required is present and builds a dormant election; call {@link Election#start()}.
     *
     * @throws IllegalArgumentException naming what is missing or inconsistent
     */
    public Election build() {
        if (group == null) {
            throw new IllegalArgumentException("group is required: allowed " + GroupNames.ALLOWED);
        }
        if (self == null) {
            throw new IllegalArgumentException("self is required: the id of this member, one of the members");
        }
        ElectorSpec spec =
                algorithm != null ? algorithm : Algorithms.all().get(0).defaults(Environment.of(group));
        boolean exchangesMessages = exchangesMessages(spec);
        if (transport == null && exchangesMessages) {
            throw new IllegalArgumentException("transport is required: algorithm '" + spec.algorithm()
                    + "' exchanges messages between members; pass the process's transport (for tests: new"
                    + " InProcessNetwork().transport(self)). Only algorithms that send no peer messages, such as"
                    + " lease, run without one");
        }
        Set<NodeId> ids = members;
        if (ids.isEmpty() && transport != null) {
            ids = transport.members();
        }
        if (ids.isEmpty() && !exchangesMessages) {
            ids = Set.of(self);
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("members is required: add every member, this one included, with"
                    + " member(id, address), or use a transport configured with them");
        }
        if (!ids.contains(self)) {
            throw new IllegalArgumentException("self = " + self + " is not one of the members " + new TreeSet<>(ids)
                    + ": allowed one of the members (add it with member(id, address))");
        }
        if (stateStore == null) {
            throw new IllegalArgumentException("state-store is required: pass stateStore(new "
                    + FileStateStore.class.getSimpleName() + "(directory)) so that this member remembers its term"
                    + " across restarts, or, knowingly, stateStore(new " + InMemoryStateStore.class.getSimpleName()
                    + "()) — a quorum member that forgets its term after a restart can vote twice in one term");
        }
        if (spreadLeaders) {
            spec = spread(spec, ids);
        }
        Map<NodeId, NodeAddress> known = new TreeMap<>();
        for (NodeId id : ids) {
            NodeAddress address = addresses.get(id);
            if (address == null && transport != null) {
                address = transport.address(id).orElse(null);
            }
            if (address != null) {
                known.put(id, address);
            }
        }
        return new ElectionSettings(
                        group,
                        self,
                        new TreeSet<>(ids),
                        known,
                        spec,
                        stateStore,
                        transport,
                        revocationLead,
                        seed,
                        listenerExecutor)
                .newElection();
    }

    /** {@code spec} with this member's priorities from {@link LeaderSpread}, or a clear refusal. */
    private ElectorSpec spread(ElectorSpec spec, Set<NodeId> ids) {
        String refusal = "spread-leaders needs an algorithm with priorities whose members know each other (quorum,"
                + " bully), not '" + spec.algorithm() + "'";
        if (!exchangesMessages(spec)) {
            throw new IllegalArgumentException(refusal + ", which elects through its store alone");
        }
        boolean handSet = spec.priority() != 0
                || (spec instanceof io.bellwether.elector.RankedConfig r
                        && !r.memberPriorities().isEmpty());
        ElectorSpec spread;
        try {
            spread = spec.withPriorities(LeaderSpread.priorities(group, ids), self);
            // Probed on every member alike: the spread gives some members 0, which an algorithm without priorities
            // would take.
            spec.withPriorities(Map.of(self, 1), self);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(refusal + ", which has none", e);
        }
        if (handSet) {
            throw new IllegalArgumentException("spread-leaders gives each member its priority from the group's name,"
                    + " but the algorithm has priorities set by hand (priority = " + spec.priority() + "): allowed"
                    + " none with spread-leaders; leave priority and priorities out, or set spread-leaders false");
        }
        return staggered(spread, group);
    }

    /**
     * Quorum: the priority hold-down of {@code spec} stretched by its group's own fraction of it ({@link
     * LeaderSpread#stagger}), so that the groups a returning member is preferred for are handed to it spread over one
     * more hold-down rather than all at once. Every member of the group stretches it alike.
     */
    static ElectorSpec staggered(ElectorSpec spec, String group) {
        if (!(spec instanceof io.bellwether.quorum.QuorumConfig q)) {
            return spec;
        }
        long base = q.priorityHoldDown().toNanos();
        // Within the key's limit: a hold-down near it is stretched by less, never all groups to the limit.
        long room = Math.min(base, io.bellwether.quorum.QuorumConfig.MAX_PRIORITY_HOLD_DOWN.toNanos() - base);
        long stretched = base + (long) (room * LeaderSpread.stagger(group));
        return q.toBuilder()
                .priorityHoldDown(java.time.Duration.ofNanos(stretched))
                .build();
    }

    /**
     * Whether {@code spec}'s members exchange messages: it has a codec, or its algorithm declares {@link
     * Trait#PEER_MESSAGES}. A spec that is neither registered nor has a codec is taken at its word.
     */
    private static boolean exchangesMessages(ElectorSpec spec) {
        return spec.codec() != MessageCodec.NONE
                || Algorithms.byName(spec.algorithm())
                        .map(a -> a.traits().contains(Trait.PEER_MESSAGES))
                        .orElse(false);
    }
}
